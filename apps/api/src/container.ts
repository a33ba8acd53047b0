import 'reflect-metadata';
import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import type { AppConfig, Logger } from '@prior-auth/platform';
import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { HealthController } from './health/health.controller';
import { TOKENS } from './tokens';

export interface ApiDependencies {
  config: AppConfig;
  logger: Logger;
  dataSource: DataSource;
  servedEnvironments?: readonly Environment[];
}

/** The API's composition root: adapters bound to ports, controllers bound as singletons. */
export function buildContainer(deps: ApiDependencies): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(deps.config);
  container.bind(TOKENS.Logger).toConstantValue(deps.logger);
  container.bind(TOKENS.DataSource).toConstantValue(deps.dataSource);
  container
    .bind(TOKENS.ServedEnvironments)
    .toConstantValue(deps.servedEnvironments ?? ['sandbox', 'production']);
  container
    .bind<OrganizationDirectory>(TOKENS.OrganizationDirectory)
    .toConstantValue(new TypeOrmOrganizationDirectory(deps.dataSource));
  container.bind(ApiKeyAuthenticator).toSelf();
  container.bind(HealthController).toSelf();
  return container;
}
