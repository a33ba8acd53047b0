import { MemoryCustomerPortalSessions } from './memory-customer-portal-sessions';

const key = (authorizationId: string) => ({
  organizationId: 'org_memory_sessions',
  environment: 'sandbox' as const,
  authorizationId,
});

describe('MemoryCustomerPortalSessions', () => {
  it("keeps a case's session until it expires, per case, and forgets it", async () => {
    const sessions = new MemoryCustomerPortalSessions();
    const now = new Date('2026-01-01T00:00:00Z');
    const later = new Date(now.getTime() + 60_000);
    await sessions.keep(key('auth_a'), 'state-a', later);
    await sessions.keep(key('auth_b'), 'state-b', later);
    expect(await sessions.find(key('auth_a'), now)).toBe('state-a');
    expect(await sessions.find({ ...key('auth_a'), environment: 'production' }, now)).toBeNull();
    expect(await sessions.find(key('auth_a'), later)).toBeNull();
    await sessions.forget(key('auth_b'));
    expect(await sessions.find(key('auth_b'), now)).toBeNull();
  });

  it('purges expired sessions only, and stays bounded', async () => {
    const sessions = new MemoryCustomerPortalSessions();
    const now = new Date('2026-01-01T00:00:00Z');
    await sessions.keep(key('expired'), 'old', new Date(now.getTime() - 1));
    await sessions.keep(key('live'), 'new', new Date(now.getTime() + 60_000));
    expect(await sessions.purgeExpired(now)).toBe(1);
    expect(await sessions.find(key('live'), now)).toBe('new');

    const ahead = new Date(now.getTime() + 60_000);
    for (let i = 0; i < 300; i += 1) await sessions.keep(key(`many_${i}`), `s${i}`, ahead);
    // The sessions kept longest went first.
    expect(await sessions.find(key('live'), now)).toBeNull();
    expect(await sessions.find(key('many_299'), now)).toBe('s299');
  });
});
