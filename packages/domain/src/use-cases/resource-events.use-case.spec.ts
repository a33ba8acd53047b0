import { createHarness, SCOPE, type Harness } from '../testing';
import { CancelAuthorizationUseCase } from './cancel-authorization.use-case';
import { ListEventsUseCase } from './list-events.use-case';
import { MarkDecisionOverdueUseCase } from './mark-decision-overdue.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

/* The integrators' events (docs/decisions/0031-events-and-webhooks.md), written with each change. */

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const eventsOf = (authorizationId: string) =>
  h.unitOfWork
    .tenant(SCOPE)
    .events.filter((e) => e.authorizationId === authorizationId)
    .map((e) => e.type);

describe('resource events', () => {
  it('records created, the starting status, then updated and the status entered for each change', async () => {
    const created = await h.authorizationIn('requires_input');
    expect(eventsOf(created.id).slice(0, 2)).toEqual([
      'authorization.created',
      'authorization.requires_input',
    ]);

    const current = await h.load(created.id);
    await new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: created.id,
      expectedVersion: current.version,
    });
    expect(eventsOf(created.id).slice(-2)).toEqual(['authorization.updated', 'authorization.canceled']);
    const last = h.unitOfWork.tenant(SCOPE).events.at(-1)!;
    expect(last.snapshot).toMatchObject({ kind: 'authorization', state: { status: 'canceled' } });
  });

  it('keeps the state of each save in its events when one transaction saves the same case twice', async () => {
    const created = await h.authorizationIn('requires_input');
    await h.unitOfWork.run(SCOPE, async (tx) => {
      const authorization = await loadAuthorization(tx, created.id);
      authorization.patchAnswers([], authorizationContext(h.deps));
      await saveAuthorization(tx, h.deps.ids, authorization);
      authorization.cancel(authorizationContext(h.deps));
      await saveAuthorization(tx, h.deps.ids, authorization);
    });
    const snapshots = h.unitOfWork
      .tenant(SCOPE)
      .events.filter((e) => e.authorizationId === created.id)
      .slice(-3)
      .map((e) => [e.type, e.snapshot.kind === 'authorization' && e.snapshot.state.status]);
    expect(snapshots).toEqual([
      ['authorization.updated', 'requires_input'],
      ['authorization.updated', 'canceled'],
      ['authorization.canceled', 'canceled'],
    ]);
  });

  it('lists newest first, filtered by type', async () => {
    const created = await h.authorizationIn('requires_input');
    const page = await new ListEventsUseCase(h.deps).execute(SCOPE, {
      authorizationId: created.id,
      type: 'authorization.created',
      limit: 10,
    });
    expect(page.items.map((e) => e.type)).toEqual(['authorization.created']);
  });
});

describe('MarkDecisionOverdueUseCase', () => {
  it('records decision_overdue once the due time has passed while the case waits on the payer', async () => {
    const processing = await h.authorizationIn('processing');
    await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id });
    const waiting = await h.load(processing.id);
    expect(waiting.status).toBe('waiting_on_payer');
    const due = waiting.decisionDueAt!;
    const job = h.jobs().find((j) => j.type === 'decision_overdue');
    expect(job).toMatchObject({ runAt: due, payload: { decisionDueAt: due.toISOString() } });

    const mark = new MarkDecisionOverdueUseCase(h.deps);
    const command = { authorizationId: processing.id, decisionDueAt: due.toISOString() };
    expect(await mark.execute(SCOPE, command)).toBe('not_overdue');
    h.clock.set(new Date(due.getTime() + 1));
    expect(await mark.execute(SCOPE, command)).toBe('decision_overdue');
    expect(eventsOf(processing.id).at(-1)).toBe('authorization.decision_overdue');
    // A job for an earlier due date (the case was received again since) records nothing.
    expect(
      await mark.execute(SCOPE, { ...command, decisionDueAt: new Date(due.getTime() - 1).toISOString() }),
    ).toBe('not_overdue');
  });
});
