import {
  PayerPortalError,
  PollDecisionUseCase,
  ProcessAuthorizationUseCase,
  ReconcileManualHandoffUseCase,
  type Clock,
  type DecisionPoll,
  type FoundSubmission,
  type PayerPortal,
  type PayerReceipt,
  type PortalCase,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type ProcessAuthorizationDeps,
  type SubmissionLookup,
  type SubmitResult,
  type TenantScope,
} from '@prior-auth/domain';
import type { BlobStorage } from '@prior-auth/blob-storage';
import { KeysetCursors, TypeOrmUnitOfWork, type JobBoss } from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import { PayerWebsite } from './support/payer-website';

/*
 * The sandbox payer is the simulated payer website driven by a browser (decision 0022): started once per test
 * file that runs a pipeline step, on first use, and stopped after the file.
 */
let website: Promise<PayerWebsite> | null = null;
// A pipeline step is a browser run or several: seconds each on a loaded machine.
jest.setTimeout(120_000);
export const payerWebsite = (): Promise<PayerWebsite> => (website ??= PayerWebsite.start());
afterAll(async () => {
  await (await website?.catch(() => null))?.close();
  website = null;
});

/** The last case each authorization brought to the portal (what an operator would submit by hand). */
const portalCases = new Map<string, PortalCase>();

/** The website's portal, started on first use; remembers each authorization's case. */
class WebsitePortal implements PayerPortal {
  private portal: Promise<PayerPortal> | null = null;

  discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.call(portalCase, (p) => p.discover(portalCase));
  }
  validate(portalCase: PortalCase): Promise<PortalValidation> {
    return this.call(portalCase, (p) => p.validate(portalCase));
  }
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return this.call(portalCase, (p) => p.prepareSubmission(portalCase));
  }
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return this.call(portalCase, (p) => p.submit(portalCase, options));
  }
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.call(portalCase, (p) => p.findSubmission(portalCase, lookup));
  }
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return this.call(portalCase, (p) => p.pollDecision(portalCase));
  }

  private async call<T>(portalCase: PortalCase, body: (portal: PayerPortal) => Promise<T>): Promise<T> {
    // As in a worker with no production portal bound: the website is the sandbox's payer only.
    if (portalCase.environment !== 'sandbox') {
      throw new PayerPortalError(
        'payer_portal_unavailable',
        `No payer portal is available for the ${portalCase.environment} environment.`,
        { transient: false },
      );
    }
    portalCases.set(portalCase.authorizationId, portalCase);
    this.portal ??= payerWebsite().then((site) => site.portal());
    return body(await this.portal);
  }
}

/** One portal per file: its signed-in sessions are reused across the file's steps. */
export const websitePortal = new WebsitePortal();

/**
 * A portal seen from a test's clock: the website stamps receipts with the real time, so a pipeline run "in the
 * past" (a clock behind the real one) sees them shifted by the same amount, as if the payer had received the
 * case then.
 */
class OnTestClock implements PayerPortal {
  constructor(
    private readonly portal: PayerPortal,
    private readonly clock: Clock,
  ) {}

  discover = (portalCase: PortalCase) => this.portal.discover(portalCase);
  validate = (portalCase: PortalCase) => this.portal.validate(portalCase);
  prepareSubmission = (portalCase: PortalCase) => this.portal.prepareSubmission(portalCase);
  pollDecision = (portalCase: PortalCase) => this.portal.pollDecision(portalCase);

  async submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    const result = await this.portal.submit(portalCase, options);
    return 'receipt' in result ? { ...result, receipt: this.shifted(result.receipt) } : result;
  }

  async findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    const found = await this.portal.findSubmission(portalCase, lookup);
    return found && { ...found, receipt: this.shifted(found.receipt) };
  }

  private shifted(receipt: PayerReceipt): PayerReceipt {
    const offsetMs = this.clock.now().getTime() - Date.now();
    return { ...receipt, receivedAt: new Date(receipt.receivedAt.getTime() + offsetMs) };
  }
}

/**
 * An operator after a manual handoff: submits the case at the website by hand (answering its human check) and
 * returns the reference number the website's confirmation showed.
 */
export async function submitAsOperator(authorizationId: string): Promise<string> {
  const portalCase = portalCases.get(authorizationId);
  if (!portalCase) throw new Error(`no pipeline step brought ${authorizationId} to the portal yet`);
  return (await payerWebsite()).submitAsOperator(portalCase, `${authorizationId}:operator`);
}

/*
 * The worker's steps for one authorization, run in the test's own process. API tests share one database and
 * run in parallel, so a real worker process here would also pick up other files' cases; running the same
 * domain use cases the worker runs, for exactly the case under test, keeps each test deterministic. (The
 * worker itself, its queue and its processes are tested in apps/worker and end to end.)
 */
export function pipeline(
  {
    dataSource,
    jobBoss,
    blobStorage,
  }: { dataSource: DataSource; jobBoss: JobBoss; blobStorage: BlobStorage },
  clock: Clock = { now: () => new Date() },
  payerPortal: PayerPortal = websitePortal,
) {
  const deps: ProcessAuthorizationDeps = {
    unitOfWork: new TypeOrmUnitOfWork(dataSource, {
      cursors: new KeysetCursors(new TokenSigner('test-signing-secret-test-signing-secret')),
      jobBoss,
    }),
    clock,
    ids: new RandomIdGenerator(),
    payerPortal: new OnTestClock(payerPortal, clock),
    // The API's own store, as a worker of the same deployment shares it: evidence downloads through the API.
    blobStore: blobStorage.store,
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
