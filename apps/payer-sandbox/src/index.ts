export * from './payer-sandbox.server';
export { DEMO_ACCOUNT, LOCKED_ACCOUNT, type SandboxAccount } from './sandbox-store';
export * from './website-scenarios';
