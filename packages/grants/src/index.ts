export * from './signed-access-grants';
export * from './access-grant-gate';
