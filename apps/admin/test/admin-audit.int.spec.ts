import {
  openTestDataSource,
  TypeOrmAuditLog,
  TypeOrmOrganizationDirectory,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import type { Command } from 'commander';
import { buildCli } from '../src/cli';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

/** docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: `audit`, `npi list` and every command's help. */
describe('admin CLI: audit trail, NPIs of unknown organizations, help', () => {
  let dataSource: DataSource;
  let directory: TypeOrmOrganizationDirectory;
  const ids = new RandomIdGenerator();
  beforeAll(async () => {
    dataSource = await openTestDataSource(2);
    directory = new TypeOrmOrganizationDirectory(dataSource);
  });
  afterAll(() => dataSource.destroy());

  const cli = (out: string[], err: string[]) =>
    buildCli(
      async () => directory,
      { out: (s) => out.push(s), err: (s) => err.push(s) },
      async () => dataSource,
      // The portal commands are listed too; none of these tests seals a secret.
      async () => ({
        dataSource,
        cipher: () => {
          throw new Error('no cipher in these tests');
        },
      }),
      async () => ({
        dataSource,
        jobBoss: () => Promise.reject(new Error('no job queue in these tests')),
      }),
    );

  async function run(...args: string[]): Promise<{ out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    await cli(out, err).parseAsync(args, { from: 'user' });
    return { out, err };
  }

  it('prints who read or changed what and which grants were opened, filtered by case and time', async () => {
    const org = await directory.createOrganization({ id: ids.newId('org'), name: 'Audited clinic' });
    const scope = { organizationId: org.id, environment: 'sandbox' as const };
    const caseId = ids.newId('auth');
    const otherCase = ids.newId('auth');
    const long = new Date(Date.now() - 3 * 86_400_000);
    const recent = new Date(Date.now() - 60_000);
    const entry = (subjectId: string, occurredAt: Date, requestId: string) => ({
      scope,
      occurredAt,
      actor: 'api_key:key_test',
      action: 'authorization.read',
      subjectType: 'authorization',
      subjectId,
      requestId,
      details: { via: 'retrieve' },
    });
    await new TypeOrmAuditLog(dataSource.manager).append([
      entry(caseId, long, 'req_old'),
      entry(caseId, recent, 'req_recent'),
      entry(otherCase, recent, 'req_other'),
    ]);
    // A grant opened on the case, as the grant gate records it (decision 0014).
    const grantId = ids.newId('grant');
    await new TypeOrmAuditLog(dataSource.manager).append([
      {
        scope,
        occurredAt: new Date(),
        actor: `access_grant:${grantId}`,
        action: 'access_grant.redirected',
        subjectType: 'live_session',
        subjectId: caseId,
        details: { grantId, clientAddress: '203.0.113.9', userAgent: 'test-agent' },
      },
    ]);

    const all = JSON.parse((await run('audit', '--org', org.id, '--json')).out[0]!);
    expect(all.map((row: { requestId: string | null }) => row.requestId)).toEqual([
      'req_old',
      'req_recent',
      'req_other',
      null,
    ]);
    expect(all[3]).toMatchObject({
      actor: `access_grant:${grantId}`,
      action: 'access_grant.redirected',
      subjectType: 'live_session',
      subjectId: caseId,
      details: { grantId, clientAddress: '203.0.113.9' },
    });

    const ofCase = (await run('audit', '--org', org.id, '--authorization', caseId, '--since', '24h')).out;
    const lines = ofCase[0]!.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\S+Z\\tsandbox\\tapi_key:key_test\\tauthorization\\.read\\tauthorization:${caseId}\\treq_recent`,
      ),
    );
    expect(lines[1]).toContain('access_grant.redirected');

    const since = JSON.parse(
      (
        await run(
          'audit',
          '--org',
          org.id,
          '--since',
          new Date(Date.now() - 3_600_000).toISOString(),
          '--json',
        )
      ).out[0]!,
    );
    expect(since).toHaveLength(3);
  });

  it('refuses an unknown organization and a malformed --since', async () => {
    await expect(run('audit', '--org', 'org_doesnotexist')).rejects.toThrow(/does not exist/);
    const err: string[] = [];
    await expect(
      cli([], err)
        .exitOverride()
        .parseAsync(['audit', '--org', 'org_x', '--since', 'yesterday'], { from: 'user' }),
    ).rejects.toThrow();
    expect(err.join('\n')).toMatch(/--since/);
  });

  it('npi list on an unknown organization is an error', async () => {
    await expect(run('npi', 'list', '--org', 'org_doesnotexist')).rejects.toThrow(/does not exist/);
  });

  it('gives every command a one-line description in --help', () => {
    const missing: string[] = [];
    const visit = (command: Command, path: string) => {
      for (const sub of command.commands) {
        const name = `${path} ${sub.name()}`.trim();
        const description = sub.description();
        if (!description || description.includes('\n')) missing.push(name);
        visit(sub, name);
      }
    };
    visit(cli([], []), '');
    expect(missing).toEqual([]);
    const out: string[] = [];
    expect(() => cli(out, []).parse(['npi', '--help'], { from: 'user' })).toThrow();
    expect(out.join('\n')).toMatch(/list\s.*provider NPIs/);
  });
});
