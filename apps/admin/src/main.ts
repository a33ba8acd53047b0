import { runAdmin } from './admin-runner';

const io = {
  out: (s: string) => process.stdout.write(`${s}\n`),
  err: (s: string) => process.stderr.write(`${s}\n`),
};

runAdmin(process.argv, io).then((code) => process.exit(code));
