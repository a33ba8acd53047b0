import { ADAPTER_TOKENS } from '@prior-auth/composition';

/**
 * Inversify identifiers for everything the API's container binds: the shared adapters module's (DataSource,
 * TokenSigner, PayerCatalog, IdempotencyStore, UnitOfWork, …) and the API module's own.
 */
export const TOKENS = {
  ...ADAPTER_TOKENS,
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  OrganizationDirectory: Symbol.for('OrganizationDirectory'),
  ServedEnvironments: Symbol.for('ServedEnvironments'),
  ApiKeyCache: Symbol.for('ApiKeyCache'),
  RateLimits: Symbol.for('RateLimits'),
  ReadAudit: Symbol.for('ReadAudit'),
  PortalAccess: Symbol.for('PortalAccess'),
  ProviderRegistry: Symbol.for('ProviderRegistry'),
  Transactions: Symbol.for('Transactions'),
  /** The use cases' ports: `(tx?) => ports`, on the pool or all bound to a command's transaction. */
  PortsOn: Symbol.for('PortsOn'),
  /** The pool's ports for retrieve and list outside a command: one statement each, no transaction. */
  PoolReads: Symbol.for('PoolReads'),
  AuthorizationUseCases: Symbol.for('AuthorizationUseCases'),
  LegacyWorkflowUseCases: Symbol.for('LegacyWorkflowUseCases'),
  /** The file bytes' store with its close (the shared module's BlobStore is its `store`). */
  BlobStorage: Symbol.for('BlobStorage'),
  FileUseCases: Symbol.for('FileUseCases'),
  ManualHandoffUseCases: Symbol.for('ManualHandoffUseCases'),
  AccessGrantGate: Symbol.for('AccessGrantGate'),
  SandboxSessionPage: Symbol.for('SandboxSessionPage'),
  /** The live view's dependencies (LiveViewRouterDeps); its hub is closed at shutdown. */
  LiveView: Symbol.for('LiveView'),
} as const;
