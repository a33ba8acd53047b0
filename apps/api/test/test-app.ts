import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BlobStorage } from '@prior-auth/blob-storage';
import type { Clock, Environment, HostResolver } from '@prior-auth/domain';
import {
  createLogger,
  generateApiKey,
  loadConfig,
  RandomIdGenerator,
  type AppConfig,
} from '@prior-auth/platform';
import {
  openTestDataSource,
  startJobBoss,
  TypeOrmOrganizationDirectory,
  type JobBoss,
} from '@prior-auth/persistence-postgres';
import type { Express } from 'express';
import type { DataSource } from 'typeorm';
import { createApp } from '../src/app';
import type { ReadAuditRecorder } from '../src/audit/read-audit.recorder';
import { buildContainer } from '../src/container';
import { TOKENS } from '../src/tokens';
import { openBlobStorage } from '../src/files/blob-storage';
import { openApiDocument } from '../src/openapi/openapi.document';
import { OpenApiContract, withContractCheck } from './contract/openapi-contract';
import { connectPayerPortal } from './portal-access-helpers';

export interface TestTenant {
  organizationId: string;
  npi: string;
  keys: Record<Environment, string>;
}

export interface TestApp {
  /** The API behind the OpenAPI contract check: every response a test receives is validated (test/contract). */
  app: Express;
  /** The API itself, unwrapped (to inspect its routes). */
  api: Express;
  dataSource: DataSource;
  /** Where the API's commands enqueue jobs. */
  jobBoss: JobBoss;
  config: AppConfig;
  blobStorage: BlobStorage;
  /** A fresh organization with a registered NPI and one key per environment (unique ids: tests run in parallel). */
  createTenant(npi?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

const ids = new RandomIdGenerator();
const contract = new OpenApiContract(openApiDocument);

/**
 * The app on a fresh connection pool. File bytes go to a temporary folder of its own (removed by `close`)
 * unless `env.BLOB_STORAGE_URL` names another store; `blobNow` is the clock signed blob URLs are checked
 * against (to see them expire).
 */
export async function createTestApp(
  options: {
    servedEnvironments?: Environment[];
    env?: Record<string, string>;
    blobNow?: () => Date;
    logLines?: string[];
    /** The use cases' and grants' clock (to see grants expire); the system clock when absent. */
    clock?: Clock;
    /** Another database than the run's test database (closed by `close` like the default one). */
    dataSource?: DataSource;
    /** How long a key found active is trusted without a lookup (the API's default when absent). */
    apiKeyCacheTtlMs?: number;
    /** Resolves webhook hosts (DNS when absent). */
    hostResolver?: HostResolver;
  } = {},
): Promise<TestApp> {
  const dataSource = options.dataSource ?? (await openTestDataSource());
  const blobDirectory = await mkdtemp(join(tmpdir(), 'api-blobs-'));
  const config = loadConfig({
    SIGNING_SECRET: 'test-signing-secret-test-signing-secret',
    BLOB_STORAGE_URL: pathToFileURL(blobDirectory).href,
    // Files run in parallel against one database from one address and some fire requests as fast as they can:
    // the limits are exercised with their own budgets by test/rate-limits.api.spec.ts (decision 0035).
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    ...options.env,
  });
  const logLines = options.logLines;
  const logger = logLines
    ? createLogger({
        name: 'api-test',
        level: 'info',
        destination: { write: (line: string) => void logLines.push(line) },
      })
    : createLogger({ name: 'api-test', level: 'silent' });
  const blobStorage = openBlobStorage(config, options.blobNow ? { now: options.blobNow } : {});
  const jobBoss = await startJobBoss({
    connectionString: dataSource.options.type === 'postgres' ? String(dataSource.options.url) : '',
    role: 'producer',
    poolSize: 1,
  });
  const container = buildContainer({
    config,
    logger,
    dataSource,
    servedEnvironments: options.servedEnvironments,
    blobStorage,
    jobBoss,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.apiKeyCacheTtlMs === undefined ? {} : { apiKeyCacheTtlMs: options.apiKeyCacheTtlMs }),
    ...(options.hostResolver ? { hostResolver: options.hostResolver } : {}),
  });
  const api = createApp(container);
  const directory = new TypeOrmOrganizationDirectory(dataSource);
  // The payer of the test route has a portal connection (decision 0021), as every file's production cases
  // need: connections are per payer and shared by the run, so no file may depend on another connecting it.
  await connectPayerPortal(dataSource, 'payer_uhc');
  return {
    app: withContractCheck(api, contract),
    api,
    dataSource,
    jobBoss,
    config,
    blobStorage,
    async createTenant(npi = '1234567893') {
      const organization = await directory.createOrganization({ id: ids.newId('org'), name: 'Test clinic' });
      await directory.registerProviderNpi(organization.id, npi);
      const keys = {} as Record<Environment, string>;
      for (const environment of ['sandbox', 'production'] as const) {
        const key = generateApiKey(environment);
        await directory.createApiKey({
          id: ids.newId('key'),
          organizationId: organization.id,
          environment,
          keyHash: key.hash,
          displayPrefix: key.displayPrefix,
        });
        keys[environment] = key.secret;
      }
      return { organizationId: organization.id, npi, keys };
    },
    async close() {
      await container.get<ReadAuditRecorder>(TOKENS.ReadAudit).close();
      await blobStorage.close();
      await jobBoss.stop({ graceful: false });
      await dataSource.destroy();
      await rm(blobDirectory, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
