import { type PayerReceipt } from '../authorization/authorization.types';
import {
  type DecisionPoll,
  type FoundSubmission,
  type PayerPortal,
  type PortalCase,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type SubmissionLookup,
  type SubmitResult,
} from '../ports/payer-portal.port';

interface Replies {
  discover: PortalDiscovery;
  validate: PortalValidation;
  prepareSubmission: PreparedSubmission;
  submit: SubmitResult;
  findSubmission: FoundSubmission | null;
  pollDecision: DecisionPoll;
}

type Method = keyof Replies;
type Scripted<M extends Method> = { reply: Replies[M] } | { error: unknown };

export const scriptedReceipt = (overrides: Partial<PayerReceipt> = {}): PayerReceipt => ({
  receivedAt: new Date('2026-03-02T09:30:00.000Z'),
  referenceNumber: 'PAYER-REF-1',
  channel: 'portal',
  payerStatusText: 'Received',
  details: {},
  ...overrides,
});

export interface PortalCall {
  method: Method;
  portalCase: PortalCase;
  options?: { idempotencyKey: string } | SubmissionLookup;
}

/**
 * A payer portal that answers from a script: queued replies (or errors) per method, then a default that
 * models the happy path. Every call is recorded.
 */
export class ScriptedPayerPortal implements PayerPortal {
  readonly calls: PortalCall[] = [];
  readonly defaults: Replies = {
    discover: { items: [], documents: [], issues: [] },
    validate: { issues: [] },
    prepareSubmission: { summary: { payer: 'UnitedHealthcare' }, warnings: [], liveViewUrl: null },
    submit: { receipt: scriptedReceipt() },
    findSubmission: null,
    pollDecision: { state: 'pending' },
  };
  private readonly queues: { [M in Method]: Array<Scripted<M>> } = {
    discover: [],
    validate: [],
    prepareSubmission: [],
    submit: [],
    findSubmission: [],
    pollDecision: [],
  };
  /** Runs inside each call, before it answers (e.g. to simulate a concurrent change). */
  onCall: ((method: Method) => Promise<void> | void) | null = null;

  reply<M extends Method>(method: M, reply: Replies[M]): this {
    (this.queues[method] as Array<Scripted<M>>).push({ reply });
    return this;
  }

  fail(method: Method, error: unknown): this {
    this.queues[method].push({ error });
    return this;
  }

  callsTo(method: Method): PortalCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.answer('discover', portalCase);
  }
  validate(portalCase: PortalCase): Promise<PortalValidation> {
    return this.answer('validate', portalCase);
  }
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return this.answer('prepareSubmission', portalCase);
  }
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return this.answer('submit', portalCase, options);
  }
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.answer('findSubmission', portalCase, lookup);
  }
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return this.answer('pollDecision', portalCase);
  }

  private async answer<M extends Method>(
    method: M,
    portalCase: PortalCase,
    options?: PortalCall['options'],
  ): Promise<Replies[M]> {
    this.calls.push({ method, portalCase, ...(options === undefined ? {} : { options }) });
    if (this.onCall !== null) await this.onCall(method);
    const next = (this.queues[method] as Array<Scripted<M>>).shift();
    if (next === undefined) return this.defaults[method];
    if ('error' in next) throw next.error;
    return next.reply;
  }
}
