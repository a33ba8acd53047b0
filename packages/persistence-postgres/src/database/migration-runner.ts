import type { DataSource } from 'typeorm';

export const MIGRATIONS_TABLE = 'schema_migrations';
// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_KEY = 7_310_442_901;

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

interface MigrationLike {
  name?: string;
}

const timestampOf = (name: string): number => {
  const match = /(\d{13})$/.exec(name);
  if (!match) throw new MigrationError(`migration ${name} has no 13-digit timestamp suffix`);
  return Number(match[1]);
};

/**
 * Applies the committed migrations. Several processes may start at once (API, worker, test runners), so a
 * session-level advisory lock lets exactly one migrate while the others wait and then find nothing to do.
 * Refuses clearly, before changing anything, when the database holds migrations this code does not know
 * (the code is older than the database) or when a pending migration is older than one already applied
 * (it would run out of order).
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const known = dataSource.migrations.map(
      (migration) => (migration as MigrationLike).name ?? migration.constructor.name,
    );
    const duplicates = known.filter((name, index) => known.indexOf(name) !== index);
    if (duplicates.length > 0)
      throw new MigrationError(`duplicate migration names: ${duplicates.join(', ')}`);

    const tableExists = await lock.hasTable(MIGRATIONS_TABLE);
    const applied: string[] = tableExists
      ? (await lock.query(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY timestamp`)).map(
          (row: { name: string }) => row.name,
        )
      : [];
    const unknown = applied.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      throw new MigrationError(
        `the database has migrations this code does not know (${unknown.join(', ')}); deploy the newer code instead`,
      );
    }
    const newestApplied = Math.max(0, ...applied.map(timestampOf));
    const outOfOrder = known.filter((name) => !applied.includes(name) && timestampOf(name) < newestApplied);
    if (outOfOrder.length > 0) {
      throw new MigrationError(
        `pending migrations are older than the newest applied one and would run out of order: ${outOfOrder.join(', ')}`,
      );
    }
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    return ran.map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}

/**
 * Whether the database's schema is the one this code expects (for readiness probes): `current` when every
 * committed migration is applied, `pending` when some are not yet, `ahead` when the database holds migrations
 * this code does not know (a newer release migrated it).
 */
export async function migrationState(dataSource: DataSource): Promise<'current' | 'pending' | 'ahead'> {
  const known = dataSource.migrations.map(
    (migration) => (migration as MigrationLike).name ?? migration.constructor.name,
  );
  const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM ${MIGRATIONS_TABLE}`);
  const applied = new Set(rows.map((row) => row.name));
  if ([...applied].some((name) => !known.includes(name))) return 'ahead';
  return known.every((name) => applied.has(name)) ? 'current' : 'pending';
}
