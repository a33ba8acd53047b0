export * from './config';
export * from './logger';
export * from './ids';
export * from './api-keys';
export * from './signing';
export * from './shutdown';
export * from './provisioning';
export * from './data-dir';
