import {
  bootstrapDatabase,
  isDatabaseUnavailable,
  TypeOrmOrganizationDirectory,
  type BootstrappedDatabase,
} from '@prior-auth/persistence-postgres';
import { ConfigError, dataDir, isProvisioningError, loadConfig } from '@prior-auth/platform';
import { CommanderError } from 'commander';
import { buildCli, type CliIo } from './cli';

/** Exit status of a transient failure (the database is unavailable): worth running again later. */
export const EXIT_TEMPORARY_FAILURE = 75;

/**
 * One admin command, from arguments to exit status. Failures are one line on stderr, never a stack: a
 * database outage says so (and that the command may simply be run again), with its own exit status.
 */
export async function runAdmin(
  argv: readonly string[],
  io: CliIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  let database: BootstrappedDatabase | undefined;
  try {
    const config = loadConfig(env);
    // Opened lazily so `--help` and argument errors need no database.
    const open = async (): Promise<BootstrappedDatabase> =>
      (database ??= await bootstrapDatabase({
        databaseUrl: config.DATABASE_URL,
        dataDir: dataDir(env),
        embeddedPort: config.EMBEDDED_POSTGRES_PORT,
        poolSize: 2,
        applicationName: 'prior-auth-admin',
      }));
    const directory = async () => new TypeOrmOrganizationDirectory((await open()).dataSource);
    const catalog = async () => (await open()).dataSource;
    await buildCli(directory, io, catalog).parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError || isProvisioningError(error)) {
      io.err(`error: ${error.message}`);
      return 2;
    }
    if (isDatabaseUnavailable(error)) {
      io.err('error: the database is unavailable; run the command again once it is reachable.');
      return EXIT_TEMPORARY_FAILURE;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await database?.close().catch(() => undefined);
  }
}
