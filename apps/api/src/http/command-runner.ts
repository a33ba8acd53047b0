import { createHash } from 'node:crypto';
import { isDomainError, type DomainError } from '@prior-auth/domain';
import {
  flushWrites,
  IdempotencyClaimLostError,
  type PostgresIdempotencyStore,
  type PostgresTransaction,
  type StoredResponse,
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
 * Decision 0023, implemented once for every command (decision 0053 for where the key is claimed):
 *
 * 1. The caller validates the request (headers, body, If-Match syntax) before calling `run`: those failures
 *    are never stored, and no key is claimed for them.
 * 2. The runner opens the command's transaction. With a key, it first claims the key there
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

  async run(
    req: Request,
    res: Response,
    spec: CommandSpec,
    handler: (tx: PostgresTransaction) => Promise<CommandResult>,
  ): Promise<void> {
    const context = requestContext(req);
    const metadata = {
      actor: `api_key:${context.auth?.apiKeyId ?? 'unknown'}`,
      requestId: context.requestId,
    };
    if (spec.idempotencyKey === null) {
      send(res, await this.transactions.run(async (tx) => render(await handler(tx)), metadata, HOLD_WRITES));
      return;
    }

    const request = {
      scope: scopeOf(req),
      key: spec.idempotencyKey,
      fingerprint: fingerprint(req.method, spec),
      now: new Date(),
    };
    let outcome: Outcome;
    try {
      outcome = await this.transactions
        .run(
          async (tx): Promise<Outcome> => {
            const claim = await this.store.claim(tx, request);
            if (claim.kind === 'replay') return { replayed: true, response: claim };
            if (claim.kind === 'mismatch') {
              throw new HttpError(
                409,
                'idempotency_key_reused',
                'This Idempotency-Key was already used for a different request; use a new key for a new request.',
              );
            }
            if (claim.kind === 'in_flight') throw keyInUse();
            try {
              const response = render(await handler(tx));
              await this.store.complete({ ...request, response, now: new Date() }, tx);
              // The command's held writes and its stored answer go out as one statement; a write refused there
              // (a version that moved on) is a refusal like one the handler met.
              await flushWrites(tx.manager);
              return { replayed: false, response };
            } catch (error) {
              // Rolls back whatever the refused command wrote before it was refused.
              if (isDomainError(error)) throw new Refusal(error);
              throw error;
            }
          },
          metadata,
          HOLD_WRITES,
        )
        .catch(async (error: unknown): Promise<Outcome> => {
          if (!(error instanceof Refusal)) throw error;
          // The domain refused the command: that answer is the key's result too (decision 0023), stored by
          // itself once the command's transaction is rolled back.
          const rendered = toErrorResponse(error.refusal, context.requestId);
          const response = {
            status: rendered.status,
            headers: rendered.headers,
            body: JSON.stringify(rendered.body),
          };
          await this.store.complete({ ...request, response, now: new Date() });
          return { replayed: false, response };
        });
    } catch (error) {
      // Another request answered the key while this one ran: the retry replays that answer.
      if (error instanceof IdempotencyClaimLostError) throw keyInUse();
      throw error;
    }
    if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
    send(res, outcome.response);
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
