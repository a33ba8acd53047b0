/*
 * API throughput next to the performance floor (issue 17): the built API (`dist/main.js`, its own process,
 * logging at `info` to a file like a deployed process) and the floor service of the shared performance folder
 * (`../shared/perf/floor.mjs` beside the repository; skipped with a message when absent), both on one fresh
 * database (a throwaway embedded server, or a new database on DATABASE_URL's server). autocannon drives each
 * with 20 connections, in alternating rounds (decision 0063), and the table gives requests/s, p50, p99 and the
 * ratio to the floor measured in the same run. Then latency at half the measured maximum rate, with requests
 * sent at an even pace on the same 20 connections from a worker thread of their own (`paced-load.ts`;
 * autocannon's own rate limit sends them in bursts, decision 0058; the thread, decision 0064). Every pass
 * starts with the page cache written out (`settleStorage`).
 *
 * Run with `pnpm --filter @prior-auth/api bench` (dependencies built) or `pnpm bench` at the root.
 * BENCH_DURATION_S (default 10) sets each pass's length; BENCH_SCALE=1 also compares retrieve with 1,000 and
 * with 1,000,000 authorizations in the table (slow: the rows are seeded with one INSERT … SELECT).
 * BENCH_ONLY=create or BENCH_ONLY=retrieve runs that operation's passes alone (with BENCH_CPU_PROFILE_DIR, a
 * profile of that operation alone). BENCH_API_MAIN=<main.js> measures another build of the API (before/after
 * comparisons in one sitting). The API runs with the Node options it is deployed with (`API_NODE_FLAGS`), or
 * with BENCH_API_NODE_FLAGS (space-separated; empty for none) to measure others. The CPU columns give the
 * serving process's and PostgreSQL's time per request; under the table, the API's own collector pauses and
 * event-loop delay per pass (`runtime-metrics.ts`). BENCH_LATENCY_LOG=<file> keeps each paced request's latency,
 * and BENCH_API_LOG=<file> the API's output.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { API_NODE_FLAGS, generateApiKey, RandomIdGenerator } from '@prior-auth/platform';
import {
  openTestDataSource,
  setupTestDatabase,
  teardownTestDatabase,
  TypeOrmOrganizationDirectory,
} from '@prior-auth/persistence-postgres';
import autocannon, { type Request as CannonRequest } from 'autocannon';
import { pacedLoadApart, type PacedRequestPlan } from './paced-load';
import { describeRuntime, readRuntime, runtimeBetween, type RuntimePass } from './runtime-metrics';
import { cannonRound, joinRounds, roundOrder, SIDE_BY_SIDE_ROUNDS, type Round } from './side-by-side';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 20;
const SCALE = process.env.BENCH_SCALE === '1';
const ONLY = process.env.BENCH_ONLY;
const runs = (operation: 'create' | 'retrieve' | 'list' | 'patch'): boolean =>
  ONLY === undefined || ONLY === operation;
const REPOSITORY = resolve(__dirname, '../../..');
/** The API process to measure: the built one, or BENCH_API_MAIN (another build, to compare two versions). */
const API_MAIN = resolve(process.env.BENCH_API_MAIN ?? join(__dirname, '../dist/main.js'));
/** The API's Node options: as deployed, or BENCH_API_NODE_FLAGS to compare others. */
const API_FLAGS =
  process.env.BENCH_API_NODE_FLAGS === undefined
    ? API_NODE_FLAGS
    : process.env.BENCH_API_NODE_FLAGS.split(' ').filter(Boolean);
const FLOOR = resolve(REPOSITORY, '../shared/perf/floor.mjs');
const NPI = '1234567893';
const SELECTION = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'E0601',
  serviceCodeSystem: 'hcpcs',
};
const CREATE_BODY = JSON.stringify({
  providerNpi: NPI,
  policy: { finalSubmission: 'automatic' },
  templateSelection: SELECTION,
});

