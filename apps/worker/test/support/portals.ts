import {
  PayerPortalError,
  type DecisionPoll,
  type FoundSubmission,
  type PayerPortal,
  type PortalCase,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type SubmissionLookup,
  type SubmitResult,
} from '@prior-auth/domain';

export type PortalMethod = keyof PayerPortal;

export interface RecordedCall {
  method: PortalMethod;
  authorizationId: string;
  idempotencyKey: string | null;
  /** The operator-observed reference number of a findSubmission lookup. */
  referenceNumber: string | null;
  /** What the call answered, or the error's code. */
  result: 'ok' | 'error';
  errorCode: string | null;
}

/**
 * Wraps a portal and records every call that reached it (shared by all workers of a test, like the one payer
 * every worker talks to). `before` runs inside each call before it is forwarded, to hold or race a call.
 */
export class SpyPayerPortal implements PayerPortal {
  readonly calls: RecordedCall[] = [];
  /** The last case each authorization brought to the portal (what an operator would submit by hand). */
  readonly cases = new Map<string, PortalCase>();
  before: ((method: PortalMethod, portalCase: PortalCase) => Promise<void>) | null = null;

  constructor(private readonly inner: PayerPortal) {}

  callsTo(method: PortalMethod, authorizationId?: string): RecordedCall[] {
    return this.calls.filter(
      (c) => c.method === method && (authorizationId === undefined || c.authorizationId === authorizationId),
    );
  }

  /**
   * findSubmission calls after the case's first submit: the reconciliation of a manual handoff (the lookup
   * before submitting an approved case comes earlier).
   */
  lookups(authorizationId: string): RecordedCall[] {
    const calls = this.calls.filter((c) => c.authorizationId === authorizationId);
    const firstSubmit = calls.findIndex((c) => c.method === 'submit');
    if (firstSubmit < 0) return [];
    return calls.slice(firstSubmit + 1).filter((c) => c.method === 'findSubmission');
  }

  /** Submissions that reached the payer and were accepted (a receipt or a need for a human). */
  submissions(authorizationId: string): RecordedCall[] {
    return this.callsTo('submit', authorizationId).filter((c) => c.result === 'ok');
  }

  discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.forward('discover', portalCase, null, () => this.inner.discover(portalCase));
  }
  validate(portalCase: PortalCase): Promise<PortalValidation> {
    return this.forward('validate', portalCase, null, () => this.inner.validate(portalCase));
  }
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return this.forward('prepareSubmission', portalCase, null, () =>
      this.inner.prepareSubmission(portalCase),
    );
  }
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return this.forward('submit', portalCase, options.idempotencyKey, () =>
      this.inner.submit(portalCase, options),
    );
  }
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.forward(
      'findSubmission',
      portalCase,
      lookup.idempotencyKey,
      () => this.inner.findSubmission(portalCase, lookup),
      lookup.referenceNumber ?? null,
    );
  }
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return this.forward('pollDecision', portalCase, null, () => this.inner.pollDecision(portalCase));
  }

  private async forward<T>(
    method: PortalMethod,
    portalCase: PortalCase,
    idempotencyKey: string | null,
    call: () => Promise<T>,
    referenceNumber: string | null = null,
  ): Promise<T> {
    if (this.before !== null) await this.before(method, portalCase);
    this.cases.set(portalCase.authorizationId, portalCase);
    const recorded = { method, authorizationId: portalCase.authorizationId, idempotencyKey, referenceNumber };
    try {
      const result = await call();
      this.calls.push({ ...recorded, result: 'ok', errorCode: null });
      return result;
    } catch (error) {
      const errorCode = error instanceof PayerPortalError ? error.code : 'unexpected';
      this.calls.push({ ...recorded, result: 'error', errorCode });
      throw error;
    }
  }
}

/**
 * Fails the first call of each listed method for every case with a transient portal error (an outage), then
 * forwards: the port carries no attempt number, so this test helper counts per case in memory.
 */
export class FlakyPayerPortal implements PayerPortal {
  private readonly failed = new Set<string>();

  constructor(
    private readonly inner: PayerPortal,
    private readonly methods: readonly PortalMethod[],
  ) {}

  discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.maybeFail('discover', portalCase, () => this.inner.discover(portalCase));
  }
  validate(portalCase: PortalCase): Promise<PortalValidation> {
    return this.maybeFail('validate', portalCase, () => this.inner.validate(portalCase));
  }
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return this.maybeFail('prepareSubmission', portalCase, () => this.inner.prepareSubmission(portalCase));
  }
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return this.maybeFail('submit', portalCase, () => this.inner.submit(portalCase, options));
  }
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.maybeFail('findSubmission', portalCase, () => this.inner.findSubmission(portalCase, lookup));
  }
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return this.maybeFail('pollDecision', portalCase, () => this.inner.pollDecision(portalCase));
  }

  private async maybeFail<T>(
    method: PortalMethod,
    portalCase: PortalCase,
    call: () => Promise<T>,
  ): Promise<T> {
    const key = `${method}:${portalCase.authorizationId}`;
    if (this.methods.includes(method) && !this.failed.has(key)) {
      this.failed.add(key);
      throw new PayerPortalError('payer_portal_timeout', 'The payer portal timed out.', { transient: true });
    }
    return call();
  }
}

/** A gate a portal call can be held at until the test opens it. */
export class Gate {
  private opened = false;
  private waiters: Array<() => void> = [];
  private arrivedResolvers: Array<() => void> = [];
  arrivals = 0;

  /** Resolves once `count` calls are held at the gate. */
  arrived(count = 1): Promise<void> {
    if (this.arrivals >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.arrivals >= count ? resolve() : this.arrivedResolvers.push(check));
      this.arrivedResolvers.push(check);
    });
  }

  wait(): Promise<void> {
    this.arrivals += 1;
    const resolvers = this.arrivedResolvers;
    this.arrivedResolvers = [];
    for (const resolve of resolvers) resolve();
    if (this.opened) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  open(): void {
    this.opened = true;
    for (const resolve of this.waiters) resolve();
    this.waiters = [];
  }
}

/** Delays the listed calls by their time before forwarding them (a slow payer portal). */
export class SlowPayerPortal implements PayerPortal {
  constructor(
    private readonly inner: PayerPortal,
    private readonly delaysMs: Partial<Record<PortalMethod, number>>,
  ) {}

  discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.delay('discover', () => this.inner.discover(portalCase));
  }
  validate(portalCase: PortalCase): Promise<PortalValidation> {
    return this.delay('validate', () => this.inner.validate(portalCase));
  }
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return this.delay('prepareSubmission', () => this.inner.prepareSubmission(portalCase));
  }
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return this.delay('submit', () => this.inner.submit(portalCase, options));
  }
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.delay('findSubmission', () => this.inner.findSubmission(portalCase, lookup));
  }
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return this.delay('pollDecision', () => this.inner.pollDecision(portalCase));
  }

  private async delay<T>(method: PortalMethod, call: () => Promise<T>): Promise<T> {
    const ms = this.delaysMs[method] ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    return call();
  }
}
