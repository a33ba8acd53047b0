import {
  PollDecisionUseCase,
  ProcessAuthorizationUseCase,
  ReconcileManualHandoffUseCase,
  type Clock,
  type ProcessAuthorizationDeps,
  type TenantScope,
} from '@prior-auth/domain';
import { KeysetCursors, TypeOrmUnitOfWork, type JobBoss } from '@prior-auth/persistence-postgres';
import { SandboxPayerPortal } from '@prior-auth/payer-portal';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';

/*
 * The worker's steps for one authorization, run in the test's own process. API tests share one database and
 * run in parallel, so a real worker process here would also pick up other files' cases; running the same
 * domain use cases the worker runs, for exactly the case under test, keeps each test deterministic. (The
 * worker itself, its queue and its processes are tested in apps/worker and end to end.)
 */
export function pipeline(
  { dataSource, jobBoss }: { dataSource: DataSource; jobBoss: JobBoss },
  clock: Clock = { now: () => new Date() },
) {
  const deps: ProcessAuthorizationDeps = {
    unitOfWork: new TypeOrmUnitOfWork(dataSource, {
      cursors: new KeysetCursors(new TokenSigner('test-signing-secret-test-signing-secret')),
      jobBoss,
    }),
    clock,
    ids: new RandomIdGenerator(),
    payerPortal: new SandboxPayerPortal({ decisionDelayMs: 0, clock }),
  };
  const process = new ProcessAuthorizationUseCase(deps);
  return {
    /** Runs processing steps until the case leaves `processing` or a step has nothing to do (at most `steps`). */
    async process(scope: TenantScope, authorizationId: string, steps = 6): Promise<string[]> {
      const outcomes: string[] = [];
      for (let step = 0; step < steps; step += 1) {
        const outcome = await process.execute(scope, { authorizationId });
        outcomes.push(outcome);
        const idle = outcome === 'skipped' || outcome === 'superseded' || outcome === 'requirements_revealed';
        if (idle || (await statusOf(dataSource, authorizationId)) !== 'processing') break;
      }
      return outcomes;
    },
    reconcileHandoff: (
      scope: TenantScope,
      command: { authorizationId: string; manualHandoffId: string; attempt: number },
    ) => new ReconcileManualHandoffUseCase(deps).execute(scope, command),
    pollDecision: (scope: TenantScope, authorizationId: string) =>
      new PollDecisionUseCase(deps).execute(scope, { authorizationId }),
  };
}

async function statusOf(dataSource: DataSource, authorizationId: string): Promise<string> {
  const rows = await dataSource.query('SELECT status FROM authorizations WHERE id = $1', [authorizationId]);
  return rows[0]?.status as string;
}
