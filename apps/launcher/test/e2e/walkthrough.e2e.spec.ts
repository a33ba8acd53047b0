import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StackHarness } from './support/stack-harness';
import { testTenant } from './support/test-tenant';

/*
 * docs/walkthrough.md is run as written: its shell blocks, in order, in one bash, against a started stack. Only
 * the two lines the reader is told to edit (where the API is, the key) get this stack's values, and the block
 * that starts the service is the stack itself.
 */
const run = promisify(execFile);
const WALKTHROUGH = join(__dirname, '../../../../docs/walkthrough.md');

/** The ```sh blocks of the walkthrough, in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

const tenant = testTenant();
const stack = new StackHarness();
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'walkthrough-'));
  await stack.start({ workers: 1 });
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await rm(folder, { recursive: true, force: true });
}, 30_000);

it('takes a sandbox case from creation to completed with the commands of docs/walkthrough.md', async () => {
  const blocks = shellBlocks(await readFile(WALKTHROUGH, 'utf8'));
  expect(blocks[0]).toContain('pnpm start');
  const settings = blocks[1]!;
  expect(settings).toMatch(/^API=http:\/\/localhost:3000$/m);
  expect(settings).toMatch(/^KEY=/m);
  const script = [
    'set -euo pipefail',
    settings.replace(/^API=.*$/m, `API=${stack.baseUrl}`).replace(/^KEY=.*$/m, `KEY=${tenant.sandboxApiKey}`),
    ...blocks.slice(2),
  ].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd: folder, timeout: 150_000, maxBuffer: 1 << 24 });
  const lines = stdout.trim().split('\n');
  // What the walkthrough says each step shows, in order.
  expect(lines).toContain('requires_input');
  expect(lines).toContain('upload: 200');
  expect(lines).toContain('ready');
  expect(lines).toContain('requires_confirmation');
  expect(lines).toContain('processing');
  expect(lines[lines.length - 2]).toBe('approved');
  expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({ referenceNumber: expect.any(String) });
  const outcome = JSON.parse(await readFile(join(folder, 'case.json'), 'utf8'));
  expect(outcome).toMatchObject({ status: 'completed', outcome: 'approved' });
}, 180_000);
