import type { LiveInput } from '@prior-auth/domain';
import { PostgresLiveSessionInputs } from './postgres-live-session-inputs';
import { RuntimeSessionDatabase } from './testing/runtime-session-database';

const db = RuntimeSessionDatabase.register();
let inputs: PostgresLiveSessionInputs;
beforeAll(() => {
  inputs = new PostgresLiveSessionInputs(db.dataSource);
});

const stored = async (sessionId: string): Promise<number> => {
  const rows = (await db.dataSource.query(
    'SELECT count(*)::int AS n FROM runtime_session_inputs WHERE session_id = $1',
    [sessionId],
  )) as Array<{ n: number }>;
  return rows[0]!.n;
};

describe('PostgresLiveSessionInputs', () => {
  it('hands a live session its input in order, once, and keeps nothing it handed over', async () => {
    const sessionId = await db.liveSession();
    await inputs.send(sessionId, { kind: 'click', x: 0.5, y: 0.25 });
    await inputs.send(sessionId, { kind: 'text', text: 'secret' });
    await inputs.send(sessionId, { kind: 'key', key: 'Enter' });
    const later: LiveInput[] = [
      { kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0, deltaY: -120 },
      { kind: 'pointer', phase: 'down', x: 0.1, y: 0.2 },
      { kind: 'pointer', phase: 'move', x: 0.3, y: 0.2 },
      { kind: 'pointer', phase: 'up', x: 0.3, y: 0.2 },
      { kind: 'paste', text: 'line one\nline two' },
    ];
    for (const input of later) await inputs.send(sessionId, input);

    const taken = await inputs.take(sessionId);
    expect(taken.map((t) => t.input)).toEqual([
      { kind: 'click', x: 0.5, y: 0.25 },
      { kind: 'text', text: 'secret' },
      { kind: 'key', key: 'Enter' },
      ...later,
    ]);
    expect(await inputs.take(sessionId)).toEqual([]);
    expect(await stored(sessionId)).toBe(0);
  });

  it('drops untaken input on discard and takes none for a session that has ended', async () => {
    const sessionId = await db.liveSession();
    await inputs.send(sessionId, { kind: 'text', text: 'password typed' });
    expect(await stored(sessionId)).toBe(1);
    await inputs.discard(sessionId);
    expect(await stored(sessionId)).toBe(0);

    await db.ledger.end(sessionId, new Date());
    await inputs.send(sessionId, { kind: 'text', text: 'too late' });
    expect(await stored(sessionId)).toBe(0);
  });
});