interface Pass {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Status codes other than 2xx, with their counts (`409×3`). */
  refused: string;
  /** CPU time the serving process spent per request (user + system), NaN where it cannot be read. */
  cpuMsPerRequest: number;
  /** CPU time PostgreSQL's backends on the bench database spent per request (local servers only), else NaN. */
  dbCpuMsPerRequest: number;
  /** Paced passes: how late the bench sent requests (ms, 99th percentile), a part of their latencies. */
  lateP99?: number;
  /** Paced passes: the latest the bench sent a request (ms), its worst stall while sending. */
  lateMax?: number;
  /** Write-ahead log the server wrote per request (bytes): what each commit makes the disk flush. */
  walBytesPerRequest: number;
  /** The service's collector pauses and event-loop delay during the pass, from its /metrics (the API only). */
  runtime?: RuntimePass;
}

/** The serving process of each target's origin, whose CPU time a pass reads. */
const servers = new Map<string, number>();

/**
 * A process's CPU time so far (user + system, ms) from Linux's `/proc/<pid>/stat` (in clock ticks, 100 a
 * second); NaN elsewhere. On a shared machine requests per second follow the load, CPU per request much less.
 */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** A process's peak resident memory (MB) from Linux's `/proc/<pid>/status`; NaN elsewhere. */
function peakMemoryMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const peak = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return peak ? Number(peak[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The bench database's backends (every connection but the watcher's own) and their CPU time so far: read
 * before and after a pass, it shows how much of a request's cost is PostgreSQL's. Readable only when the
 * server runs on this machine (embedded, or local); NaN otherwise.
 */
let databaseWatcher: Awaited<ReturnType<typeof openTestDataSource>> | undefined;

async function databaseCpu(): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!databaseWatcher) return cpu;
  const rows = (await databaseWatcher.query(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  )) as Array<{ pid: number }>;
  for (const { pid } of rows) cpu.set(pid, cpuMs(pid));
  return cpu;
}

/**
 * The server's write-ahead log position (bytes), NaN without a watcher. Server-wide: read around a pass when
 * nothing else writes to the server, it is what the pass's commits wrote.
 */
async function walPosition(): Promise<number> {
  if (!databaseWatcher) return NaN;
  const [row] = (await databaseWatcher.query(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS position`,
  )) as Array<{ position: string }>;
  return Number(row?.position);
}

function databaseCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  if (after.size === 0) return NaN;
  let spent = 0;
  for (const [pid, now] of after) {
    if (Number.isNaN(now)) return NaN;
    spent += now - (before.get(pid) ?? 0);
  }
  return spent;
}

interface Target {
  name: string;
  baseUrl: string;
  headers: Record<string, string>;
  createPath: string;
  retrievePath: (id: string) => string;
}

const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

let keyCounter = 0;
const idempotencyKey = (): string => `bench-${process.pid}-${(keyCounter += 1)}`;

/**
 * Writes out what earlier passes left in the kernel's page cache, so that no pass pays for another's writes.
 * Linux writes a file's dirty pages back about 30 s after they were first dirtied, all at once: the 100 MB or
 * more the earlier passes left made PostgreSQL's next WAL flush wait 200–350 ms, in whichever pass was running
 * then (decision 0058). Local servers only; a remote server's page cache is its own.
 */
function settleStorage(): void {
  if (process.platform === 'linux') spawnSync('sync', { stdio: 'ignore' });
}

/** What a stretch of load cost: the serving process's and PostgreSQL's CPU (ms), and the WAL written (bytes). */
interface Spent {
  cpuMs: number;
  dbCpuMs: number;
  walBytes: number;
}

/** `load`'s value, and what the service at `url` and PostgreSQL spent while it ran. */
async function spentDuring<T>(url: string, load: () => Promise<T>): Promise<{ value: T; spent: Spent }> {
  settleStorage();
  const pid = servers.get(new URL(url).origin);
  const cpuBefore = cpuMs(pid);
  const dbBefore = await databaseCpu();
  const walBefore = await walPosition();
  const value = await load();
  const walAfter = await walPosition();
  const spent = {
    cpuMs: cpuMs(pid) - cpuBefore,
    dbCpuMs: databaseCpuSpent(dbBefore, await databaseCpu()),
    walBytes: walAfter - walBefore,
  };
  return { value, spent };
}

const perRequest = (spent: Spent, total: number) => ({
  walBytesPerRequest: spent.walBytes / Math.max(1, total),
  cpuMsPerRequest: spent.cpuMs / Math.max(1, total),
  dbCpuMsPerRequest: spent.dbCpuMs / Math.max(1, total),
});

type Measured = Omit<Pass, 'cpuMsPerRequest' | 'dbCpuMsPerRequest' | 'walBytesPerRequest' | 'runtime'> & {
  total: number;
};

/** A pass's requests/s, latency and errors, with the CPU the serving process and PostgreSQL spent meanwhile. */
async function measured(url: string, load: () => Promise<Measured>): Promise<Pass> {
  const origin = new URL(url).origin;
  const runtimeBefore = await readRuntime(origin);
  const {
    value: { total, ...pass },
    spent,
  } = await spentDuring(url, load);
  const runtimeAfter = runtimeBefore && (await readRuntime(origin));
  return {
    ...pass,
    ...(runtimeBefore && runtimeAfter ? { runtime: runtimeBetween(runtimeBefore, runtimeAfter) } : {}),
    ...perRequest(spent, total),
  };
}

/** What autocannon made of one run, or of several added up (`aggregateResult`), lasting `seconds` in all. */
const cannonPass = (result: autocannon.Result, seconds: number): Measured => ({
  total: result.requests.total,
  requestsPerSecond: result.requests.total / seconds,
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.errors + result.timeouts + result.non2xx,
  refused: Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${status}×${stats.count ?? 0}`)
    .join(' '),
});

