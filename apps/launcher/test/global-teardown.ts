import { teardownTestDatabase } from '@prior-auth/persistence-postgres';

export default teardownTestDatabase;
