import { DomainError, ManualHandoff, VersionConflictError, type TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { arrange } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;

beforeAll(async () => {
  dataSource = await openTestDataSource(6);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
});
afterAll(() => dataSource.destroy());

const T0 = new Date('2026-03-02T09:00:00.000Z');
const ctxAt = (now: Date) => ({ now, newId: (prefix: string) => `${prefix}_${uniqueSuffix()}` });

/** An authorization waiting for a human (requires_action), stored; returns its interaction action id. */
async function authorizationNeedingHuman(scope: TenantScope) {
  const arranged = arrange(scope, 'requires_action');
  await unitOfWork.run(scope, async (tx) => {
    for (const file of arranged.files) await tx.files.save(file);
    await tx.authorizations.save(arranged.authorization);
  });
  return {
    authorizationId: arranged.authorization.id,
    interactionActionId: arranged.authorization.nextAction!.id,
  };
}

const newHandoff = (
  scope: TenantScope,
  lineage: { authorizationId: string; interactionActionId: string },
  now = T0,
) => ManualHandoff.create({ ...scope, ...lineage }, ctxAt(now));

type Step = (handoff: ManualHandoff) => void;
const later = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const STATES: Array<[string, Step[]]> = [
  ['offered', []],
  ['active', [(h) => h.activate('session_1', later(1))]],
  [
    'closing (completion reported)',
    [
      (h) => h.activate('session_1', later(1)),
      (h) =>
        h.complete(
          { reportedOutcome: 'submitted', observedReferenceNumber: 'REF-9', operatorNotes: 'Done' },
          ctxAt(later(2)),
        ),
    ],
  ],
  [
    'closed completed_reported',
    [
      (h) => h.activate('session_1', later(1)),
      (h) =>
        h.complete(
          { reportedOutcome: 'decision_observed', observedReferenceNumber: null, operatorNotes: null },
          ctxAt(later(2)),
        ),
      (h) => h.finishReconciliation(true, later(3)),
    ],
  ],
  [
    'closed unable_to_complete',
    [(h) => h.unableToComplete('credential_or_mfa_issue', 'MFA device missing', later(1))],
  ],
  [
    'closed revoked with pending reconciliation',
    [
      (h) => h.activate('session_1', later(1)),
      (h) => h.revoke('Wrong operator', 'Reassign', ctxAt(later(2))),
    ],
  ],
  ['closed expired', [(h) => h.expire(ctxAt(later(61)))]],
  ['closed canceled', [(h) => h.cancelForAuthorization(later(5))]],
];

describe('TypeOrmManualHandoffRepository', () => {
  it.each(STATES)('round-trips a handoff %s', async (_label, steps) => {
    const scope = await createTestTenant(dataSource);
    const lineage = await authorizationNeedingHuman(scope);
    const handoff = newHandoff(scope, lineage);
    await unitOfWork.run(scope, (tx) => tx.manualHandoffs.save(handoff));
    let saved = handoff;
    for (const step of steps) {
      saved = await unitOfWork.run(scope, async (tx) => {
        const loaded = (await tx.manualHandoffs.findById(handoff.id))!;
        step(loaded);
        await tx.manualHandoffs.save(loaded);
        return loaded;
      });
    }
    const loaded = (await unitOfWork.run(scope, (tx) => tx.manualHandoffs.findById(handoff.id)))!;
    expect(loaded.toState()).toEqual(saved.toState());
    expect(loaded.persistedVersion).toBe(saved.version);
    expect(loaded.version).toBe(1 + steps.length);
  });

  it('finds the handoff owning a lineage and lists an authorization’s handoffs oldest first', async () => {
    const scope = await createTestTenant(dataSource);
    const lineage = await authorizationNeedingHuman(scope);
    const first = newHandoff(scope, lineage);
    first.unableToComplete('channel_outage', null, later(1));
    const second = newHandoff(scope, lineage, later(2));
    second.activate('session_2', later(2));
    second.revoke('stop', null, ctxAt(later(3))); // closed, reconciliation pending: still the owner
    await unitOfWork.run(scope, async (tx) => {
      await tx.manualHandoffs.save(first);
      await tx.manualHandoffs.save(second);
    });

    const [owner, all] = await unitOfWork.run(
      scope,
      async (tx) =>
        [
          await tx.manualHandoffs.findOpenByInteraction(lineage.authorizationId, lineage.interactionActionId),
          await tx.manualHandoffs.listByAuthorization(lineage.authorizationId),
        ] as const,
    );
    expect(owner?.id).toBe(second.id);
    expect(all.map((h) => h.id)).toEqual([second.id, first.id]); // newest first

    const other = await createTestTenant(dataSource);
    const seen = await unitOfWork.run(other, async (tx) => [
      await tx.manualHandoffs.findById(first.id),
      await tx.manualHandoffs.listByAuthorization(lineage.authorizationId),
      await tx.manualHandoffs.findOpenByInteraction(lineage.authorizationId, lineage.interactionActionId),
    ]);
    expect(seen).toEqual([null, [], null]);
  });

  it('lets only one of two concurrent creations own a lineage', async () => {
    const scope = await createTestTenant(dataSource);
    const lineage = await authorizationNeedingHuman(scope);
    const results = await Promise.allSettled(
      [0, 1].map(() => unitOfWork.run(scope, (tx) => tx.manualHandoffs.save(newHandoff(scope, lineage)))),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toBeInstanceOf(DomainError);
    expect(refused[0]!.reason).toMatchObject({ code: 'manual_handoff_not_allowed' });
  });

  it('refuses a stale update', async () => {
    const scope = await createTestTenant(dataSource);
    const lineage = await authorizationNeedingHuman(scope);
    const handoff = newHandoff(scope, lineage);
    await unitOfWork.run(scope, (tx) => tx.manualHandoffs.save(handoff));
    const copy = (await unitOfWork.run(scope, (tx) => tx.manualHandoffs.findById(handoff.id)))!;
    handoff.activate('session_1', later(1));
    await unitOfWork.run(scope, (tx) => tx.manualHandoffs.save(handoff));
    copy.expire(ctxAt(later(61)));
    await expect(unitOfWork.run(scope, (tx) => tx.manualHandoffs.save(copy))).rejects.toEqual(
      new VersionConflictError(1, 2),
    );
  });
});
