import { PostgresLiveSessionFrames } from './postgres-live-session-frames';
import { RuntimeSessionDatabase } from './testing/runtime-session-database';

const db = RuntimeSessionDatabase.register();

const frame = (page: string, byte: number) => ({
  page,
  contentType: 'image/jpeg',
  bytes: Uint8Array.from([0xff, 0xd8, byte]),
  capturedAt: new Date('2026-03-02T09:00:00.000Z'),
});

describe('PostgresLiveSessionFrames', () => {
  it('keeps the newest frame, numbered, and tells a watcher on another connection of every change', async () => {
    const sessionId = await db.liveSession();
    // Another process's view of the channel: its own instance and its own LISTEN connection.
    const owner = new PostgresLiveSessionFrames(db.dataSource);
    const viewer = new PostgresLiveSessionFrames(db.dataSource);
    const heard: string[] = [];
    let hear: (() => void) | null = null;
    const stop = await viewer.watch((id) => {
      if (id !== sessionId) return;
      heard.push(id);
      hear?.();
    });
    const nextNotification = () => new Promise<void>((done) => (hear = done));
    try {
      expect(await viewer.latest(sessionId)).toBeNull();

      let notified = nextNotification();
      await owner.publish(sessionId, frame('/sign-in', 1));
      await notified;
      expect(await viewer.latest(sessionId)).toMatchObject({ seq: 1, page: '/sign-in' });

      notified = nextNotification();
      await owner.publish(sessionId, frame('/providers', 2));
      await notified;
      const latest = await viewer.latest(sessionId);
      expect(latest).toMatchObject({ seq: 2, page: '/providers', contentType: 'image/jpeg' });
      expect(Array.from(latest!.bytes)).toEqual([0xff, 0xd8, 2]);

      notified = nextNotification();
      await owner.close(sessionId);
      await notified;
      expect(await viewer.latest(sessionId)).toBeNull();
      expect(heard).toHaveLength(3);
    } finally {
      await stop();
    }
  });

  it('records until when a viewer watches, never shortening it, and not for an ended session', async () => {
    const sessionId = await db.liveSession();
    const frames = new PostgresLiveSessionFrames(db.dataSource);
    expect(await frames.watchedUntil(sessionId)).toBeNull();

    const later = new Date(Date.now() + 30_000);
    await frames.markWatched(sessionId, later);
    await frames.markWatched(sessionId, new Date(Date.now() + 10_000));
    expect(await frames.watchedUntil(sessionId)).toEqual(later);

    await db.ledger.end(sessionId, new Date());
    await frames.markWatched(sessionId, new Date(Date.now() + 60_000));
    expect(await frames.watchedUntil(sessionId)).toEqual(later);
  });
});
