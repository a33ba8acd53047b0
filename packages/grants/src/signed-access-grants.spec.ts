import type { TenantScope } from '@prior-auth/domain';
import { FixedClock } from '@prior-auth/domain/testing';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import { SignedAccessGrants } from './signed-access-grants';
import { InMemoryAccessGrantLedger } from './testing/in-memory-access-grant-ledger';

const SECRET = 'grants-unit-test-secret-0123456789abcdef';
const T0 = new Date('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const scope: TenantScope = { organizationId: 'org_a', environment: 'sandbox' };

function setup(baseUrl = 'https://api.example.test') {
  const ledger = new InMemoryAccessGrantLedger();
  const clock = new FixedClock(T0);
  const issuer = new SignedAccessGrants({
    ledger,
    signer: new TokenSigner(SECRET),
    baseUrl,
    clock,
    ids: new RandomIdGenerator(),
  });
  return { ledger, clock, issuer };
}

describe('SignedAccessGrants', () => {
  it('issues a grant URL under the base URL and records the grant, not the URL', async () => {
    const { ledger, issuer } = setup('https://api.example.test/');
    const request = { scope, kind: 'manual_handoff' as const, subjectId: 'mh_1', expiresAt: at(300_000) };

    const issued = await issuer.issue(request);

    expect(issued.id).toMatch(/^grant_/);
    expect(issued.expiresAt).toEqual(request.expiresAt);
    const url = new URL(issued.url);
    expect(url.origin).toBe('https://api.example.test');
    expect(url.pathname).toMatch(/^\/grants\/[^/]+$/);
    expect([...ledger.grants.values()]).toEqual([
      { id: issued.id, ...request, revokedAt: null, createdAt: T0 },
    ]);
    const token = url.pathname.slice('/grants/'.length);
    expect(JSON.stringify([...ledger.grants.values()])).not.toContain(token);
  });

  it('gives every grant its own id and URL', async () => {
    const { issuer } = setup();
    const request = { scope, kind: 'live_session' as const, subjectId: 'auth_1', expiresAt: at(60_000) };

    const [first, second] = await Promise.all([issuer.issue(request), issuer.issue(request)]);

    expect(first?.id).not.toBe(second?.id);
    expect(first?.url).not.toBe(second?.url);
  });

  it.each([
    ['now', 0],
    ['in the past', -1],
  ])('refuses an expiry %s and records nothing', async (_label, offset) => {
    const { ledger, issuer } = setup();

    await expect(
      issuer.issue({ scope, kind: 'manual_handoff', subjectId: 'mh_1', expiresAt: at(offset) }),
    ).rejects.toThrow(RangeError);
    expect(ledger.grants.size).toBe(0);
  });

  it("revokes the subject's live grants as of now, and no one else's", async () => {
    const { ledger, clock, issuer } = setup();
    const mine = await issuer.issue({
      scope,
      kind: 'manual_handoff',
      subjectId: 'mh_1',
      expiresAt: at(60_000),
    });
    const theirs = await issuer.issue({
      scope,
      kind: 'manual_handoff',
      subjectId: 'mh_2',
      expiresAt: at(60_000),
    });
    clock.advance(10_000);

    await issuer.revokeForSubject('mh_1');

    expect(ledger.grants.get(mine.id)?.revokedAt).toEqual(at(10_000));
    expect(ledger.grants.get(theirs.id)?.revokedAt).toBeNull();
  });
});
