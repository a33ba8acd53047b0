export * from './npi';
export * from './organization-directory.port';
