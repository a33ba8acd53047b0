import { AuthorizationRepresentations } from '../src/authorization/authorization-representations';

describe('AuthorizationRepresentations', () => {
  const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
  const other = { organizationId: 'org_2', environment: 'sandbox' as const };
  const representation = { version: 3, json: '{"id":"auth_1"}', lapsesAt: null };

  it('finds a text only for the tenant, id and API version it was made for', () => {
    const held = new AuthorizationRepresentations();
    held.remember(scope, 'auth_1', '2025-01-01', representation);
    expect(held.find(scope, 'auth_1', '2025-01-01', 0)).toBe(representation);
    expect(held.find(scope, 'auth_1', '2024-01-01', 0)).toBeUndefined();
    expect(held.find(other, 'auth_1', '2025-01-01', 0)).toBeUndefined();
    expect(held.find({ ...scope, environment: 'production' }, 'auth_1', '2025-01-01', 0)).toBeUndefined();
    expect(held.find(scope, 'auth_2', '2025-01-01', 0)).toBeUndefined();
  });

  it('stops offering a text from the moment it no longer shows its version', () => {
    const held = new AuthorizationRepresentations();
    held.remember(scope, 'auth_1', '2025-01-01', { ...representation, lapsesAt: 1_000 });
    expect(held.find(scope, 'auth_1', '2025-01-01', 999)).toBeDefined();
    expect(held.find(scope, 'auth_1', '2025-01-01', 1_000)).toBeUndefined();
  });
});
