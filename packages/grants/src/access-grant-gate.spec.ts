import type { AccessGrantClient, GrantKind, TenantScope } from '@prior-auth/domain';
import { FixedClock } from '@prior-auth/domain/testing';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import {
  AccessGrantGate,
  type GrantSubjectResolver,
  MAX_AUDITED_USER_AGENT_LENGTH,
} from './access-grant-gate';
import { ACCESS_GRANT_TOKEN_PURPOSE } from './access-grant-token';
import { SignedAccessGrants } from './signed-access-grants';
import { InMemoryAccessGrantLedger } from './testing/in-memory-access-grant-ledger';

const SECRET = 'grants-unit-test-secret-0123456789abcdef';
const BASE_URL = 'https://api.example.test';
const T0 = new Date('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const TTL = 5 * 60_000;
const scope: TenantScope = { organizationId: 'org_a', environment: 'production' };
const client: AccessGrantClient = { address: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' };
const sessionUrl = (subjectId: string) => `https://runtime.example.test/sessions/${subjectId}`;

function setup(resolveSubject?: GrantSubjectResolver) {
  const ledger = new InMemoryAccessGrantLedger();
  const clock = new FixedClock(T0);
  const signer = new TokenSigner(SECRET);
  const resolver = jest.fn<ReturnType<GrantSubjectResolver>, Parameters<GrantSubjectResolver>>(
    resolveSubject ?? (async (grant) => sessionUrl(grant.subjectId)),
  );
  const issuer = new SignedAccessGrants({
    ledger,
    signer,
    baseUrl: BASE_URL,
    clock,
    ids: new RandomIdGenerator(),
  });
  const gate = new AccessGrantGate({ ledger, signer, clock, resolveSubject: resolver });
  const issue = async (subjectId = 'mh_1', kind: GrantKind = 'manual_handoff') => {
    const issued = await issuer.issue({ scope, kind, subjectId, expiresAt: at(TTL) });
    return { ...issued, token: issued.url.slice(`${BASE_URL}/grants/`.length) };
  };
  return { ledger, clock, signer, resolver, issuer, gate, issue };
}

/** Replaces the character at `index` with a different one from the base64url alphabet. */
const flipAt = (text: string, index: number) =>
  `${text.slice(0, index)}${text[index] === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;

const splitToken = (token: string) => {
  const dot = token.lastIndexOf('.');
  return { body: token.slice(0, dot), mac: token.slice(dot + 1) };
};

describe('AccessGrantGate', () => {
  it('redirects an issued grant to its subject and audits the opening', async () => {
    const { ledger, gate, resolver, issue } = setup();
    const grant = await issue('mh_1');

    const opening = await gate.open(grant.token, client);

    expect(opening).toEqual({ outcome: 'redirected', location: sessionUrl('mh_1'), grantId: grant.id });
    expect(resolver).toHaveBeenCalledWith({
      scope,
      kind: 'manual_handoff',
      subjectId: 'mh_1',
      expiresAt: at(TTL),
      grantId: grant.id,
    });
    expect(ledger.openings).toEqual([
      {
        grant: { id: grant.id, scope, kind: 'manual_handoff', subjectId: 'mh_1' },
        outcome: 'redirected',
        client,
        openedAt: T0,
      },
    ]);
  });

  it('audits each opening of a grant that is opened more than once while live', async () => {
    const { ledger, clock, gate, issue } = setup();
    const grant = await issue();

    await gate.open(grant.token, client);
    clock.advance(1_000);
    const again = await gate.open(grant.token, { address: '198.51.100.9', userAgent: null });

    expect(again.outcome).toBe('redirected');
    expect(ledger.openings.map((opening) => [opening.outcome, opening.openedAt, opening.client])).toEqual([
      ['redirected', T0, client],
      ['redirected', at(1_000), { address: '198.51.100.9', userAgent: null }],
    ]);
  });

  describe('refuses a token it did not issue as invalid, auditing one tenant-less opening', () => {
    const refusesAsInvalid = async (
      makeToken: (issued: { token: string }, signer: TokenSigner) => string,
    ) => {
      const { ledger, gate, resolver, issue, signer } = setup();
      const issued = await issue();

      const opening = await gate.open(makeToken(issued, signer), client);

      expect(opening).toEqual({ outcome: 'invalid', grantId: null });
      expect(ledger.openings).toEqual([{ grant: null, outcome: 'invalid', client, openedAt: T0 }]);
      expect(resolver).not.toHaveBeenCalled();
    };

    it('with a character of its body changed', () =>
      refusesAsInvalid(({ token }) => {
        const { body, mac } = splitToken(token);
        return `${flipAt(body, Math.floor(body.length / 2))}.${mac}`;
      }));

    it('with a character of its signature changed', () =>
      refusesAsInvalid(({ token }) => {
        const { body, mac } = splitToken(token);
        return `${body}.${flipAt(mac, Math.floor(mac.length / 2))}`;
      }));

    it('signed for another purpose', () =>
      refusesAsInvalid(({ token }, signer) => {
        const payload = signer.verify(ACCESS_GRANT_TOKEN_PURPOSE, token);
        return signer.sign('pagination-cursor', payload);
      }));

    it('signed with another secret', () =>
      refusesAsInvalid(({ token }, signer) => {
        const payload = signer.verify(ACCESS_GRANT_TOKEN_PURPOSE, token);
        return new TokenSigner('another-secret-0123456789abcdefghijkl').sign(
          ACCESS_GRANT_TOKEN_PURPOSE,
          payload,
        );
      }));

    it('re-signed with a later expiry', () =>
      refusesAsInvalid(({ token }, signer) => {
        const payload = signer.verify<Record<string, unknown>>(ACCESS_GRANT_TOKEN_PURPOSE, token) ?? {};
        const extended = Object.fromEntries(
          Object.entries(payload).map(([key, value]) => [
            key,
            typeof value === 'number' ? value + TTL : value,
          ]),
        );
        return signer.sign(ACCESS_GRANT_TOKEN_PURPOSE, extended);
      }));

    it('signed but not shaped like a grant token', () =>
      refusesAsInvalid((_issued, signer) => signer.sign(ACCESS_GRANT_TOKEN_PURPOSE, { grant: 'anything' })));

    it.each(['', 'not-a-token', '.', 'abc.def', '%2e%2e%2f'])('malformed (%j)', (token) =>
      refusesAsInvalid(() => token),
    );
  });

  it('refuses a genuine token whose grant is unknown to the ledger as invalid', async () => {
    const elsewhere = setup();
    const issued = await elsewhere.issue();
    const { ledger, gate, resolver } = setup();

    expect(await gate.open(issued.token, client)).toEqual({ outcome: 'invalid', grantId: null });
    expect(ledger.openings).toEqual([{ grant: null, outcome: 'invalid', client, openedAt: T0 }]);
    expect(resolver).not.toHaveBeenCalled();
  });

  it('refuses a grant from its expiry on, auditing the opening under the grant', async () => {
    const { ledger, clock, gate, resolver, issue } = setup();
    const grant = await issue('mh_1');
    clock.advance(TTL);

    expect(await gate.open(grant.token, client)).toEqual({ outcome: 'expired', grantId: grant.id });
    expect(ledger.openings).toEqual([
      {
        grant: { id: grant.id, scope, kind: 'manual_handoff', subjectId: 'mh_1' },
        outcome: 'expired',
        client,
        openedAt: at(TTL),
      },
    ]);
    expect(resolver).not.toHaveBeenCalled();
  });

  it('opens a grant until just before its expiry', async () => {
    const { clock, gate, issue } = setup();
    const grant = await issue();
    clock.advance(TTL - 1);

    expect((await gate.open(grant.token, client)).outcome).toBe('redirected');
  });

  it('refuses a revoked grant as revoked, even once it has also expired', async () => {
    const { ledger, clock, issuer, gate, resolver, issue } = setup();
    const grant = await issue('mh_1');
    await issuer.revokeForSubject('mh_1');

    expect(await gate.open(grant.token, client)).toEqual({ outcome: 'revoked', grantId: grant.id });
    clock.advance(TTL);
    expect(await gate.open(grant.token, client)).toEqual({ outcome: 'revoked', grantId: grant.id });
    expect(ledger.openings.map((opening) => [opening.outcome, opening.grant?.id])).toEqual([
      ['revoked', grant.id],
      ['revoked', grant.id],
    ]);
    expect(resolver).not.toHaveBeenCalled();
  });

  it('refuses a grant whose subject is no longer usable', async () => {
    const { ledger, gate, issue } = setup(async () => null);
    const grant = await issue('auth_1', 'live_session');

    expect(await gate.open(grant.token, client)).toEqual({ outcome: 'subject_inactive', grantId: grant.id });
    expect(ledger.openings).toEqual([
      {
        grant: { id: grant.id, scope, kind: 'live_session', subjectId: 'auth_1' },
        outcome: 'subject_inactive',
        client,
        openedAt: T0,
      },
    ]);
  });

  it('still audits a refusal when the subject cannot be checked, and reports the failure', async () => {
    const failure = new Error('runtime unreachable');
    const { ledger, gate, issue } = setup(async () => {
      throw failure;
    });
    const grant = await issue();

    await expect(gate.open(grant.token, client)).rejects.toBe(failure);
    expect(ledger.openings.map((opening) => [opening.outcome, opening.grant?.id])).toEqual([
      ['subject_inactive', grant.id],
    ]);
  });

  it('does not let anyone in when the opening cannot be audited', async () => {
    const { ledger, gate, issue } = setup();
    const grant = await issue();
    const failure = new Error('audit store down');
    ledger.recordOpening = async () => {
      throw failure;
    };

    await expect(gate.open(grant.token, client)).rejects.toBe(failure);
  });

  it("revoking one subject's grants leaves another subject's grants working", async () => {
    const { issuer, gate, issue } = setup();
    const revoked = await issue('mh_1');
    const kept = await issue('mh_2');

    await issuer.revokeForSubject('mh_1');

    expect((await gate.open(revoked.token, client)).outcome).toBe('revoked');
    expect(await gate.open(kept.token, client)).toEqual({
      outcome: 'redirected',
      location: sessionUrl('mh_2'),
      grantId: kept.id,
    });
  });

  it('bounds what it audits of the client headers', async () => {
    const { ledger, gate, issue } = setup();
    const grant = await issue();
    const hostile = { address: '203.0.113.7\u0000', userAgent: `\u0000bot/1.0 ${'x'.repeat(100_000)}\r\n` };

    expect((await gate.open(grant.token, hostile)).outcome).toBe('redirected');

    const audited = ledger.openings[0]?.client;
    expect(audited?.address).toBe('203.0.113.7');
    expect(audited?.userAgent).toHaveLength(MAX_AUDITED_USER_AGENT_LENGTH);
    expect(audited?.userAgent?.startsWith('bot/1.0 ')).toBe(true);
    expect([...(audited?.userAgent ?? '')].some((char) => char < ' ')).toBe(false);
  });
});
