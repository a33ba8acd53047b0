export * from './sandbox-scenarios';
export * from './sandbox-payer-portal';
export * from './sandbox-runtime-sessions';
export * from './sandbox-session-page';
