import { TokenSigner } from '@prior-auth/platform';
import { InvalidCursorError, KeysetCursors, type CursorBinding } from './keyset-cursor';

const cursors = new KeysetCursors(new TokenSigner('unit-test-secret-0123456789abcdefgh'));
const binding: CursorBinding = {
  resource: 'authorizations',
  scope: { organizationId: 'org_a', environment: 'sandbox' },
  filters: { status: 'canceled' },
};
const position = { createdAt: new Date('2026-03-02T09:00:00.123Z'), id: 'auth_1' };

const reasonOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof InvalidCursorError ? error.reason : `unexpected ${String(error)}`;
  }
  return undefined;
};

describe('KeysetCursors', () => {
  it('round-trips a position for the same binding', () => {
    expect(cursors.decode(binding, cursors.encode(binding, position))).toEqual(position);
  });

  it('keeps the tenant and filter values out of the readable payload', () => {
    const body = cursors.encode(binding, position).split('.')[0]!;
    const payload = Buffer.from(body, 'base64url').toString('utf8');
    expect(payload).not.toMatch(/org_a|sandbox|canceled/);
  });

  it.each<[string, Partial<CursorBinding>]>([
    ['another organization', { scope: { organizationId: 'org_b', environment: 'sandbox' } }],
    ['another environment', { scope: { organizationId: 'org_a', environment: 'production' } }],
    ['another filter value', { filters: { status: 'completed' } }],
    ['a dropped filter', { filters: { status: null } }],
    ['another list', { resource: 'files' }],
  ])('refuses a cursor used for %s', (_label, change) => {
    const cursor = cursors.encode(binding, position);
    expect(reasonOf(() => cursors.decode({ ...binding, ...change }, cursor))).toBe('other_query');
  });

  it('refuses cursors signed with another secret, altered, or not cursors at all', () => {
    const foreign = new KeysetCursors(new TokenSigner('another-secret-0123456789abcdefghij')).encode(
      binding,
      position,
    );
    const [body, mac] = cursors.encode(binding, position).split('.') as [string, string];
    const altered = `${body.slice(0, -2)}AA.${mac}`;
    const unsignedJunk = new TokenSigner('unit-test-secret-0123456789abcdefgh').sign('list-cursor:v1', {
      b: 1,
    });
    for (const bad of [foreign, altered, 'x', '', '.', `${body}.`, unsignedJunk]) {
      expect(reasonOf(() => cursors.decode(binding, bad))).toBe('malformed');
    }
  });

  it('round-trips id-only cursors and never confuses them with timed ones', () => {
    const catalog: CursorBinding = { ...binding, resource: 'payers', filters: { q: null } };
    const cursor = cursors.encodeAfterId(catalog, 'payer_uhc');
    expect(cursors.decodeAfterId(catalog, cursor)).toBe('payer_uhc');
    expect(reasonOf(() => cursors.decode(catalog, cursor))).toBe('malformed');
    expect(reasonOf(() => cursors.decodeAfterId({ ...catalog, filters: { q: 'uhc' } }, cursor))).toBe(
      'other_query',
    );
    expect(reasonOf(() => cursors.decodeAfterId(catalog, `x${cursor}`))).toBe('malformed');
  });
});
