export * from './portal-access.mapper';
export * from './typeorm-portal-access';
export * from './typeorm-portal-connections';
export * from './typeorm-portal-credentials';
export * from './postgres-customer-portal-sessions';
