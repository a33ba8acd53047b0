import 'reflect-metadata';
import type { BlobStorage } from '@prior-auth/blob-storage';
import { sharedAdaptersModule } from '@prior-auth/composition';
import type { Clock, Environment, HostResolver } from '@prior-auth/domain';
import { publicBaseUrl, type AppConfig, type Logger } from '@prior-auth/platform';
import type { JobBoss } from '@prior-auth/persistence-postgres';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { apiModule } from './api.module';
import { API_KEY_CACHE_TTL_MS } from './auth/api-key-authenticator';
import { openBlobStorage } from './files/blob-storage';

export interface ApiDependencies {
  config: AppConfig;
  logger: Logger;
  dataSource: DataSource;
  servedEnvironments?: readonly Environment[];
  /**
   * The file bytes' store; opened from BLOB_STORAGE_URL when not given. Whoever opens it closes it at shutdown
   * (`main` passes its own; otherwise close `container.get(TOKENS.BlobStorage)`).
   */
  blobStorage?: BlobStorage;
  /** The clock of use cases and grants; the system clock when absent (tests move it to see grants expire). */
  clock?: Clock;
  /**
   * How long a key found active is trusted without a lookup (API_KEY_CACHE_TTL_MS when absent): the bound on
   * how late a revocation takes effect. Tests shorten it.
   */
  apiKeyCacheTtlMs?: number;
  /** The job queue commands enqueue into, in their transaction (startJobBoss as a producer; decision 0016). */
  jobBoss: JobBoss;
  /** Resolves webhook hosts for the address rule (docs/decisions/0031-events-and-webhooks.md); DNS when absent. */
  hostResolver?: HostResolver;
}

/**
 * The API's composition root: the shared adapters module (the same one the worker loads) and the API's own
 * module, in one container (docs/decisions/0041-explicit-transactions-and-container-modules.md).
 */
export function buildContainer(deps: ApiDependencies): Container {
  if (!deps.config.SIGNING_SECRET) throw new Error('SIGNING_SECRET is required to run the API');
  const blobStorage = deps.blobStorage ?? openBlobStorage(deps.config);
  const container = new Container({ defaultScope: 'Singleton' });
  container.loadSync(
    sharedAdaptersModule({
      dataSource: deps.dataSource,
      jobBoss: deps.jobBoss,
      signingSecret: deps.config.SIGNING_SECRET,
      baseUrl: publicBaseUrl(deps.config),
      blobStore: blobStorage.store,
      ...(deps.clock === undefined ? {} : { clock: deps.clock }),
      ...(deps.hostResolver === undefined ? {} : { hostResolver: deps.hostResolver }),
    }),
    apiModule({
      config: deps.config,
      logger: deps.logger,
      blobStorage,
      servedEnvironments: deps.servedEnvironments ?? ['sandbox', 'production'],
      apiKeyCacheTtlMs: deps.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS,
    }),
  );
  return container;
}
