export * from './network-address';
export * from './webhook-url.policy';
export * from './webhook-endpoint.aggregate';
export * from './webhook-secret-vault.port';
export * from './webhook-endpoint.use-cases';
export * from './webhook-deliveries.port';
