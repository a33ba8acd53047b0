/**
 * Webhook signing secrets (docs/decisions/0031-events-and-webhooks.md): generated in the Standard Webhooks
 * format (`whsec_<base64>`), stored only sealed (encrypted), opened by the worker to sign.
 */
export interface WebhookSecretVault {
  generate(): string;
  seal(secret: string): string;
  open(sealed: string): string;
}
