// Deliberate violation: production code loading what only the apps' tests share.
export { freePort } from '@prior-auth/test-support';
