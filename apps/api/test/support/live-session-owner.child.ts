/*
 * A child process that owns a live browser session as a worker does (decision 0033): it begins a portal run's
 * live session for the case named on its command line, on a real page, holds it for an operator (so it takes
 * input) and then just lives, beating for it (decision 0039), until it is killed. Answers `{event: 'live',
 * sessionId}` over IPC once the session exists.
 */
import { type PortalCase } from '@prior-auth/domain';
import { ChromiumBrowser, ScreencastLiveSessions } from '@prior-auth/payer-portal';
import {
  createDataSource,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';

const [organizationId, authorizationId, heartbeatMs] = [
  process.argv[2]!,
  process.argv[3]!,
  Number(process.argv[4]),
];

async function main(): Promise<void> {
  const dataSource = createDataSource({ url: process.env.DATABASE_URL!, poolSize: 2 });
  await dataSource.initialize();
  const browser = new ChromiumBrowser({ executablePath: process.env.API_TEST_BROWSER });
  const page = await (await browser.newContext()).newPage();
  const sessions = new ScreencastLiveSessions({
    ledger: new TypeOrmRuntimeSessionLedger(dataSource),
    frames: new PostgresLiveSessionFrames(dataSource),
    inputs: new PostgresLiveSessionInputs(dataSource),
    clock: { now: () => new Date() },
    ids: new RandomIdGenerator(),
    heartbeatMs,
    onError: (error) => console.error('live session owner:', error),
  });
  // Only what a live session reads of its case.
  const portalCase = { organizationId, authorizationId, environment: 'sandbox' } as PortalCase;
  const live = await sessions.begin(portalCase, page);
  if (live === null || !(await live.hold())) throw new Error('the live session did not start');
  process.send?.({ event: 'live', sessionId: live.sessionId });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
