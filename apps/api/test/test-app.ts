import 'reflect-metadata';
import type { Environment } from '@prior-auth/domain';
import { createLogger, generateApiKey, loadConfig, RandomIdGenerator } from '@prior-auth/platform';
import { openTestDataSource, TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import type { Express } from 'express';
import type { DataSource } from 'typeorm';
import { createApp } from '../src/app';
import { buildContainer } from '../src/container';

export interface TestTenant {
  organizationId: string;
  npi: string;
  keys: Record<Environment, string>;
}

export interface TestApp {
  app: Express;
  dataSource: DataSource;
  /** A fresh organization with a registered NPI and one key per environment (unique ids: tests run in parallel). */
  createTenant(npi?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

const ids = new RandomIdGenerator();

export async function createTestApp(
  options: { servedEnvironments?: Environment[]; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const dataSource = await openTestDataSource();
  const config = loadConfig({ SIGNING_SECRET: 'test-signing-secret-test-signing-secret', ...options.env });
  const logger = createLogger({ name: 'api-test', level: 'silent' });
  const app = createApp(
    buildContainer({ config, logger, dataSource, servedEnvironments: options.servedEnvironments }),
  );
  const directory = new TypeOrmOrganizationDirectory(dataSource);
  return {
    app,
    dataSource,
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
    close: () => dataSource.destroy(),
  };
}
