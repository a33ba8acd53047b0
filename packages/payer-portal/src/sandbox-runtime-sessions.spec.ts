import { DomainError, type TenantScope } from '@prior-auth/domain';
import { TokenSigner } from '@prior-auth/platform';
import { SandboxRuntimeSessions } from './sandbox-runtime-sessions';
import { verifySandboxSessionToken } from './sandbox-session-token';
import { MemoryRuntimeSessionLedger } from './testing/memory-runtime-session-ledger';

const SCOPE: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
const OTHER: TenantScope = { organizationId: 'org_2', environment: 'sandbox' };
const T0 = new Date('2026-03-02T09:00:00.000Z');
const signer = new TokenSigner('s'.repeat(32));

let now: Date;
let ledger: MemoryRuntimeSessionLedger;
let sessions: SandboxRuntimeSessions;

const build = (baseUrl = 'https://api.example.test') => {
  let counter = 0;
  return new SandboxRuntimeSessions({
    ledger,
    signer,
    baseUrl,
    clock: { now: () => new Date(now) },
    ids: { newId: (prefix) => `${prefix}_${(counter += 1)}` },
  });
};

beforeEach(() => {
  now = new Date(T0);
  ledger = new MemoryRuntimeSessionLedger();
  sessions = build();
});

const later = (ms: number) => new Date(T0.getTime() + ms);

describe('SandboxRuntimeSessions', () => {
  it('provisions an active sandbox session, live for its authorization within its tenant only', async () => {
    const { sessionId } = await sessions.provision(SCOPE, 'auth_1');
    expect(sessionId).toBe('rs_1');
    expect(await ledger.find(sessionId)).toEqual({
      scope: SCOPE,
      id: 'rs_1',
      authorizationId: 'auth_1',
      provider: 'sandbox',
      status: 'active',
      createdAt: T0,
      endedAt: null,
    });
    expect(await sessions.liveView(SCOPE, 'auth_1')).toEqual({
      sessionId: 'rs_1',
      status: 'active',
      startedAt: T0,
    });
    expect(await sessions.liveView(OTHER, 'auth_1')).toBeNull();
    expect(await sessions.liveView({ ...SCOPE, environment: 'production' }, 'auth_1')).toBeNull();
    expect(await sessions.liveView(SCOPE, 'auth_2')).toBeNull();
  });

  it('shows the newest session not ended, and releasing is idempotent', async () => {
    await sessions.provision(SCOPE, 'auth_1');
    now = later(60_000);
    await sessions.provision(SCOPE, 'auth_1');
    expect(await sessions.liveView(SCOPE, 'auth_1')).toMatchObject({ sessionId: 'rs_2' });

    now = later(120_000);
    await sessions.release('rs_2');
    now = later(180_000);
    await sessions.release('rs_2');
    await sessions.release('rs_unknown');
    expect(await ledger.find('rs_2')).toMatchObject({ status: 'ended', endedAt: later(120_000) });
    expect(await sessions.liveView(SCOPE, 'auth_1')).toMatchObject({ sessionId: 'rs_1', startedAt: T0 });
    await sessions.release('rs_1');
    expect(await sessions.liveView(SCOPE, 'auth_1')).toBeNull();
  });

  it('refuses production cases: no provider serves real payers', async () => {
    const refusal = sessions.provision({ ...SCOPE, environment: 'production' }, 'auth_1');
    await expect(refusal).rejects.toBeInstanceOf(DomainError);
    await expect(refusal).rejects.toMatchObject({ code: 'auth_provider_unavailable' });
    expect(ledger.rows.size).toBe(0);
  });

  it('gives a session page URL whose signed token names the session, the access and the expiry', async () => {
    const { sessionId } = await sessions.provision(SCOPE, 'auth_1');
    const expiresAt = later(5 * 60_000);
    for (const access of ['interactive', 'read_only'] as const) {
      const url = await sessions.accessUrl(sessionId, access, expiresAt);
      const match =
        /^https:\/\/api\.example\.test\/sandbox-portal\/sessions\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(
          url ?? '',
        );
      expect(match).not.toBeNull();
      expect(verifySandboxSessionToken(signer, match![1]!, now)).toEqual({
        ok: true,
        claims: { sid: sessionId, access, exp: expiresAt.getTime() },
      });
      expect(verifySandboxSessionToken(signer, match![1]!, expiresAt)).toEqual({
        ok: false,
        reason: 'expired',
      });
    }
  });

  it('gives no URL for an ended or unknown session', async () => {
    const { sessionId } = await sessions.provision(SCOPE, 'auth_1');
    await sessions.release(sessionId);
    expect(await sessions.accessUrl(sessionId, 'interactive', later(60_000))).toBeNull();
    expect(await sessions.accessUrl('rs_unknown', 'read_only', later(60_000))).toBeNull();
  });

  it('keeps a path prefix of the base URL and drops its trailing slash', async () => {
    const prefixed = build('https://example.test/prior-auth/');
    const { sessionId } = await prefixed.provision(SCOPE, 'auth_1');
    expect(await prefixed.accessUrl(sessionId, 'read_only', later(60_000))).toMatch(
      /^https:\/\/example\.test\/prior-auth\/sandbox-portal\/sessions\/[^/]+$/,
    );
  });

  it.each([['not a url'], ['ftp://example.test'], ['https://example.test/?q=1']])(
    'refuses the base URL %p',
    (baseUrl) => {
      expect(() => build(baseUrl)).toThrow(/baseUrl/);
    },
  );
});
