import { createHash } from 'node:crypto';
import { isDomainError, type DomainError } from '@prior-auth/domain';
import {
  commitWrites,
  CommitRefusedError,
  flushWrites,
  IdempotencyClaimLostError,
  type ClaimRequest,
  type ClaimResult,
  type PostgresIdempotencyStore,
  type PostgresTransaction,
  type StoredResponse,
  type TransactionMetadata,
  type TypeOrmTransactions,
} from '@prior-auth/persistence-postgres';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens';
import { canonicalJson } from './canonical-json';
import { toErrorResponse } from './error-handler';
import { HttpError } from './http-error';
import { requestContext, scopeOf } from './request-context';
import { sendJsonText } from './json-text';

/** What a command handler answers; rendered once to the exact bytes sent (and stored for replays). */
export interface CommandResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface CommandSpec {
  /**
   * Stable operation name (`authorizations.confirm`): the route pattern without its path family, so the same
   * command sent through `/v1/prior-auth/authorizations` and `/v1/prior-authorizations` is one command.
   */
  operation: string;
  /** The validated Idempotency-Key header; null when the client sent none (only where it is optional). */
  idempotencyKey: string | null;
  /** Path parameters: part of "the route", so one key cannot replay auth A's answer for auth B. */
  params: Record<string, string>;
  /** The body as received (absent counts as `{}`); fingerprinted as canonical JSON. */
  body: unknown;
  /** The If-Match version, when the operation takes one. */
  ifMatch: number | null;
}

/**
 * A command's writes are held and sent as one statement with its stored answer, before `COMMIT`
 * (docs/performance.md): a create is `BEGIN`, the key's claim, one statement and `COMMIT`.
 */
const HOLD_WRITES = { holdWrites: true } as const;

/** What the command's transaction ends with: the answer to send, and whether it is a replay. */
type Outcome = { replayed: boolean; response: StoredResponse };

/**
 * Decision 0023, implemented once for every command (decisions 0053 and 0055 for where the key is claimed):
 *
 * 1. The caller validates the request (headers, body, If-Match syntax) before calling `run`: those failures
 *    are never stored, and no key is claimed for them.
 * 2. The runner runs the command in a transaction that opens with its first statement (`deferred`). A command
 *    that sends nothing but its writes commits them, its answer and the key's lock as one statement of their
 *    own; when that statement is refused, or the domain refuses the command before it claimed the key, the
 *    command runs again as below, which gives every answer that is not a plain success.
 *    Otherwise, and with a key, the runner claims the key first in the command's transaction
 *    (`PostgresIdempotencyStore.claim`, an advisory lock that lasts as long as the transaction, and the key's
 *    record): completed with the same fingerprint → the stored status, headers and body, byte for byte, with
 *    `Idempotent-Replayed: true`; another fingerprint → 409 idempotency_key_reused; another request holds it →
 *    409 idempotency_key_in_use, retryable, `Retry-After: 1` (not stored).
 * 3. The handler runs the use case inside the same transaction (`TransactionBound.within`); a success is stored
 *    with `PostgresIdempotencyStore.complete` there too: the command's changes and its stored answer commit
 *    together or not at all. A domain error rolls the whole transaction back, and its answer is then stored on
 *    its own.
 * 4. Anything else (a bug, the database going away) rolls everything back, the claim with it, so the client may
 *    retry with the same key at once. So does a key another request answered first (409, retryable; the retry
 *    replays that answer).
 *
 * Without a key the handler still runs in a transaction of the runner's, so the audit log records the API key
 * and request id as the actor of the change.
 */
@injectable()
export class CommandRunner {
  constructor(
    @inject(TOKENS.IdempotencyStore) private readonly store: PostgresIdempotencyStore,
    @inject(TOKENS.Transactions) private readonly transactions: TypeOrmTransactions,
  ) {}

