import 'reflect-metadata';
import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import { TokenSigner, type AppConfig, type Logger } from '@prior-auth/platform';
import { TypeOrmOrganizationDirectory, TypeOrmPayerCatalog } from '@prior-auth/persistence-postgres';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { CatalogController } from './catalog/catalog.controller';
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
  if (!deps.config.SIGNING_SECRET) throw new Error('SIGNING_SECRET is required to run the API');
  container.bind(TOKENS.TokenSigner).toConstantValue(new TokenSigner(deps.config.SIGNING_SECRET));
  container.bind(TOKENS.PayerCatalog).toConstantValue(new TypeOrmPayerCatalog(deps.dataSource));
  container.bind(ApiKeyAuthenticator).toSelf();
  container.bind(CatalogController).toSelf();
  container.bind(HealthController).toSelf();
  return container;
}
