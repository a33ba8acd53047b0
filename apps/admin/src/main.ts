import {
  bootstrapDatabase,
  TypeOrmOrganizationDirectory,
  type BootstrappedDatabase,
} from '@prior-auth/persistence-postgres';
import { ConfigError, dataDir, isProvisioningError, loadConfig } from '@prior-auth/platform';
import { CommanderError } from 'commander';
import { buildCli } from './cli';

async function main(): Promise<number> {
  let database: BootstrappedDatabase | undefined;
  const io = {
    out: (s: string) => process.stdout.write(`${s}\n`),
    err: (s: string) => process.stderr.write(`${s}\n`),
  };
  try {
    const config = loadConfig();
    // Opened lazily so `--help` and argument errors need no database.
    const directory = async () => {
      database ??= await bootstrapDatabase({
        databaseUrl: config.DATABASE_URL,
        dataDir: dataDir(),
        embeddedPort: config.EMBEDDED_POSTGRES_PORT,
        poolSize: 2,
        applicationName: 'prior-auth-admin',
      });
      return new TypeOrmOrganizationDirectory(database.dataSource);
    };
    await buildCli(directory, io).parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError || isProvisioningError(error)) {
      io.err(`error: ${error.message}`);
      return 2;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await database?.close();
  }
}

main().then((code) => process.exit(code));
