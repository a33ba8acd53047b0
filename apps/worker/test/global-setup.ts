import { setupTestDatabase } from '@prior-auth/persistence-postgres';

export default setupTestDatabase;
