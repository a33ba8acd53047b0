import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBlobStore, type BlobStorage } from '@prior-auth/blob-storage';
import {
  bootstrapDatabase,
  PostgresReplaySegments,
  isDatabaseUnavailable,
  startJobBoss,
  TypeOrmOrganizationDirectory,
  type BootstrappedDatabase,
  type JobBoss,
} from '@prior-auth/persistence-postgres';
import {
  ConfigError,
  credentialsCipher,
  dataDir,
  isProvisioningError,
  loadConfig,
  publicBaseUrl,
} from '@prior-auth/platform';
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
  let jobBoss: JobBoss | undefined;
  let blobStorage: BlobStorage | undefined;
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
    // The key is asked for only by a command that seals a secret (a missing one is a ConfigError then).
    const portal = async () => ({
      dataSource: (await open()).dataSource,
      cipher: () => credentialsCipher(config),
    });
    const queue = async () => {
      const opened = await open();
      return {
        dataSource: opened.dataSource,
        jobBoss: async () =>
          (jobBoss ??= await startJobBoss({
            connectionString: opened.url,
            role: 'producer',
            poolSize: 1,
            applicationName: 'prior-auth-admin-jobs',
          })),
      };
    };
    // Replays' frames are in the blob store the workers write (decision 0045). The CLI hands out no URL, so
    // without a configured secret a random one is as good as any.
    const replay = async () => {
      blobStorage ??= createBlobStore(
        config.BLOB_STORAGE_URL ?? pathToFileURL(join(dataDir(env), 'blobs')).href,
        {
          publicBaseUrl: publicBaseUrl(config),
          signingSecret: config.SIGNING_SECRET ?? randomBytes(32).toString('hex'),
        },
      );
      const { dataSource } = await open();
      return { dataSource, segments: new PostgresReplaySegments(dataSource, blobStorage.store) };
    };
    await buildCli(directory, io, catalog, portal, queue, replay).parseAsync([...argv]);
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
    await jobBoss?.stop({ graceful: false }).catch(() => undefined);
    await blobStorage?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
  }
}
