import { runAdmin } from './admin-runner';

const io = {
  out: (s: string) => process.stdout.write(`${s}\n`),
  err: (s: string) => process.stderr.write(`${s}\n`),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  },
};

runAdmin(process.argv, io).then((code) => process.exit(code));
