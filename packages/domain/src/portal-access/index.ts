export * from './route-serviceability';
export * from './portal-sign-in';
