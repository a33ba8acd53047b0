import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canTraverse } from './root-postgres-runner';

// A user that owns nothing here and is in no group of these folders: only the "others" bits apply.
const STRANGER = { uid: 2_000_000_001, gid: 2_000_000_001 };

describe('canTraverse', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'traverse-'));
  });
  afterEach(() => {
    chmodSync(base, 0o700);
    rmSync(base, { recursive: true, force: true });
  });

  it('follows the mode bits of every folder from the root down', () => {
    const inner = join(base, 'a', 'b');
    mkdirSync(inner, { recursive: true, mode: 0o755 });
    chmodSync(base, 0o755);
    chmodSync(join(base, 'a'), 0o755);
    chmodSync(inner, 0o755);
    expect(canTraverse(inner, STRANGER)).toBe(true);
    // A private folder anywhere above (a mode-700 clone) hides everything under it.
    chmodSync(base, 0o700);
    expect(canTraverse(inner, STRANGER)).toBe(false);
    chmodSync(base, 0o711);
    expect(canTraverse(inner, STRANGER)).toBe(true);
  });

  it('is false for a folder that does not exist', () => {
    expect(canTraverse(join(base, 'missing'), STRANGER)).toBe(false);
  });
});
