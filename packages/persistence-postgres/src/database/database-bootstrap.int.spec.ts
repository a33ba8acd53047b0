import { bootstrapDatabase } from './database-bootstrap';

describe('bootstrapDatabase', () => {
  it("warns exactly when the server's autovacuum is off", async () => {
    const database = await bootstrapDatabase({
      databaseUrl: process.env.DATABASE_URL!,
      poolSize: 1,
      runMigrations: false,
    });
    try {
      const [{ autovacuum }] = await database.dataSource.query(
        `SELECT current_setting('autovacuum') AS autovacuum`,
      );
      const mentions = database.warnings.filter((warning) => warning.includes('autovacuum is off'));
      expect(mentions).toHaveLength(autovacuum === 'off' ? 1 : 0);
    } finally {
      await database.close();
    }
  });
});
