import { AesGcmWebhookSecretVault } from '../src/webhook-secret-vault';

describe('AesGcmWebhookSecretVault', () => {
  const vault = new AesGcmWebhookSecretVault('a-signing-secret-of-at-least-32-characters');

  it('generates Standard Webhooks secrets and seals them so only the same key opens them', () => {
    const secret = vault.generate();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sealed = vault.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(vault.open(sealed)).toBe(secret);
    expect(vault.seal(secret)).not.toBe(sealed);
    const other = new AesGcmWebhookSecretVault('another-signing-secret-of-32-characters!');
    expect(() => other.open(sealed)).toThrow();
  });
});
