export * from './database/data-source';
export * from './database/database-bootstrap';
export * from './database/embedded-postgres';
export * from './database/migration-runner';
export * from './entities';
export * from './tenancy/typeorm-organization-directory';
export * from './database/test-database';
export * from './catalog';
