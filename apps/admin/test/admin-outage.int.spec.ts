import { findFreePort } from '@prior-auth/persistence-postgres';
import { EXIT_TEMPORARY_FAILURE, runAdmin } from '../src/admin-runner';

describe('admin CLI when the database is unavailable', () => {
  it.each([
    ['org', 'list'],
    ['bootstrap', '--name', 'Valley Clinic', '--npi', '1234567893', '--json'],
  ])('says so in one line and exits with the temporary-failure status (%s)', async (...args) => {
    // A port nothing listens on: the connection is refused.
    const port = await findFreePort();
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      ['node', 'admin', ...args],
      { out: (s) => out.push(s), err: (s) => err.push(s) },
      { DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${port}/prior_auth` },
    );
    expect(code).toBe(EXIT_TEMPORARY_FAILURE);
    expect(out).toEqual([]);
    expect(err).toEqual(['error: the database is unavailable; run the command again once it is reachable.']);
  });

  it('still answers --help without a database', async () => {
    const out: string[] = [];
    const code = await runAdmin(
      ['node', 'admin', '--help'],
      { out: (s) => out.push(s), err: () => undefined },
      { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/prior_auth' },
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('Manage organizations');
  });
});
