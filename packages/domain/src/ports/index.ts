import { type BlobStore } from './blob-store.port';
import { type Clock } from './clock.port';
import { type GrantIssuer } from './grant-issuer.port';
import { type IdGenerator } from './id-generator.port';
import { type PayerCatalog } from './payer-catalog.port';
import { type PayerPortal } from './payer-portal.port';
import { type PortalAccess } from './portal-access.port';
import { type ProviderRegistry } from './provider-registry.port';
import { type RuntimeSessions } from './runtime-sessions.port';
import { type UnitOfWork } from './unit-of-work.port';

export * from './access-grant-ledger.port';
export * from './authorization.repository.port';
export * from './blob-store.port';
export * from './clock.port';
export * from './customer-portal-sessions.port';
export * from './domain-event-log.port';
export * from './file.repository.port';
export * from './grant-issuer.port';
export * from './id-generator.port';
export * from './job-queue.port';
export * from './live-session-frames.port';
export * from './live-session-inputs.port';
export * from './manual-handoff.repository.port';
export * from './payer-catalog.port';
export * from './payer-evidence.repository.port';
export * from './payer-portal.port';
export * from './replay-segments.port';
export * from './portal-access.port';
export * from './provider-registry.port';
export * from './resource-event-log.port';
export * from './webhook-endpoint.repository.port';
export * from './runtime-session-ledger.port';
export * from './runtime-sessions.port';
export * from './unit-of-work.port';

/**
 * Every port the use cases use. Each use case takes the `Pick` it needs, so the composition root can build
 * one object and hand it to all of them.
 */
export interface DomainPorts {
  unitOfWork: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  providerRegistry: ProviderRegistry;
  payerCatalog: PayerCatalog;
  payerPortal: PayerPortal;
  portalAccess: PortalAccess;
  blobStore: BlobStore;
  grantIssuer: GrantIssuer;
  runtimeSessions: RuntimeSessions;
}
export * from './submission-preview-renderer.port';
