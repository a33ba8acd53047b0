import { DomainError } from '../shared/domain-error';
import { assertWebhookUrlAllowed, type HostResolver } from './webhook-url.policy';

const resolver: HostResolver = {
  resolve: async (host) =>
    ({ 'hooks.example.com': ['93.184.216.34'], 'sneaky.example.com': ['93.184.216.34', '10.0.0.1'] })[host] ??
    [],
};

const refusal = (url: string, env: 'sandbox' | 'production' = 'production') =>
  assertWebhookUrlAllowed(url, env, resolver).then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('assertWebhookUrlAllowed', () => {
  it('accepts public https production URLs and returns their addresses', async () => {
    await expect(
      assertWebhookUrlAllowed('https://hooks.example.com:8443/in?x=1', 'production', resolver),
    ).resolves.toEqual(['93.184.216.34']);
  });

  it.each([
    'http://hooks.example.com/in',
    'https://127.0.0.1/in',
    'https://10.0.0.1/in',
    'https://169.254.169.254/latest',
    'https://[::1]/in',
    'https://sneaky.example.com/in',
    'https://nowhere.example.com/in',
    'https://user@hooks.example.com/in',
    'https://hooks.example.com/in#x',
    'ftp://hooks.example.com/in',
    'hooks.example.com/in',
  ])('refuses %s in production', async (url) => {
    expect(await refusal(url)).toBe('webhook_url_not_allowed');
  });

  it('lets the sandbox use http and localhost', async () => {
    expect(await refusal('http://localhost:4000/in', 'sandbox')).toBeNull();
    expect(await refusal('http://127.0.0.1:4000/in', 'sandbox')).toBeNull();
    expect(await refusal('ftp://localhost/in', 'sandbox')).toBe('webhook_url_not_allowed');
  });
});
