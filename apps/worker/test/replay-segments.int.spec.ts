import { randomBytes } from 'node:crypto';
import { REPLAY_RETENTION_MS, type ReplayEntry, type ReplayRunKey } from '@prior-auth/domain';
import { PostgresReplaySegments, PURGE_REPLAY_SEGMENTS_QUEUE } from '@prior-auth/persistence-postgres';
import { Harness } from './support/harness';

/*
 * Replay segments of portal runs (docs/decisions/0045-portal-run-replays.md) on PostgreSQL and a real blob
 * store: what is kept, for whom, for how long, and the cluster's purge schedule deleting bytes and rows.
 */

let h: Harness;
let segments: PostgresReplaySegments;

beforeAll(async () => {
  h = await Harness.open();
  segments = new PostgresReplaySegments(h.dataSource, h.blobs);
}, 60_000);
afterAll(() => h?.close());

const unique = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
const runOf = (authorizationId = unique('auth')): ReplayRunKey => ({
  ...h.scope,
  authorizationId,
  runtimeSessionId: unique('rs'),
});
const jpeg = (n: number) => Buffer.from([0xff, 0xd8, 0xff, n, 0xff, 0xd9]);
const frame = (ms: number, page: string): ReplayEntry => ({
  kind: 'frame',
  capturedAt: new Date(Date.UTC(2026, 0, 1) + ms),
  page,
  contentType: 'image/jpeg',
  bytes: jpeg(ms % 256),
});
const rowCount = async (authorizationId: string) =>
  (
    (await h.dataSource.query('SELECT count(*)::int AS n FROM replay_segments WHERE authorization_id = $1', [
      authorizationId,
    ])) as Array<{ n: number }>
  )[0]!.n;

it('keeps segments in blob storage with a tenant-scoped row, listed in recording order for 30 days', async () => {
  const first = runOf();
  const second = { ...first, runtimeSessionId: unique('rs') };
  const gap: ReplayEntry = {
    kind: 'gap',
    at: new Date(Date.UTC(2026, 0, 1) + 5_000),
    reason: 'customer_sign_in',
  };
  const now = new Date();
  await segments.append(first, 1, [frame(0, '/sign-in'), frame(1_000, '/sign-in')], now);
  await segments.append(first, 2, [frame(2_000, '/request'), gap], now);
  await segments.append(second, 1, [frame(60_000, '/status')], now);

  const listed = await segments.list(h.scope, first.authorizationId, now);
  expect(listed.map((s) => [s.runtimeSessionId, s.seq, s.frameCount])).toEqual([
    [first.runtimeSessionId, 1, 2],
    [first.runtimeSessionId, 2, 1],
    [second.runtimeSessionId, 1, 1],
  ]);
  expect(listed[0]).toMatchObject({
    ...h.scope,
    authorizationId: first.authorizationId,
    firstFrameAt: new Date(Date.UTC(2026, 0, 1)),
    lastFrameAt: new Date(Date.UTC(2026, 0, 1) + 1_000),
    expiresAt: new Date(now.getTime() + REPLAY_RETENTION_MS),
  });
  expect(listed[0]!.blobKey).toBe(
    `sandbox/${h.organizationId}/replays/${first.authorizationId}/${first.runtimeSessionId}-1.json`,
  );
  expect(await h.blobs.stat(listed[0]!.blobKey)).not.toBeNull();
  expect(await segments.read(listed[1]!)).toEqual([frame(2_000, '/request'), gap]);

  // Another tenant (the other environment) sees nothing of it; nor does anyone once it expired.
  expect(await segments.list({ ...h.scope, environment: 'production' }, first.authorizationId, now)).toEqual(
    [],
  );
  expect(
    await segments.list(h.scope, first.authorizationId, new Date(now.getTime() + REPLAY_RETENTION_MS)),
  ).toEqual([]);

  // A segment written twice (a retried write) is one row.
  await segments.append(second, 1, [frame(60_000, '/status')], now);
  expect(await rowCount(first.authorizationId)).toBe(3);
});

it('purges expired segments on the cluster schedule: bytes and rows, not the live ones', async () => {
  const old = runOf();
  const live = runOf();
  const longAgo = new Date(Date.now() - REPLAY_RETENTION_MS - 60_000);
  await segments.append(old, 1, [frame(0, '/sign-in')], longAgo);
  await segments.append(old, 2, [frame(1_000, '/request')], longAgo);
  await segments.append(live, 1, [frame(0, '/sign-in')], new Date());
  const [oldFirst, oldSecond] = (await segments.list(h.scope, old.authorizationId, longAgo)).map(
    (s) => s.blobKey,
  );

  const worker = await h.startWorker({ purge: true, replaySegments: segments });
  expect(await worker.boss.getSchedules(PURGE_REPLAY_SEGMENTS_QUEUE)).toHaveLength(1);
  // What the schedule sends every ten minutes, sent now.
  await h.boss.send(PURGE_REPLAY_SEGMENTS_QUEUE, {});
  const deadline = Date.now() + 20_000;
  while ((await rowCount(old.authorizationId)) > 0) {
    if (Date.now() > deadline) throw new Error('the expired segments were not purged');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(await h.blobs.stat(oldFirst!)).toBeNull();
  expect(await h.blobs.stat(oldSecond!)).toBeNull();
  const kept = await segments.list(h.scope, live.authorizationId, new Date());
  expect(kept).toHaveLength(1);
  expect(await h.blobs.stat(kept[0]!.blobKey)).not.toBeNull();
  expect(await segments.purgeExpired(new Date())).toBe(0);
});
