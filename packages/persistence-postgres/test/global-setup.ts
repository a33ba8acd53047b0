import { setupTestDatabase } from '../src/database/test-database';

export default setupTestDatabase;
