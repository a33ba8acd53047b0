import { liveSessionReadUrl } from './authorization.paths';

describe('liveSessionReadUrl', () => {
  it('is the live-session read of the case under the public base URL', () => {
    expect(liveSessionReadUrl('https://api.example.test/', 'auth_1')).toBe(
      'https://api.example.test/v1/prior-auth/authorizations/auth_1/live-session',
    );
    expect(liveSessionReadUrl('http://127.0.0.1:3000', 'auth_2')).toBe(
      'http://127.0.0.1:3000/v1/prior-auth/authorizations/auth_2/live-session',
    );
  });
});
