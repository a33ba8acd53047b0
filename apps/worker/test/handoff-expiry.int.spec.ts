import { WORKER_JOB_TYPES, type ManualHandoff } from '@prior-auth/domain';
import { JOB_TABLE } from '@prior-auth/persistence-postgres';
import { Harness } from './support/harness';
import { PayerWebsite } from './support/payer-website';

/*
 * A manual handoff nobody finished expires through the worker's real `expire_manual_handoff` job, on
 * PostgreSQL with the real grant store: the operator's open grant is revoked with the close (decision 0014:
 * closing a handoff revokes its grants) and the read-only live-session grant of the case finds its session
 * ended (`subject_inactive`). Every opening, refusals included, is audited as for any other grant.
 */

let h: Harness;
let website: PayerWebsite;

beforeAll(async () => {
  [h, website] = await Promise.all([Harness.open(), PayerWebsite.start()]);
  await h.startWorker({ portal: website.portal() });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await website?.close();
});

const CLIENT = { address: '203.0.113.7', userAgent: 'handoff-expiry-test' };
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

async function handoffNow(authorizationId: string, manualHandoffId: string): Promise<ManualHandoff> {
  const handoff = await h.unitOfWork.run(h.scope, (tx) => tx.manualHandoffs.findById(manualHandoffId));
  if (handoff === null || handoff.authorizationId !== authorizationId) throw new Error('no such handoff');
  return handoff;
}

const openings = async (grantId: string): Promise<string[]> =>
  (
    (await h.dataSource.query(
      'SELECT outcome FROM access_grant_openings WHERE grant_id = $1 ORDER BY opened_at, outcome',
      [grantId],
    )) as Array<{ outcome: string }>
  ).map((row) => row.outcome);

const audited = async (grantId: string) =>
  (await h.dataSource.query(
    `SELECT action, subject_type, subject_id, details->>'userAgent' AS user_agent
       FROM audit_log WHERE actor = $1 ORDER BY occurred_at, action`,
    [`access_grant:${grantId}`],
  )) as Array<{ action: string; subject_type: string; subject_id: string; user_agent: string }>;

it('expires an active handoff through the job; its grants then refuse access and the refusals are audited', async () => {
  const ready = await h.readyCase('SBX-MANUAL-HANDOFF');
  await h.confirm(ready.id);
  const waiting = await h.waitForStatus(ready.id, 'requires_action');
  expect(waiting.nextAction).toMatchObject({
    type: 'complete_payer_interaction',
    resolution: { kind: 'manual_handoff' },
  });

  const handoff = await h.createManualHandoff(ready.id);
  expect(handoff.currentState).toBe('active');
  const operatorGrant = await h.handoffAccessGrant(ready.id, handoff.id);
  const viewerGrant = await h.liveSessionGrant(ready.id);
  const gate = h.grantGate();
  // Both grants open while the handoff is active.
  expect(await gate.open(tokenOf(operatorGrant.url), CLIENT)).toMatchObject({ outcome: 'redirected' });
  expect(await gate.open(tokenOf(viewerGrant.url), CLIENT)).toMatchObject({ outcome: 'redirected' });

  // The handoff's hour is up: its expiry job, enqueued with it for that moment, is now due.
  await h.dataSource.query(
    `UPDATE manual_handoffs SET expires_at = now() - interval '1 second' WHERE id = $1`,
    [handoff.id],
  );
  const due = (await h.dataSource.query(
    `UPDATE ${JOB_TABLE} SET start_after = now()
      WHERE name = $1 AND state = 'created' AND data->'payload'->>'manualHandoffId' = $2
      RETURNING id`,
    [WORKER_JOB_TYPES.expireHandoff, handoff.id],
  )) as [Array<{ id: string }>, number];
  expect(due[1]).toBe(1);

  const deadline = Date.now() + 30_000;
  let closed = await handoffNow(ready.id, handoff.id);
  while (closed.currentState === 'active') {
    if (Date.now() > deadline) throw new Error('the handoff did not expire');
    await new Promise((resume) => setTimeout(resume, 100));
    closed = await handoffNow(ready.id, handoff.id);
  }
  expect({ state: closed.currentState, result: closed.result }).toEqual({
    state: 'closed',
    result: 'expired',
  });
  // The handler commits the close before pg-boss marks its job completed: wait until no job is active.
  const [expiryJob] = (await h.settledJobs(ready.id)).filter(
    (job) => job.type === WORKER_JOB_TYPES.expireHandoff,
  );
  expect(expiryJob).toMatchObject({ state: 'completed' });

  // The operator's grant was revoked with the close; the viewer's finds the session ended.
  expect(await gate.open(tokenOf(operatorGrant.url), CLIENT)).toEqual({
    outcome: 'revoked',
    grantId: operatorGrant.id,
  });
  expect(await gate.open(tokenOf(viewerGrant.url), CLIENT)).toEqual({
    outcome: 'subject_inactive',
    grantId: viewerGrant.id,
  });

  expect(await openings(operatorGrant.id)).toEqual(['redirected', 'revoked']);
  expect(await openings(viewerGrant.id)).toEqual(['redirected', 'subject_inactive']);
  expect(await audited(operatorGrant.id)).toEqual([
    {
      action: 'access_grant.redirected',
      subject_type: 'manual_handoff',
      subject_id: handoff.id,
      user_agent: CLIENT.userAgent,
    },
    {
      action: 'access_grant.revoked',
      subject_type: 'manual_handoff',
      subject_id: handoff.id,
      user_agent: CLIENT.userAgent,
    },
  ]);
  expect(await audited(viewerGrant.id)).toEqual([
    {
      action: 'access_grant.redirected',
      subject_type: 'live_session',
      subject_id: ready.id,
      user_agent: CLIENT.userAgent,
    },
    {
      action: 'access_grant.subject_inactive',
      subject_type: 'live_session',
      subject_id: ready.id,
      user_agent: CLIENT.userAgent,
    },
  ]);
}, 120_000);
