import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  bootstrapDatabase,
  TypeOrmOrganizationDirectory,
  type BootstrappedDatabase,
} from '@prior-auth/persistence-postgres';
import {
  BrowserUnavailableError,
  ChromiumBrowser,
  SANDBOX_PAYER_DEMO_ACCOUNT,
} from '@prior-auth/payer-portal';
import {
  API_NODE_FLAGS,
  bootstrapOrganization,
  ConfigError,
  dataDir,
  loadConfig,
} from '@prior-auth/platform';
import { prettyFactory } from 'pino-pretty';

const DEMO_ORGANIZATION = { name: 'Demo Clinic', npi: '1234567893' };
const APPS_DIR = resolve(__dirname, '../..');

const say = (text: string) => process.stdout.write(`[start] ${text}\n`);

/** One secret shared by every process of this local stack, kept with the rest of the local data. */
function localSigningSecret(folder: string): string {
  const file = join(folder, 'signing-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function seedDemoOrganization(database: BootstrappedDatabase, baseUrl: string): Promise<void> {
  const directory = new TypeOrmOrganizationDirectory(database.dataSource);
  const existing = (await directory.listOrganizations()).find((o) => o.name === DEMO_ORGANIZATION.name);
  if (existing) {
    say(
      `demo organization ${existing.id} (provider NPI ${DEMO_ORGANIZATION.npi}) already exists; its key was shown on the first start.`,
    );
    say(`need a new sandbox key? pnpm admin key create --org ${existing.id} --env sandbox`);
    return;
  }
  const demo = await bootstrapOrganization(directory, DEMO_ORGANIZATION);
  say(`created demo organization ${demo.organizationId} with provider NPI ${demo.providerNpi}`);
  say(`sandbox API key (shown once, store it now): ${demo.apiKeys.sandbox}`);
  say(`try: curl -H "Authorization: Bearer ${demo.apiKeys.sandbox}" ${baseUrl}/v1/payers`);
}

/** Runs one app as a child process, its JSON log lines pretty-printed behind a name tag. */
function runApp(name: string, env: NodeJS.ProcessEnv, onExit: (code: number | null) => void): ChildProcess {
  const flags = name === 'api' ? API_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, join(APPS_DIR, name, 'dist', 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pretty = prettyFactory({
    colorize: Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,name',
  });
  const tag = `[${name}]`.padEnd(16);
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      let text = line;
      if (line.startsWith('{')) {
        try {
          text = pretty(line).trimEnd();
        } catch {
          text = line;
        }
      }
      process.stdout.write(`${tag}${text}\n`);
    });
  }
  child.on('exit', (code) => onExit(code));
  return child;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const folder = dataDir();
  mkdirSync(folder, { recursive: true });
  // Lets scripts stop this stack (as Ctrl-C would) without matching process names.
  writeFileSync(join(folder, 'launcher.pid'), String(process.pid));
  say(
    config.DATABASE_URL ? 'using DATABASE_URL' : `starting embedded PostgreSQL (data in ${folder}/postgres)`,
  );
  // The browser the payer portals are driven with: a missing or broken one stops the start here, clearly,
  // rather than failing every portal run later (decision 0017).
  const browser = new ChromiumBrowser({ executablePath: config.BROWSER_EXECUTABLE_PATH });
  try {
    say(`browser ready: Chromium ${await browser.ensureStarted()}`);
  } finally {
    await browser.close();
  }
  const database = await bootstrapDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: folder,
    embeddedPort: config.EMBEDDED_POSTGRES_PORT,
    poolSize: 2,
    applicationName: 'prior-auth-launcher',
  });
  say('database migrated');
  await seedDemoOrganization(database, `http://localhost:${config.PORT}`);

  const siteHost =
    config.HOST === '0.0.0.0' || config.HOST === '::'
      ? '127.0.0.1'
      : config.HOST.includes(':')
        ? `[${config.HOST}]`
        : config.HOST;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PRIOR_AUTH_DATA_DIR: folder,
    SIGNING_SECRET: config.SIGNING_SECRET ?? localSigningSecret(folder),
    // The worker submits sandbox cases through its browser to the website started here (decision 0022).
    PAYER_SANDBOX_URL: config.PAYER_SANDBOX_URL ?? `http://${siteHost}:${config.PAYER_SANDBOX_PORT}`,
  };
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping');
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    await database.close();
    say('stopped');
    process.exit(exitCode);
  };
  for (const name of ['payer-sandbox', 'api', 'worker']) {
    children.set(
      name,
      runApp(name, env, (code) => {
        if (!stopping) {
          say(`${name} exited unexpectedly (code ${code}); stopping everything`);
          void stop(1);
        }
      }),
    );
  }
  say(
    `API on http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT} (health: /health); Ctrl-C stops everything`,
  );
  say(
    `simulated payer website on http://localhost:${config.PAYER_SANDBOX_PORT} (user ${SANDBOX_PAYER_DEMO_ACCOUNT.username}, password and authenticator secret in the README)`,
  );
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError || error instanceof BrowserUnavailableError
      ? error.message
      : `start failed: ${error instanceof Error ? error.stack : String(error)}`,
  );
  process.exit(1);
});
