// Deliberate violation: the domain must not import an adapter package.
import { migrate } from '@prior-auth/persistence-postgres';
export const run = migrate;
