import {
  type AccessGrantLedger,
  type AccessGrantOpening,
  type AccessGrantRecord,
  type RuntimeSessionLedger,
  type RuntimeSessionRecord,
} from '@prior-auth/domain';
import { TokenSigner } from '@prior-auth/platform';
import { LiveViewAccess } from '../src/live-view/live-view-access';
import { signLiveViewToken } from '../src/live-view/live-view-token';

/*
 * Every use of a live-view URL is checked against its grant and session and audited (decision 0033). The
 * cross-process behaviour, with real processes and a browser, is in live-view.api.spec.ts.
 */

const T0 = new Date('2026-03-01T10:00:00Z');
const EXPIRES = new Date('2026-03-01T10:05:00Z');
const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const client = { address: '127.0.0.1', userAgent: 'viewer\u0000/1' };

function setup() {
  const grants = new Map<string, AccessGrantRecord>();
  const openings: AccessGrantOpening[] = [];
  const grantLedger: AccessGrantLedger = {
    record: async (grant) => void grants.set(grant.id, { ...grant, revokedAt: null }),
    find: async (id) => grants.get(id) ?? null,
    revokeForSubject: async () => 0,
    recordOpening: async (opening) => void openings.push(opening),
  };
  const sessions = new Map<string, RuntimeSessionRecord>();
  const sessionLedger = { find: async (id: string) => sessions.get(id) ?? null } as RuntimeSessionLedger;
  const signer = new TokenSigner('live-view-test-secret-0123456789abcdef');
  let now = T0;
  const access = new LiveViewAccess({
    grants: grantLedger,
    sessions: sessionLedger,
    signer,
    clock: { now: () => now },
  });
  grants.set('lsg_1', {
    id: 'lsg_1',
    scope,
    kind: 'live_session',
    subjectId: 'auth_1',
    expiresAt: EXPIRES,
    revokedAt: null,
    createdAt: T0,
  });
  sessions.set('rs_1', {
    scope,
    id: 'rs_1',
    authorizationId: 'auth_1',
    provider: 'browser',
    status: 'active',
    createdAt: T0,
    endedAt: null,
  });
  const token = (claims: Partial<Parameters<typeof signLiveViewToken>[1]> = {}) =>
    signLiveViewToken(signer, {
      sid: 'rs_1',
      gid: 'lsg_1',
      access: 'read_only',
      exp: EXPIRES.getTime(),
      ...claims,
    });
  return {
    access,
    grants,
    sessions,
    openings,
    token,
    moveTo: (at: Date) => (now = at),
  };
}

const outcomes = (openings: AccessGrantOpening[]) => openings.map((o) => o.outcome);

it('serves a live session to its grant and audits the use, without control characters', async () => {
  const { access, token, openings } = setup();
  await expect(access.check(token(), 'view', client)).resolves.toMatchObject({
    ok: true,
    session: { id: 'rs_1' },
  });
  await expect(access.check(token(), 'stream', client)).resolves.toMatchObject({ ok: true });
  expect(outcomes(openings)).toEqual(['viewed', 'viewed']);
  expect(openings[0]).toMatchObject({
    grant: { id: 'lsg_1', scope, kind: 'live_session', subjectId: 'auth_1' },
    client: { address: '127.0.0.1', userAgent: 'viewer/1' },
  });
});

it('refuses input to a read-only view, even while the session is live', async () => {
  const { access, token, openings } = setup();
  await expect(access.check(token(), 'input', client)).resolves.toEqual({ ok: false, refusal: 'read_only' });
  expect(outcomes(openings)).toEqual(['input_refused']);
});

it('refuses an altered, foreign or unknown token as invalid, audited without a grant', async () => {
  const { access, token, openings } = setup();
  const genuine = token();
  const altered = `${genuine.slice(0, -3)}${genuine.endsWith('A') ? 'BBB' : 'AAA'}`;
  const foreign = signLiveViewToken(new TokenSigner('another-secret-0123456789abcdefghijkl'), {
    sid: 'rs_1',
    gid: 'lsg_1',
    access: 'read_only',
    exp: EXPIRES.getTime(),
  });
  for (const bad of [
    altered,
    foreign,
    token({ gid: 'lsg_unknown' }),
    token({ exp: EXPIRES.getTime() + 1 }),
    '',
  ]) {
    await expect(access.check(bad, 'view', client)).resolves.toEqual({ ok: false, refusal: 'invalid' });
  }
  expect(openings.every((o) => o.outcome === 'invalid' && o.grant === null)).toBe(true);
  expect(openings).toHaveLength(5);
});

it('refuses a revoked or expired grant, and a session that ended or belongs to another tenant', async () => {
  const { access, token, grants, sessions, openings, moveTo } = setup();

  moveTo(EXPIRES);
  await expect(access.check(token(), 'view', client)).resolves.toEqual({ ok: false, refusal: 'expired' });
  moveTo(T0);

  sessions.set('rs_1', { ...sessions.get('rs_1')!, status: 'ended', endedAt: T0 });
  await expect(access.check(token(), 'stream', client)).resolves.toEqual({
    ok: false,
    refusal: 'subject_inactive',
  });
  sessions.set('rs_1', {
    ...sessions.get('rs_1')!,
    status: 'active',
    endedAt: null,
    scope: { organizationId: 'org_2', environment: 'sandbox' },
  });
  await expect(access.check(token(), 'view', client)).resolves.toEqual({
    ok: false,
    refusal: 'subject_inactive',
  });

  grants.set('lsg_1', { ...grants.get('lsg_1')!, revokedAt: T0 });
  await expect(access.check(token(), 'view', client)).resolves.toEqual({ ok: false, refusal: 'revoked' });

  expect(outcomes(openings)).toEqual(['expired', 'subject_inactive', 'subject_inactive', 'revoked']);
});
