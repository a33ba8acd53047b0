/** Inversify identifiers of the adapters both apps bind through the shared adapters module. */
export const ADAPTER_TOKENS = {
  DataSource: Symbol.for('DataSource'),
  JobBoss: Symbol.for('JobBoss'),
  Clock: Symbol.for('Clock'),
  Ids: Symbol.for('Ids'),
  TokenSigner: Symbol.for('TokenSigner'),
  BaseUrl: Symbol.for('BaseUrl'),
  Cursors: Symbol.for('Cursors'),
  AccessGrantLedger: Symbol.for('AccessGrantLedger'),
  /** The grant service on a ledger: `(ledger) => GrantIssuer`. */
  Grants: Symbol.for('Grants'),
  UnitOfWork: Symbol.for('UnitOfWork'),
  RuntimeSessionLedger: Symbol.for('RuntimeSessionLedger'),
  /** The sandbox's handoff sessions on a ledger: `(ledger) => SandboxRuntimeSessions`. */
  HandoffSessions: Symbol.for('HandoffSessions'),
  LiveFrames: Symbol.for('LiveFrames'),
  LiveInputs: Symbol.for('LiveInputs'),
  IdempotencyStore: Symbol.for('IdempotencyStore'),
  PayerCatalog: Symbol.for('PayerCatalog'),
  BlobStore: Symbol.for('BlobStore'),
  WebhookSecretVault: Symbol.for('WebhookSecretVault'),
  HostResolver: Symbol.for('HostResolver'),
} as const;