  async run(req: Request, res: Response, spec: CommandSpec, handler: Handler): Promise<void> {
    const context = requestContext(req);
    const metadata = {
      actor: `api_key:${context.auth?.apiKeyId ?? 'unknown'}`,
      requestId: context.requestId,
    };
    if (spec.idempotencyKey === null) {
      const attempt = (deferred: boolean) =>
        this.transactions.run(
          rendered(forOneAttempt(handler)),
          metadata,
          // Written out, not `{ ...HOLD_WRITES, opened }`: a literal that adds members after a spread gets a
          // new hidden class per object on Node 20's V8 (docs/performance.md).
          deferred ? { holdWrites: true, opened: nothingMore } : HOLD_WRITES,
        );
      send(res, await attempt(true).catch(againIfRefused(() => attempt(false))));
      return;
    }

    const request: ClaimRequest = {
      scope: scopeOf(req),
      key: spec.idempotencyKey,
      fingerprint: fingerprint(req.method, spec),
      now: new Date(),
    };
    let outcome: Outcome;
    try {
      outcome =
        (await this.deferred(request, forOneAttempt(handler), metadata, context.requestId)) ??
        (await this.claimFirst(request, forOneAttempt(handler), metadata, context.requestId));
    } catch (error) {
      // Another request answered the key while this one ran: the retry replays that answer.
      if (error instanceof IdempotencyClaimLostError) throw keyInUse();
      throw error;
    }
    if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
    send(res, outcome.response);
  }

  /**
   * The command first, its key checked at the end (decision 0055): a command that sends nothing but its writes
   * commits them, its answer and the key's lock as one statement; one that reads claims the key when its
   * transaction opens, with its first read. Null when the command must run again with the key claimed first:
   * its one statement was refused (the key has an answer, or is held, or a version moved on), or the domain
   * refused it before it claimed the key.
   */
  private async deferred(
    request: ClaimRequest,
    handler: Handler,
    metadata: TransactionMetadata,
    requestId: string,
  ): Promise<Outcome | null> {
    let claimed = false;
    let notClaimed: NotClaimed | null = null;
    // The claim's refusal ends the command even if something on the way swallowed the error.
    const checked: Handler = async (tx) => {
      const result = await handler(tx);
      if (notClaimed !== null) throw notClaimed;
      return result;
    };
    try {
      return await this.transactions.run(
        async (tx): Promise<Outcome> => {
          const response = await this.execute(request, checked, tx, commitWrites);
          return { replayed: false, response };
        },
        metadata,
        // HOLD_WRITES written out, as in `run`.
        {
          holdWrites: true,
          opened: async (tx) => {
            const claim = await this.store.claim(tx, request);
            if (claim.kind !== 'claimed') throw (notClaimed = new NotClaimed(claim));
            claimed = true;
          },
        },
      );
    } catch (error) {
      if (error instanceof NotClaimed) return claimOutcome(error.claim);
      if (error instanceof CommitRefusedError) return null;
      if (error instanceof Refusal) return claimed ? this.refused(request, error, requestId) : null;
      throw error;
    }
  }

  /** The key claimed first, in the command's transaction, then the command (decision 0053). */
  private async claimFirst(
    request: ClaimRequest,
    handler: Handler,
    metadata: TransactionMetadata,
    requestId: string,
  ): Promise<Outcome> {
    try {
      return await this.transactions.run(
        async (tx): Promise<Outcome> => {
          const claim = await this.store.claim(tx, request);
          if (claim.kind !== 'claimed') return claimOutcome(claim);
          // The command's held writes and its stored answer go out as one statement before `COMMIT`.
          const response = await this.execute(request, handler, tx, flushWrites);
          return { replayed: false, response };
        },
        metadata,
        HOLD_WRITES,
      );
    } catch (error) {
      if (error instanceof Refusal) return this.refused(request, error, requestId);
      throw error;
    }
  }

