import { hashApiKey } from '@prior-auth/platform';
import { openTestDataSource, TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import { buildCli } from '../src/cli';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

describe('admin CLI', () => {
  let dataSource: DataSource;
  let directory: TypeOrmOrganizationDirectory;
  beforeAll(async () => {
    dataSource = await openTestDataSource(2);
    directory = new TypeOrmOrganizationDirectory(dataSource);
  });
  afterAll(() => dataSource.destroy());

  async function run(...args: string[]): Promise<{ out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    await buildCli(async () => directory, { out: (s) => out.push(s), err: (s) => err.push(s) }).parseAsync(
      args,
      {
        from: 'user',
      },
    );
    return { out, err };
  }

  it('bootstrap --json prints exactly the organization, the NPI and one key per environment', async () => {
    const { out } = await run('bootstrap', '--name', 'Valley Clinic', '--npi', '1234567893', '--json');
    expect(out).toHaveLength(1);
    const result = JSON.parse(out[0]!);
    expect(Object.keys(result).sort()).toEqual(['apiKeys', 'organizationId', 'providerNpi']);
    expect(result.providerNpi).toBe('1234567893');
    expect(result.apiKeys.sandbox).toMatch(/^pa_sandbox_/);
    expect(result.apiKeys.production).toMatch(/^pa_live_/);
    // Only hashes are stored, and they match the printed secrets.
    const stored = await directory.findActiveApiKeyByHash(hashApiKey(result.apiKeys.sandbox));
    expect(stored).toMatchObject({ organizationId: result.organizationId, environment: 'sandbox' });
    const rows = await dataSource.query('SELECT key_hash FROM api_keys WHERE organization_id = $1', [
      result.organizationId,
    ]);
    expect(JSON.stringify(rows)).not.toContain(result.apiKeys.sandbox);
    expect(await directory.listProviderNpis(result.organizationId)).toEqual(['1234567893']);
  });

  it('refuses an NPI with a wrong check digit and creates nothing', async () => {
    const before = (await directory.listOrganizations()).length;
    await expect(run('bootstrap', '--name', 'Bad NPI', '--npi', '1234567890', '--json')).rejects.toThrow(
      /not a valid NPI/,
    );
    expect((await directory.listOrganizations()).length).toBe(before);
  });

  it('creates, lists and revokes keys, and manages NPIs', async () => {
    const { out } = await run('org', 'create', '--name', 'Hill Clinic', '--json');
    const org = JSON.parse(out[0]!);
    const created = JSON.parse(
      (await run('key', 'create', '--org', org.id, '--env', 'production', '--json')).out[0]!,
    );
    expect(created.secret).toMatch(/^pa_live_/);
    await run('key', 'revoke', created.id);
    const keys = JSON.parse((await run('key', 'list', '--org', org.id, '--json')).out[0]!);
    expect(keys).toEqual([expect.objectContaining({ id: created.id, revokedAt: expect.any(String) })]);
    await expect(run('key', 'revoke', created.id)).rejects.toThrow(/no active key/);

    await run('npi', 'add', '--org', org.id, '--npi', '1245319599');
    await run('npi', 'add', '--org', org.id, '--npi', '1245319599');
    expect(JSON.parse((await run('npi', 'list', '--org', org.id, '--json')).out[0]!)).toEqual(['1245319599']);
    await run('npi', 'remove', '--org', org.id, '--npi', '1245319599');
    expect(await directory.listProviderNpis(org.id)).toEqual([]);
  });

  it('pins an API version on a key and lists it; refuses an unknown version', async () => {
    const org = JSON.parse((await run('org', 'create', '--name', 'Pinned Clinic', '--json')).out[0]!);
    const pinned = JSON.parse(
      (
        await run(
          'key',
          'create',
          '--org',
          org.id,
          '--env',
          'sandbox',
          '--api-version',
          '2024-01-01',
          '--json',
        )
      ).out[0]!,
    );
    expect(pinned.apiVersion).toBe('2024-01-01');
    await run('key', 'create', '--org', org.id, '--env', 'sandbox');
    const keys = JSON.parse((await run('key', 'list', '--org', org.id, '--json')).out[0]!);
    expect(keys.map((k: { apiVersion: string | null }) => k.apiVersion).sort()).toEqual(['2024-01-01', null]);
    expect((await run('key', 'list', '--org', org.id)).out[0]).toMatch(/\t2024-01-01\t/);
    await expect(
      run('key', 'create', '--org', org.id, '--env', 'sandbox', '--api-version', '2023-01-01'),
    ).rejects.toThrow(/2024-01-01, 2025-01-01/);
  });

  it('refuses a key for an unknown organization or environment', async () => {
    await expect(run('key', 'create', '--org', 'org_missing', '--env', 'sandbox')).rejects.toThrow(
      /does not exist/,
    );
    await expect(run('key', 'create', '--org', 'org_missing', '--env', 'staging')).rejects.toThrow(
      /sandbox or production/,
    );
  });
});