/** As many requests as `CONNECTIONS` connections get answered: the maximum rate. */
const cannon = (url: string, requests: CannonRequest[], options: { duration?: number } = {}): Promise<Pass> =>
  measured(url, async () => {
    const result = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: options.duration ?? DURATION_S,
      requests,
    });
    return cannonPass(result, result.duration);
  });

interface Load {
  url: string;
  requests: CannonRequest[];
}

/**
 * The maximum rates of the API and of the floor (when there is one), each over `DURATION_S` seconds in
 * `SIDE_BY_SIDE_ROUNDS` rounds taken in turn, the order swapped every round (floor, API, API, floor, …) so
 * neither always follows the other. Each target's rounds add up: requests over their seconds, latencies from
 * autocannon's joined histograms, and what each round cost.
 */
async function sideBySide(api: Load, floor: Load | null): Promise<{ api: Pass; floor?: Pass }> {
  const seconds = DURATION_S / SIDE_BY_SIDE_ROUNDS;
  const targets = floor ? [api, floor] : [api];
  const rounds = new Map(targets.map((load) => [load, { runs: [] as Round[], spent: [] as Spent[] }]));
  const apiOrigin = new URL(api.url).origin;
  const runtimeBefore = await readRuntime(apiOrigin);
  for (const load of roundOrder(targets, SIDE_BY_SIDE_ROUNDS)) {
    const { value, spent } = await spentDuring(load.url, () =>
      cannonRound(load.url, load.requests, CONNECTIONS, seconds),
    );
    rounds.get(load)!.runs.push(value);
    rounds.get(load)!.spent.push(spent);
  }
  const runtimeAfter = runtimeBefore && (await readRuntime(apiOrigin));
  const pass = (load: Load): Pass => {
    const { runs, spent } = rounds.get(load)!;
    const joined = joinRounds(runs, load.url, CONNECTIONS);
    const { total, ...measuredPass } = cannonPass(joined.result, joined.seconds);
    const sum = (part: keyof Spent) => spent.reduce((all, round) => all + round[part], 0);
    return {
      ...measuredPass,
      ...perRequest({ cpuMs: sum('cpuMs'), dbCpuMs: sum('dbCpuMs'), walBytes: sum('walBytes') }, total),
    };
  };
  return {
    api: {
      ...pass(api),
      ...(runtimeBefore && runtimeAfter ? { runtime: runtimeBetween(runtimeBefore, runtimeAfter) } : {}),
    },
    ...(floor ? { floor: pass(floor) } : {}),
  };
}

