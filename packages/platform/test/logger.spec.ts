import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const LINES = 20_000;

async function linesWritten(mode: 'flush' | 'exit'): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'support/logging-process.child.ts')],
    { env: { ...process.env, LINES: String(LINES), MODE: mode }, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.split('\n').filter((line) => line.includes('"flush-test"')).length;
}

describe('createLogger (asynchronous destination)', () => {
  it('writes every buffered line when flushed on shutdown', async () => {
    await expect(linesWritten('flush')).resolves.toBe(LINES);
  }, 30_000);

  it('writes every buffered line even when the process exits without flushing', async () => {
    await expect(linesWritten('exit')).resolves.toBe(LINES);
  }, 30_000);
});
