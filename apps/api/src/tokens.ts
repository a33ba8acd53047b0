/** Inversify identifiers for everything the composition root binds. */
export const TOKENS = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  DataSource: Symbol.for('DataSource'),
  OrganizationDirectory: Symbol.for('OrganizationDirectory'),
  ServedEnvironments: Symbol.for('ServedEnvironments'),
  PayerCatalog: Symbol.for('PayerCatalog'),
  TokenSigner: Symbol.for('TokenSigner'),
  TransactionContext: Symbol.for('TransactionContext'),
  IdempotencyStore: Symbol.for('IdempotencyStore'),
  CommandSlots: Symbol.for('CommandSlots'),
  AuthorizationUseCases: Symbol.for('AuthorizationUseCases'),
  BlobStorage: Symbol.for('BlobStorage'),
  FileUseCases: Symbol.for('FileUseCases'),
  ManualHandoffUseCases: Symbol.for('ManualHandoffUseCases'),
  AccessGrantGate: Symbol.for('AccessGrantGate'),
  SandboxSessionPage: Symbol.for('SandboxSessionPage'),
} as const;
