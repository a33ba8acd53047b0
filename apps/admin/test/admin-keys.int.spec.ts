import { hashApiKey } from '@prior-auth/platform';
import { openTestDataSource, TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import { buildCli } from '../src/cli';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

/** docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: key labels, rotation with an overlap, last use. */
describe('admin CLI: key labels, rotation and last use', () => {
  let dataSource: DataSource;
  let directory: TypeOrmOrganizationDirectory;
  beforeAll(async () => {
    dataSource = await openTestDataSource(2);
    directory = new TypeOrmOrganizationDirectory(dataSource);
  });
  afterAll(() => dataSource.destroy());

  async function run(...args: string[]): Promise<string> {
    const out: string[] = [];
    await buildCli(async () => directory, { out: (s) => out.push(s), err: () => undefined }).parseAsync(
      args,
      {
        from: 'user',
      },
    );
    return out.join('\n');
  }

  async function newKey(label?: string) {
    const org = JSON.parse(await run('org', 'create', '--name', 'Rotating Clinic', '--json'));
    const key = JSON.parse(
      await run(
        'key',
        'create',
        '--org',
        org.id,
        '--env',
        'sandbox',
        ...(label ? ['--label', label] : []),
        '--api-version',
        '2024-01-01',
        '--json',
      ),
    );
    return { org, key };
  }

  it('labels a key and shows its label and last use in key list', async () => {
    const { org, key } = await newKey('billing server');
    let list = await run('key', 'list', '--org', org.id);
    expect(list).toMatch(
      new RegExp(`^${key.id}\\tsandbox\\t.+…\\t2024-01-01\\tactive\\tnever used\\tbilling server$`),
    );
    await directory.touchApiKeys([key.id]);
    list = await run('key', 'list', '--org', org.id);
    expect(list).toMatch(/\tlast used \d{4}-\d{2}-\d{2}T[\d:.]+Z\tbilling server$/);
    const [json] = JSON.parse(await run('key', 'list', '--org', org.id, '--json'));
    expect(json).toMatchObject({ id: key.id, label: 'billing server', expiresAt: null });
    expect(new Date(json.lastUsedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('rotates a key: a new secret now, the old one until the overlap ends', async () => {
    const { org, key } = await newKey('ehr');
    const before = Date.now();
    const rotated = JSON.parse(await run('key', 'rotate', key.id, '--overlap', '2h', '--json'));
    expect(rotated).toMatchObject({ environment: 'sandbox', replaces: key.id, apiVersion: '2024-01-01' });
    expect(rotated.secret).toMatch(/^pa_sandbox_/);
    const expiresAt = new Date(rotated.oldKeyExpiresAt).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(expiresAt).toBeLessThan(Date.now() + 2 * 3_600_000 + 1_000);
    // Both secrets work during the overlap; the new key keeps the label and the pinned version.
    expect(await directory.findActiveApiKeyByHash(hashApiKey(key.secret))).toMatchObject({ id: key.id });
    expect(await directory.findActiveApiKeyByHash(hashApiKey(rotated.secret))).toMatchObject({
      id: rotated.id,
      label: 'ehr',
      apiVersion: '2024-01-01',
      organizationId: org.id,
    });
    const list = await run('key', 'list', '--org', org.id);
    expect(list).toContain(`${key.id}\tsandbox`);
    expect(list).toMatch(/\texpires \d{4}-/);
    // A key is rotated once; its replacement is the one to rotate next.
    await expect(run('key', 'rotate', key.id)).rejects.toThrow(/no active key/);
  });

  it('rotates with no overlap: the old secret stops at once', async () => {
    const { key } = await newKey();
    const rotated = JSON.parse(await run('key', 'rotate', key.id, '--overlap', '0', '--json'));
    expect(await directory.findActiveApiKeyByHash(hashApiKey(key.secret))).toBeNull();
    expect(await directory.findActiveApiKeyByHash(hashApiKey(rotated.secret))).not.toBeNull();
    const human = await run('key', 'rotate', rotated.id, '--label', 'renamed');
    expect(human).toMatch(
      /^sandbox key key_\w+: pa_sandbox_\S+\nStore it now: it is not shown again\. Key key_\w+ stops working at /,
    );
  });

  it('refuses an unknown key, a revoked key and a bad overlap', async () => {
    await expect(run('key', 'rotate', 'key_doesnotexist')).rejects.toThrow(/no active key/);
    const { key } = await newKey();
    await run('key', 'revoke', key.id);
    await expect(run('key', 'rotate', key.id)).rejects.toThrow(/no active key/);
    const other = await newKey();
    const program = buildCli(async () => directory, {
      out: () => undefined,
      err: () => undefined,
    }).exitOverride();
    await expect(
      program.parseAsync(['key', 'rotate', other.key.id, '--overlap', 'soon'], { from: 'user' }),
    ).rejects.toThrow(/duration/);
    await expect(run('key', 'rotate', other.key.id, '--overlap', '31d')).rejects.toThrow(/30 days/);
  });
});
