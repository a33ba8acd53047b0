import { teardownTestDatabase } from '../src/database/test-database';

export default teardownTestDatabase;