/**
 * BENCH_LATENCY_LOG=<file>: each paced request's latency, appended as `<pass> <ms after the start it was due>
 * <latency ms> <ms the bench sent it late>` lines, to see when in a pass the slow ones came (together, or spread
 * out) and whether the wait was the service's or the bench's own. The lead-in's requests come first, due before
 * `PACED_LEAD_IN_S`.
 */
const LATENCY_LOG = process.env.BENCH_LATENCY_LOG;

/** BENCH_API_LOG=<file>: the API's output (its log, and what BENCH_API_NODE_FLAGS have Node print) is kept. */
const API_LOG = process.env.BENCH_API_LOG;

/**
 * Seconds each paced pass sends at its rate before measuring (decision 0062). Without it, a pass's first
 * seconds measured how the service recovered from what came before: the floor's pool (pg's default) closes
 * connections idle for 10 s, so the floor opened up to ten new ones as each of its paced passes began, while
 * the API's pool had kept its own.
 */
const PACED_LEAD_IN_S = 2;

/**
 * A checkpoint before each paced pass (decision 0064). The server starts one of its own once the write-ahead log
 * since the last reaches its limit (about 530 MB with the default `max_wal_size`), and where that falls depends on
 * what the earlier passes wrote. Its start makes the next change to every page write the whole page to the log,
 * a burst that held a pass's requests for 100–150 ms. Started here, that burst falls in the pass's lead-in, and
 * the log a paced pass writes is far below the limit, so no checkpoint starts inside a measured pass.
 */
async function checkpoint(): Promise<void> {
  if (!databaseWatcher) return;
  try {
    await databaseWatcher.query('CHECKPOINT');
  } catch (error) {
    // Without the privilege (superuser or pg_checkpoint) the pass runs as before, and says so.
    console.log(`No checkpoint before the paced pass: ${(error as Error).message}`);
  }
}

/**
 * The same requests on the same connections, spaced evenly at `rate` a second (`paced-load.ts`), sent from a
 * worker thread of their own (decision 0064); `label` names the pass in the latency log.
 */
const paced = async (url: string, plan: PacedRequestPlan, rate: number, label: string): Promise<Pass> => {
  await checkpoint();
  return measured(url, async () => {
    const result = await pacedLoadApart({
      origin: url,
      rate,
      durationS: DURATION_S,
      leadInS: PACED_LEAD_IN_S,
      connections: CONNECTIONS,
      plan,
    });
    if (LATENCY_LOG) {
      const lines = Array.from(
        result.byDue,
        (latency, i) =>
          `${label} ${((i * 1000) / rate).toFixed(1)} ${latency.toFixed(1)} ${result.lateByDue[i]!.toFixed(1)}`,
      );
      // The pass's start as a wall-clock time, to line its requests up with what the service logged.
      appendFileSync(
        LATENCY_LOG,
        `# ${label} started at ${result.startedAt} ms since the epoch\n${lines.join('\n')}\n`,
      );
    }
    return {
      total: result.sent,
      requestsPerSecond: result.requestsPerSecond,
      p50: result.p50,
      p99: result.p99,
      errors: result.errors,
      lateP99: result.lateP99,
      lateMax: result.lateMax,
      refused: [...result.statuses]
        .filter(([status]) => status < 200 || status > 299)
        .map(([status, count]) =>
          status === 0
            ? `no answer×${count} (${[...result.failures].map(([why, n]) => `${why}×${n}`).join(' ')})`
            : `${status}×${count}`,
        )
        .join(' '),
    };
  });
};

const createRequest = (target: Target): CannonRequest => ({
  method: 'POST',
  path: target.createPath,
  body: CREATE_BODY,
  setupRequest: (request) => ({
    ...request,
    headers: { ...target.headers, 'Idempotency-Key': idempotencyKey() },
  }),
});

