import { randomBytes } from 'node:crypto';
import {
  openTestDataSource,
  TypeOrmPortalAccess,
  TypeOrmPortalCredentials,
} from '@prior-auth/persistence-postgres';
import { credentialsCipher, loadConfig } from '@prior-auth/platform';
import { runAdmin } from '../src/admin-runner';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

const PASSWORD = 'Sandbox-Portal-2026!';
const TOTP = 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC';
const KEY = randomBytes(32).toString('base64');
// Connections are per payer and shared by the database: only this file touches this payer.
const PAYER = 'payer_molina';

// Each command opens (and checks) the database as `pnpm admin` does: a few seconds per test on a busy machine.
jest.setTimeout(60_000);

describe('admin CLI: portal connections and credentials (decision 0021)', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = await openTestDataSource(2);
  });
  afterAll(() => dataSource.destroy());

  async function admin(
    args: string[],
    options: { stdin?: string; env?: Record<string, string | undefined> } = {},
  ): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      ['node', 'admin', ...args],
      {
        out: (s) => out.push(s),
        err: (s) => err.push(s),
        readStdin: async () => options.stdin ?? '',
      },
      { DATABASE_URL: process.env.DATABASE_URL, CREDENTIALS_KEY: KEY, ...options.env },
    );
    return { code, out, err };
  }

  async function newOrganization(): Promise<string> {
    const { out } = await admin([
      'org',
      'create',
      '--name',
      `Portal Clinic ${randomBytes(3).toString('hex')}`,
      '--json',
    ]);
    return JSON.parse(out[0]!).id;
  }

  it('sets, lists and removes a payer portal connection; refuses unknown scripts, payers and URLs', async () => {
    const set = await admin([
      'portal-connection',
      'set',
      '--payer',
      PAYER,
      '--base-url',
      'https://portal.example.com/',
      '--page-script',
      'sandbox-payer-site',
      '--json',
    ]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out[0]!)).toMatchObject({
      payerId: PAYER,
      baseUrl: 'https://portal.example.com',
      pageScript: 'sandbox-payer-site',
    });
    const listed = await admin(['portal-connection', 'list']);
    expect(listed.out.join('\n')).toMatch(
      new RegExp(`^${PAYER}\\thttps://portal.example.com\\tsandbox-payer-site\\t`, 'm'),
    );

    const badScript = await admin([
      'portal-connection',
      'set',
      '--payer',
      PAYER,
      '--base-url',
      'https://x.example',
      '--page-script',
      'nope',
    ]);
    expect(badScript.code).not.toBe(0);
    expect(badScript.err.join('\n')).toContain('must be one of sandbox-payer-site');
    const badUrl = await admin([
      'portal-connection',
      'set',
      '--payer',
      PAYER,
      '--base-url',
      'ftp://x',
      '--page-script',
      'sandbox-payer-site',
    ]);
    expect(badUrl.err.join('\n')).toContain('absolute http(s) URL');
    const badPayer = await admin([
      'portal-connection',
      'set',
      '--payer',
      'payer_nope',
      '--base-url',
      'https://x.example',
      '--page-script',
      'sandbox-payer-site',
    ]);
    expect(badPayer).toMatchObject({ code: 2, err: ['error: payer payer_nope is not in the catalog'] });

    expect((await admin(['portal-connection', 'remove', '--payer', PAYER])).code).toBe(0);
    expect((await admin(['portal-connection', 'remove', '--payer', PAYER])).err).toEqual([
      `error: payer ${PAYER} has no portal connection`,
    ]);
  });

  it('stores credentials from stdin, encrypted; never prints a secret back', async () => {
    const org = await newOrganization();
    const set = await admin(
      [
        'portal-credentials',
        'set',
        '--org',
        org,
        '--payer',
        PAYER,
        '--username',
        'demo.provider',
        '--password-stdin',
        '--totp-secret-stdin',
      ],
      { stdin: `${PASSWORD}\n${TOTP.toLowerCase().replace(/(.{4})/g, '$1 ')}\n` },
    );
    expect(set.code).toBe(0);
    const listed = await admin(['portal-credentials', 'list', '--org', org]);
    const listedJson = await admin(['portal-credentials', 'list', '--org', org, '--json']);
    expect(listed.out[0]).toMatch(new RegExp(`^${PAYER}\\tdemo.provider\\ttotp yes\\tupdated `));
    expect(JSON.parse(listedJson.out[0]!)).toEqual([
      expect.objectContaining({ payerId: PAYER, username: 'demo.provider', totpConfigured: true }),
    ]);
    const everything = [set, listed, listedJson].flatMap((r) => [...r.out, ...r.err]).join('\n');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(TOTP);

    const stored = JSON.stringify(
      await dataSource.query('SELECT * FROM portal_credentials WHERE organization_id = $1', [org]),
    );
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain(TOTP);
    const cipher = credentialsCipher(loadConfig({ CREDENTIALS_KEY: KEY }));
    expect(await new TypeOrmPortalCredentials(dataSource, () => cipher).signIn(org, PAYER)).toEqual({
      username: 'demo.provider',
      password: PASSWORD,
      totpSecret: TOTP,
    });
    expect(await new TypeOrmPortalAccess(dataSource).describe(org, PAYER)).toMatchObject({
      credentials: true,
    });

    expect((await admin(['portal-credentials', 'remove', '--org', org, '--payer', PAYER])).code).toBe(0);
    expect((await admin(['portal-credentials', 'list', '--org', org])).out).toEqual(['(none)']);
  });

  it.each<[string, string[], { stdin?: string; env?: Record<string, string | undefined> }, RegExp]>([
    ['without --password-stdin', [], { stdin: `${PASSWORD}\n` }, /--password-stdin is required/],
    ['with an empty password', ['--password-stdin'], { stdin: '\n' }, /password .* is empty/],
    [
      'with a TOTP secret that is not base32',
      ['--password-stdin', '--totp-secret-stdin'],
      { stdin: `${PASSWORD}\nnot-base32!\n` },
      /base32/,
    ],
    [
      'without CREDENTIALS_KEY',
      ['--password-stdin'],
      { stdin: `${PASSWORD}\n`, env: { CREDENTIALS_KEY: undefined } },
      /CREDENTIALS_KEY is required/,
    ],
    [
      'with a malformed CREDENTIALS_KEY',
      ['--password-stdin'],
      { stdin: `${PASSWORD}\n`, env: { CREDENTIALS_KEY: 'short' } },
      /CREDENTIALS_KEY must be 32 bytes/,
    ],
  ])(
    'refuses to store credentials %s, in one line, storing nothing',
    async (_why, flags, options, message) => {
      const org = await newOrganization();
      const result = await admin(
        [
          'portal-credentials',
          'set',
          '--org',
          org,
          '--payer',
          PAYER,
          '--username',
          'demo.provider',
          ...flags,
        ],
        options,
      );
      expect(result.code).not.toBe(0);
      expect(result.err.join('\n')).toMatch(message);
      expect(result.err.join('\n')).not.toContain(PASSWORD);
      expect(
        await dataSource.query('SELECT 1 FROM portal_credentials WHERE organization_id = $1', [org]),
      ).toEqual([]);
    },
  );

  it('refuses credentials for an unknown organization', async () => {
    const result = await admin(
      [
        'portal-credentials',
        'set',
        '--org',
        'org_missing_x',
        '--payer',
        PAYER,
        '--username',
        'u',
        '--password-stdin',
      ],
      { stdin: 'pw\n' },
    );
    expect(result).toMatchObject({ code: 2, err: ['error: organization org_missing_x does not exist'] });
  });
});
