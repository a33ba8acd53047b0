import { isDatabaseUnavailable } from '@prior-auth/persistence-postgres';
import type { Logger } from '@prior-auth/platform';
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { HttpError } from './http-error';
import { LeasedRateLimiter } from './leased-rate-limiter';
import { requestContext } from './request-context';

/** The shared counters (migration 1763757000000): every API process on the database counts in the same rows. */
const TABLE = 'api_rate_limits';
/** The burst allowance above the per-second rate refills once per this many seconds (decision 0035). */
export const BURST_REFILL_SECONDS = 10;
const BLOCKED_ADDRESSES = 10_000;
/**
 * A process leases a twentieth of a key's per-second budget from the shared counter at a time (decision 0035):
 * one round trip per 5 requests at the default budget, and at most 4 points per process and second left
 * unspent. A budget under 20 leases one point at a time, which is a round trip per request as before.
 */
export const LEASE_FRACTION = 20;

export interface RateLimitSettings {
  /** Requests per second per API key; 0 turns the per-key budget off. */
  perSecond: number;
  /** The most requests a key may make within one second (≥ perSecond). */
  burst: number;
  /** Requests refused for a missing or bad API key per client address per minute, before the address is refused. */
  authFailuresPerMinute: number;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

const tooManyRequests = (message: string, retryAfterMs: number, headers: Record<string, string> = {}) =>
  new HttpError(429, 'rate_limited', message, {
    retryable: true,
    details: { retryAfterSeconds: seconds(retryAfterMs) },
    headers: { ...headers, 'Retry-After': String(seconds(retryAfterMs)) },
  });

/**
 * Decision 24 of the spec's binding decisions and decision 0035: each API key's budget, and a limit on requests
 * refused for want of a valid key per client address, counted in PostgreSQL by `rate-limiter-flexible` so the
 * limits hold across API processes. A process keeps the part of a key's window it leased from the shared
 * counter (`LeasedRateLimiter`), so most requests cost no round trip, and which addresses it saw go over their
 * limit (until their window ends), so a refused address costs none either; another process learns it on that
 * address's next failure there.
 */
export class ApiRateLimits {
  private readonly keyLimiter: LeasedRateLimiter | null;
  private readonly addressLimiter: RateLimiterPostgres;
  private readonly blockedUntil = new LRUCache<string, number>({ max: BLOCKED_ADDRESSES });

  constructor(
    dataSource: DataSource,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {
    const store = { storeClient: dataSource, storeType: 'typeorm', tableName: TABLE, tableCreated: true };
    if (settings.perSecond > 0) {
      const perSecond = new RateLimiterPostgres({
        ...store,
        keyPrefix: 'key',
        points: settings.perSecond,
        duration: 1,
      });
      const extra = settings.burst - settings.perSecond;
      const perRequest =
        extra > 0
          ? new BurstyRateLimiter(
              perSecond,
              new RateLimiterPostgres({
                ...store,
                keyPrefix: 'key-burst',
                points: extra,
                duration: BURST_REFILL_SECONDS,
              }),
            )
          : perSecond;
      this.keyLimiter = new LeasedRateLimiter(
        perSecond,
        Math.max(1, Math.floor(settings.perSecond / LEASE_FRACTION)),
        (key) => perRequest.consume(key),
      );
    } else {
      this.keyLimiter = null;
    }
    this.addressLimiter = new RateLimiterPostgres({
      ...store,
      keyPrefix: 'auth-failure',
      points: settings.authFailuresPerMinute,
      duration: 60,
    });
  }

  /** Before authentication: an address over its failure limit is refused without looking at its key. */
  readonly addressGate: RequestHandler = (req, _res, next) => {
    const address = clientAddress(req);
    const until = this.blockedUntil.get(address);
    if (until === undefined) return next();
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return next();
    }
    next(this.addressRefusal(left));
  };

  /**
   * Counts one refused authentication for the request's address: the refusal to answer, a 401 while the
   * address is within its limit, a 429 once over it.
   */
  async authenticationFailed(req: Request, unauthorized: HttpError): Promise<HttpError> {
    const address = clientAddress(req);
    try {
      await this.addressLimiter.consume(address);
      return unauthorized;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        this.unavailable(rejection, 'address');
        return unauthorized;
      }
      this.blockedUntil.set(address, Date.now() + rejection.msBeforeNext);
      return this.addressRefusal(rejection.msBeforeNext);
    }
  }

  /** Behind authentication: spends one request of the key's budget and names what is left in headers. */
  readonly keyBudget: RequestHandler = (req, res, next) => {
    const limiter = this.keyLimiter;
    const auth = requestContext(req).auth;
    if (!limiter || !auth) return next();
    limiter.consume(auth.apiKeyId).then(
      (result) => {
        this.announce(res, result);
        next();
      },
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) {
          // The counters live in the database the request needs anyway: a failing database is answered by
          // the request itself (503, its outage logged once, decision 0015), not by the limit.
          this.unavailable(rejection, 'key');
          return next();
        }
        this.announce(res, rejection);
        next(
          tooManyRequests(
            `This API key is over its budget of ${this.settings.perSecond} requests per second ` +
              `(burst ${Math.max(this.settings.burst, this.settings.perSecond)}); retry after Retry-After.`,
            rejection.msBeforeNext,
          ),
        );
      },
    );
  };

  /** A counter that could not be read: said only when the database itself answers (not during an outage). */
  private unavailable(error: unknown, counter: 'key' | 'address'): void {
    if (isDatabaseUnavailable(error)) return;
    this.logger.warn({ err: error }, `rate limit: ${counter} counter unavailable; request let through`);
  }

  private announce(res: Response, result: RateLimiterRes): void {
    res.setHeader('RateLimit-Limit', String(this.settings.perSecond));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, result.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(seconds(Math.max(0, result.msBeforeNext))));
  }

  private addressRefusal(retryAfterMs: number): HttpError {
    return tooManyRequests(
      `Too many requests without a valid API key from this address (more than ` +
        `${this.settings.authFailuresPerMinute} a minute); retry after Retry-After.`,
      retryAfterMs,
    );
  }
}

/** The connecting address (the API trusts no forwarding headers: `trust proxy` is off). */
const clientAddress = (req: Request): string => req.socket.remoteAddress ?? 'unknown';
