import { CUSTOMER_PORTAL_SESSION_TTL_MS, type Authorization } from '@prior-auth/domain';
import { AuthorizationRepresentations } from '../src/authorization/authorization-representations';

/** Just what the representations read of an authorization: its id, version and review snapshot. */
const loaded = (version: number, liveViewUrl: string | null = null, generatedAt = new Date(0)) =>
  ({
    id: 'auth_1',
    version,
    readState: () => ({
      status: 'requires_action',
      submission: { reviewSnapshot: liveViewUrl === null ? null : { liveViewUrl, generatedAt } },
    }),
  }) as unknown as Authorization;

describe('AuthorizationRepresentations', () => {
  const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
  const other = { organizationId: 'org_2', environment: 'sandbox' as const };
  const present = jest.fn((authorization: Authorization) => ({ version: authorization.version }));
  beforeEach(() => present.mockClear());

  it('presents a version once, and again only for another version', () => {
    const held = new AuthorizationRepresentations();
    expect(held.of(scope, loaded(1), '2025-01-01', 0, present)).toMatchObject({
      version: 1,
      json: '{"version":1}',
    });
    held.of(scope, loaded(1), '2025-01-01', 0, present);
    expect(present).toHaveBeenCalledTimes(1);
    expect(held.of(scope, loaded(2), '2025-01-01', 0, present).json).toBe('{"version":2}');
    expect(present).toHaveBeenCalledTimes(2);
    expect(held.find(scope, 'auth_1', '2025-01-01', 0)?.version).toBe(2);
  });

  it('finds a text only for the tenant, id and API version it was made for', () => {
    const held = new AuthorizationRepresentations();
    held.of(scope, loaded(3), '2025-01-01', 0, present);
    expect(held.find(scope, 'auth_1', '2025-01-01', 0)?.version).toBe(3);
    expect(held.find(scope, 'auth_1', '2024-01-01', 0)).toBeUndefined();
    expect(held.find(other, 'auth_1', '2025-01-01', 0)).toBeUndefined();
    expect(held.find({ ...scope, environment: 'production' }, 'auth_1', '2025-01-01', 0)).toBeUndefined();
    expect(held.find(scope, 'auth_2', '2025-01-01', 0)).toBeUndefined();
  });

  it('stops offering a text from the moment its live-view link lapses', () => {
    const held = new AuthorizationRepresentations();
    held.of(scope, loaded(4, 'https://example.test/live'), '2025-01-01', 0, present);
    expect(held.find(scope, 'auth_1', '2025-01-01', CUSTOMER_PORTAL_SESSION_TTL_MS - 1)).toBeDefined();
    expect(held.find(scope, 'auth_1', '2025-01-01', CUSTOMER_PORTAL_SESSION_TTL_MS)).toBeUndefined();
    held.of(
      scope,
      loaded(4, 'https://example.test/live'),
      '2025-01-01',
      CUSTOMER_PORTAL_SESSION_TTL_MS,
      present,
    );
    expect(present).toHaveBeenCalledTimes(2);
  });
});
