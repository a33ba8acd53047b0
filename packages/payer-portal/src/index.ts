export * from './sandbox-scenarios';
export * from './sandbox-payer-portal';