/** Creates as a paced pass sends them, each with an idempotency key of its own. */
const createPlan = (target: Target, label: string): PacedRequestPlan => ({
  method: 'POST',
  paths: [target.createPath],
  headers: target.headers,
  body: CREATE_BODY,
  uniqueHeader: { name: 'Idempotency-Key', prefix: `bench-${process.pid}-${label}` },
});

/** Retrieves of `ids` in turn, as a paced pass sends them. */
const retrievePlan = (target: Target, ids: string[]): PacedRequestPlan => ({
  method: 'GET',
  paths: ids.map((id) => target.retrievePath(id)),
  headers: target.headers,
});

/** `count` documents created through the target itself, for the read passes. */
async function seed(target: Target, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${target.baseUrl}${target.createPath}`, {
      method: 'POST',
      headers: { ...target.headers, 'Idempotency-Key': idempotencyKey() },
      body: CREATE_BODY,
    });
    if (response.status !== 201) throw new Error(`${target.name} seed: ${response.status}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

const retrieveRequest = (target: Target, ids: string[]): CannonRequest => {
  let next = 0;
  return {
    method: 'GET',
    setupRequest: (request) => ({
      ...request,
      path: target.retrievePath(ids[(next += 1) % ids.length]!),
      headers: target.headers,
    }),
  };
};

/**
 * Patches answers with the version each authorization was last answered with (If-Match). An authorization is
 * taken off the free list while a patch of it is in flight and put back with its new version from the answer,
 * so concurrent connections never race on one (autocannon's per-request context does not outlive a request).
 */
const patchRequest = (target: Target, ids: string[]): CannonRequest => {
  const free = ids.map((id) => ({ id, version: 1 }));
  let answer = 0;
  return {
    method: 'PATCH',
    setupRequest: (request) => {
      const next = free.shift();
      if (next === undefined) throw new Error('patch: every authorization is in flight');
      answer += 1;
      return {
        ...request,
        path: `${target.retrievePath(next.id)}/answers`,
        headers: { ...target.headers, 'If-Match': `"${next.version}"` },
        body: JSON.stringify({
          questionnaireResponse: {
            item: [{ linkId: 'patient.memberId', answer: [{ valueString: `M${answer}` }] }],
          },
        }),
      };
    },
    onResponse: (status, body) => {
      if (status !== 200) return;
      const { id, version } = JSON.parse(body) as { id: string; version: number };
      free.push({ id, version });
    },
  };
};

async function startApi(
  databaseUrl: string,
  logFile: string,
): Promise<{ target: Target; child: ChildProcess }> {
  const dataSource = await openTestDataSource(1);
  const directory = new TypeOrmOrganizationDirectory(dataSource);
  const ids = new RandomIdGenerator();
  const organization = await directory.createOrganization({ id: ids.newId('org'), name: 'Bench clinic' });
  await directory.registerProviderNpi(organization.id, NPI);
  const key = generateApiKey('sandbox');
  await directory.createApiKey({
    id: ids.newId('key'),
    organizationId: organization.id,
    environment: 'sandbox',
    keyHash: key.hash,
    displayPrefix: key.displayPrefix,
  });
  await dataSource.destroy();

  const port = await freePort();
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...API_FLAGS, ...nodeFlags('api'), API_MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SIGNING_SECRET: 'bench-signing-secret-bench-signing-secret',
      PRIOR_AUTH_DATA_DIR: join(tmpdir(), 'prior-auth-bench-data'),
      // One key drives every pass at full speed: a budget it never reaches, still counted (decision 0035).
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${baseUrl}/health`, child);
  if (child.pid !== undefined) servers.set(baseUrl, child.pid);
  return {
    child,
    target: {
      name: 'api',
      baseUrl,
      headers: { Authorization: `Bearer ${key.secret}`, 'Content-Type': 'application/json' },
      createPath: '/v1/prior-auth/authorizations',
      retrievePath: (id) => `/v1/prior-auth/authorizations/${id}`,
    },
  };
}

/**
 * BENCH_CPU_PROFILE_DIR=<folder> runs the API and the floor under `--cpu-prof` (`api.cpuprofile` and
 * `floor.cpuprofile`, written as each exits), so the two can be compared pass for pass.
 */
function nodeFlags(name: string): string[] {
  const folder = process.env.BENCH_CPU_PROFILE_DIR;
  return folder ? ['--cpu-prof', `--cpu-prof-dir=${folder}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}

async function startFloor(databaseUrl: string): Promise<{ target: Target; child: ChildProcess } | null> {
  if (!existsSync(FLOOR)) {
    console.log(`No floor: ${FLOOR} is absent, so the ratios to the floor are not measured.`);
    return null;
  }
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags('floor'), FLOOR], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      // The floor runs on the project's own express and pg.
      FLOOR_MODULE_DIRS: [
        join(REPOSITORY, 'apps/api'),
        join(REPOSITORY, 'packages/persistence-postgres'),
      ].join(':'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.resume();
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${baseUrl}/v1/floor/none`, child);
  if (child.pid !== undefined) servers.set(baseUrl, child.pid);
  return {
    child,
    target: {
      name: 'floor',
      baseUrl,
      headers: { 'Content-Type': 'application/json' },
      createPath: '/v1/floor',
      retrievePath: (id) => `/v1/floor/${id}`,
    },
  };
}

const ms = (value: number): string => value.toFixed(1);
const cpu = (pass: Pass): string =>
  Number.isNaN(pass.cpuMsPerRequest)
    ? 'n/a'
    : `${pass.cpuMsPerRequest.toFixed(2)} / ${Number.isNaN(pass.dbCpuMsPerRequest) ? 'n/a' : pass.dbCpuMsPerRequest.toFixed(2)}`;
const ratio = (pass: Pass, floor: Pass | undefined): string =>
  floor ? (pass.requestsPerSecond / floor.requestsPerSecond).toFixed(2) : 'n/a';

/**
 * `total` more authorizations in one statement: copies of a seeded one under another organization, with small
 * documents (the table's size and its indexes are what a read could depend on, not the copies' content).
 */
async function growTable(total: number): Promise<number> {
  const dataSource = await openTestDataSource(1);
  try {
    const counted = (await dataSource.query('SELECT count(*)::int AS count FROM authorizations')) as Array<{
      count: number;
    }>;
    const count = counted[0]?.count ?? 0;
    await dataSource.query(`INSERT INTO organizations (id, name) VALUES ('org_bench_filler', 'Filler')`);
    // Column by column from one seeded row (no per-row JSON work), with small documents in the copies.
    const columns = (
      (await dataSource.query(
        `SELECT column_name AS name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'authorizations' ORDER BY ordinal_position`,
      )) as Array<{ name: string }>
    ).map(({ name }) => ({
      name,
      value:
        name === 'id'
          ? `'auth_filler_' || n`
          : name === 'organization_id'
            ? `'org_bench_filler'`
            : name === 'review_snapshot_id' || name === 'questionnaire_id'
              ? 'NULL'
              : ['questionnaire', 'questionnaire_response', 'requirements'].includes(name)
                ? `'{}'`
                : `a.${name}`,
    }));
    await dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL statement_timeout = 0');
      await manager.query(
        `INSERT INTO authorizations (${columns.map((column) => column.name).join(', ')})
         SELECT ${columns.map((column) => column.value).join(', ')}
         FROM (SELECT * FROM authorizations LIMIT 1) a, generate_series(1, $1) n`,
        [total],
      );
    });
    // Vacuum and checkpoint now, so the pass that follows measures reads, not the insert's aftermath.
    await dataSource.query('VACUUM (ANALYZE) authorizations');
    await dataSource.query('CHECKPOINT');
    return count;
  } finally {
    await dataSource.destroy();
  }
}

async function main(): Promise<void> {
  await setupTestDatabase();
  const databaseUrl = process.env.DATABASE_URL!;
  const logFolder = mkdtempSync(join(tmpdir(), 'api-bench-'));
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  let floor: Awaited<ReturnType<typeof startFloor>> = null;
  try {
    api = await startApi(databaseUrl, API_LOG ?? join(logFolder, 'api.log'));
    floor = await startFloor(databaseUrl);
    databaseWatcher = await openTestDataSource(1);
    /** Operation, the API's pass, the floor's beside it, and whether the ratio of their rates is asked for. */
    const rows: Array<[string, Pass, Pass | undefined, boolean?]> = [];
    const apiUrl = api.target.baseUrl;

    // Warm-up: JIT, pools, caches.
    await cannon(apiUrl, [createRequest(api.target)], { duration: 3 });
    if (floor) await cannon(floor.target.baseUrl, [createRequest(floor.target)], { duration: 3 });

    let apiCreate: Pass | undefined;
    let floorCreate: Pass | undefined;
    if (runs('create')) {
      const passes = await sideBySide(
        { url: apiUrl, requests: [createRequest(api.target)] },
        floor && { url: floor.target.baseUrl, requests: [createRequest(floor.target)] },
      );
      apiCreate = passes.api;
      floorCreate = passes.floor;
      rows.push(['create', apiCreate, floorCreate]);
    }

    const apiIds = await seed(api.target, 200);
    const floorIds = floor && runs('retrieve') ? await seed(floor.target, 200) : [];
    // What autovacuum would have done by now: without statistics the planner rates every index that starts
    // with the tenant's columns at one row, and may read one authorization through a walk of the tenant's list
    // index instead of the primary key (docs/performance.md). Some servers run with autovacuum off.
    await databaseWatcher.query('ANALYZE');
    let apiRetrieve: Pass | undefined;
    let floorRetrieve: Pass | undefined;
    if (runs('retrieve')) {
      const passes = await sideBySide(
        { url: apiUrl, requests: [retrieveRequest(api.target, apiIds)] },
        floor && { url: floor.target.baseUrl, requests: [retrieveRequest(floor.target, floorIds)] },
      );
      apiRetrieve = passes.api;
      floorRetrieve = passes.floor;
      rows.push(['retrieve', apiRetrieve, floorRetrieve]);
    }

    if (runs('list')) {
      rows.push([
        'list (limit=25)',
        await cannon(`${apiUrl}/v1/prior-auth/authorizations?limit=25`, [
          { method: 'GET', headers: api.target.headers },
        ]),
        undefined,
      ]);
    }
    if (runs('patch')) {
      rows.push(['patch answers', await cannon(apiUrl, [patchRequest(api.target, apiIds)]), undefined]);
    }

    // Latency below saturation: half of the maximum rate each operation reached above, the floor at the same
    // rate beside it, so its p99 shows what the machine itself adds at that load.
    if (apiCreate) {
      const halfCreate = Math.max(1, Math.round(apiCreate.requestsPerSecond / 2));
      const label = (name: string) => `${name}-create-${halfCreate}`;
      rows.push([
        `create at ${halfCreate}/s`,
        await paced(apiUrl, createPlan(api.target, label('api')), halfCreate, label('api')),
        floor && floorCreate
          ? await paced(
              floor.target.baseUrl,
              createPlan(floor.target, label('floor')),
              halfCreate,
              label('floor'),
            )
          : undefined,
        false,
      ]);
    }
    if (apiRetrieve) {
      const halfRetrieve = Math.max(1, Math.round(apiRetrieve.requestsPerSecond / 2));
      const label = (name: string) => `${name}-retrieve-${halfRetrieve}`;
      rows.push([
        `retrieve at ${halfRetrieve}/s`,
        await paced(apiUrl, retrievePlan(api.target, apiIds), halfRetrieve, label('api')),
        floor && floorRetrieve
          ? await paced(
              floor.target.baseUrl,
              retrievePlan(floor.target, floorIds),
              halfRetrieve,
              label('floor'),
            )
          : undefined,
        false,
      ]);
    }

    console.log(
      `\nAPI vs floor: ${CONNECTIONS} connections, ${DURATION_S} s per pass` +
        (floor ? '' : ' (no floor: ratios not measured)') +
        '\n',
    );
    console.log(
      '| operation | req/s | p50 ms | p99 ms | errors | CPU ms/req (service / db) | floor req/s | floor p99 ms | floor CPU ms/req (service / db) | ratio |',
    );
    console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const [name, pass, reference, rated = true] of rows) {
      console.log(
        `| ${name} | ${pass.requestsPerSecond.toFixed(0)} | ${ms(pass.p50)} | ${ms(pass.p99)} | ${pass.errors}${pass.refused ? ` (${pass.refused})` : ''} | ${cpu(pass)} | ${
          reference ? reference.requestsPerSecond.toFixed(0) : ''
        } | ${reference ? ms(reference.p99) : ''} | ${reference ? cpu(reference) : ''} | ${reference && rated ? ratio(pass, reference) : ''} |`,
      );
    }
    const lateness = rows
      .filter(([, pass]) => pass.lateP99 !== undefined)
      .map(
        ([name, pass, reference]) =>
          `${name} ${ms(pass.lateP99!)} ms, at most ${ms(pass.lateMax!)} ms` +
          (reference?.lateP99 !== undefined
            ? ` (floor's pass ${ms(reference.lateP99)} ms, at most ${ms(reference.lateMax!)} ms)`
            : ''),
      );
    if (lateness.length > 0) {
      console.log(
        `\nPaced passes: after a ${PACED_LEAD_IN_S} s lead-in at the same rate, not counted, latency counts from ` +
          `when each request was due; the bench's load thread sent them late by, ` +
          `at the 99th percentile: ${lateness.join('; ')}.`,
      );
    }
    const kb = (pass: Pass) => `${(pass.walBytesPerRequest / 1024).toFixed(1)} KB`;
    console.log(
      `\nWrite-ahead log per request: ${rows
        .map(
          ([name, pass, reference]) => `${name} ${kb(pass)}${reference ? ` (floor ${kb(reference)})` : ''}`,
        )
        .join('; ')}.`,
    );
    const paused = rows.filter(([, pass]) => pass.runtime !== undefined);
    if (paused.length > 0) {
      console.log(
        `\nThe service's own pauses in each pass (its /metrics): ${paused
          .map(([name, pass]) => `${name}: ${describeRuntime(pass.runtime!)}`)
          .join('; ')}.`,
      );
    }
    const peak = (target: Target | undefined) =>
      target ? `${peakMemoryMb(servers.get(target.baseUrl)).toFixed(0)} MB` : 'not measured';
    console.log(
      `\nPeak resident memory over the passes: service ${peak(api.target)}, floor ${peak(floor?.target)}.`,
    );
    if (SCALE) {
      const small = await cannon(apiUrl, [retrieveRequest(api.target, apiIds)]);
      const before = await growTable(1_000_000);
      const large = await cannon(apiUrl, [retrieveRequest(api.target, apiIds)]);
      console.log('\nRead cost and table size: retrieve with the rows above, then with 1,000,000 more\n');
      console.log('| authorizations | req/s | p50 ms | p99 ms | errors | ratio to the small table |');
      console.log('|---|--:|--:|--:|--:|--:|');
      for (const [name, pass] of [
        [before.toLocaleString('en-US'), small],
        [(before + 1_000_000).toLocaleString('en-US'), large],
      ] as const) {
        console.log(
          `| ${name} | ${pass.requestsPerSecond.toFixed(0)} | ${ms(pass.p50)} | ${ms(pass.p99)} | ${pass.errors} | ${ratio(pass, small)} |`,
        );
      }
    }
  } finally {
    await databaseWatcher?.destroy();
    if (api) await stop(api.child);
    if (floor) await stop(floor.child);
    rmSync(logFolder, { recursive: true, force: true });
    await teardownTestDatabase();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