  /**
   * Runs the handler and holds its answer with its writes; a domain refusal, met in the handler or when the
   * writes are sent (a version that moved on), becomes a Refusal, which rolls the transaction back.
   */
  private async execute(
    request: ClaimRequest,
    handler: Handler,
    tx: PostgresTransaction,
    send: (manager: PostgresTransaction['manager']) => Promise<void>,
  ): Promise<StoredResponse> {
    try {
      const response = render(await handler(tx));
      await this.store.complete(Object.assign({}, request, { response, now: new Date() }), tx);
      await send(tx.manager);
      return response;
    } catch (error) {
      if (isDomainError(error)) throw new Refusal(error);
      throw error;
    }
  }

  /**
   * The domain refused the command: that answer is the key's result too (decision 0023), stored by itself once
   * the command's transaction is rolled back.
   */
  private async refused(request: ClaimRequest, error: Refusal, requestId: string): Promise<Outcome> {
    const rendered = toErrorResponse(error.refusal, requestId);
    const response = {
      status: rendered.status,
      headers: rendered.headers,
      body: JSON.stringify(rendered.body),
    };
    await this.store.complete(Object.assign({}, request, { response, now: new Date() }));
    return { replayed: false, response };
  }
}

type Handler = (tx: PostgresTransaction) => Promise<CommandResult>;

/**
 * The handler for one transaction attempt, let go of once its promise settles. Something on the transaction's
 * path stays reachable for V8's young-generation collections after a command, and through the handler's
 * closure it reached the whole request: every command's request outlived it until a full collection, which
 * came every few seconds under load (docs/performance.md, twenty-fourth round). A retry gets a new one.
 */
function forOneAttempt(handler: Handler): Handler {
  let held: Handler | null = handler;
  return async (tx) => {
    const run = held;
    if (run === null) throw new Error('a command attempt ran its handler twice');
    try {
      return await run(tx);
    } finally {
      held = null;
    }
  };
}

/** The attempt's work as its answer's exact bytes; made here, so its closure reaches nothing of `run`'s. */
const rendered =
  (handler: Handler) =>
  async (tx: PostgresTransaction): Promise<StoredResponse> =>
    render(await handler(tx));

/** A deferred transaction with no key has nothing to do when it opens. */
const nothingMore = async (): Promise<void> => {};

/** Runs the command again the usual way when its one statement was refused (decision 0055). */
const againIfRefused =
  <T>(again: () => Promise<T>) =>
  (error: unknown): Promise<T> => {
    if (error instanceof CommitRefusedError) return again();
    throw error;
  };

/** What a key that was not free answers: its stored answer replayed, or a conflict. */
function claimOutcome(claim: Exclude<ClaimResult, { kind: 'claimed' }>): Outcome {
  if (claim.kind === 'replay') return { replayed: true, response: claim };
  if (claim.kind === 'mismatch') {
    throw new HttpError(
      409,
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different request; use a new key for a new request.',
    );
  }
  throw keyInUse();
}

/** The key was not free when the deferred transaction opened (`CommandRunner.deferred`). */
class NotClaimed extends Error {
  constructor(readonly claim: Exclude<ClaimResult, { kind: 'claimed' }>) {
    super('the idempotency key was not free');
  }
}

/** Carries a domain refusal out of the command's transaction, rolling it back. */
class Refusal extends Error {
  constructor(readonly refusal: DomainError) {
    super('the command was refused');
  }
}

const keyInUse = () =>
  new HttpError(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry shortly.',
    { retryable: true, headers: { 'Retry-After': '1' } },
  );

/**
 * Method + operation + path parameters + canonical JSON body + If-Match, hashed: the store keeps a digest, not
 * the body (which may hold PHI).
 */
export function fingerprint(method: string, spec: CommandSpec): string {
  const text = canonicalJson([
    method.toUpperCase(),
    spec.operation,
    spec.params,
    spec.body ?? {},
    spec.ifMatch,
  ]);
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function render(result: CommandResult): StoredResponse {
  return { status: result.status, headers: result.headers, body: JSON.stringify(result.body) };
}

function send(res: Response, response: StoredResponse): void {
  sendJsonText(res.status(response.status).set(response.headers), response.body);
}
