export * from './adapter.tokens';
export * from './shared-adapters.module';
