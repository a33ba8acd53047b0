import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { runPreparedOn, runSql } from '../unit-of-work/sql';
import { writeSql } from '../unit-of-work/write-batch';
import { tenantParameters } from '../unit-of-work/tenant-bound';
import type { IdempotencyRecordRow } from './idempotency-record.entity';

/** Decision 0023: keys are kept at least 24 hours. */
export const MIN_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyKeyRef {
  scope: TenantScope;
  key: string;
}

export interface ClaimRequest extends IdempotencyKeyRef {
  /** Method + route + canonical body (+ If-Match); computed by the API. */
  fingerprint: string;
  now: Date;
}

export type ClaimResult =
  /** Run the command in the same transaction, then `complete` it there. */
  | { kind: 'claimed' }
  /** Answer exactly this, with `Idempotent-Replayed: true`. */
  | { kind: 'replay'; status: number; headers: Record<string, string>; body: string }
  /** 409 idempotency_key_in_use, retryable. */
  | { kind: 'in_flight' }
  /** 409 idempotency_key_reused. */
  | { kind: 'mismatch' };

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Another request stored an answer for the key first; storing this one would answer the key twice. */
export class IdempotencyClaimLostError extends Error {
  constructor(key: string) {
    super(`the idempotency key ${JSON.stringify(key)} was answered by another request`);
    this.name = 'IdempotencyClaimLostError';
  }
}

/**
 * The advisory-lock class of idempotency keys: locks taken with two int4 keys never meet the single-bigint ones
 * other code (the job queue) takes, and this first key keeps them apart from any other two-key user.
 */
const KEY_LOCK_CLASS = 0x1de7;

/** Takes the key's lock for the transaction, without waiting; $1–$3 are the key, $4 its class. */
const KEY_LOCK_SQL =
  "pg_try_advisory_xact_lock($4::int, hashtext($1::text || '/' || $2::text || '/' || $3::text))";

/**
 * A claim written by an earlier version of the service (`state = 'in_flight'`, committed on its own) is presumed
 * dead after this long and answered over; such rows only exist while such a version still runs.
 */
export const LEGACY_CLAIM_TIMEOUT_MS = 60_000;

interface ClaimRow {
  locked: boolean;
  fingerprint: string | null;
  state: IdempotencyRecordRow['state'] | null;
  locked_at: Date | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  expires_at: Date | null;
}

/**
 * Idempotency records in PostgreSQL (decision 0053). A key is claimed inside the command's own transaction:
 * `claim` takes a transaction-scoped advisory lock on the key, without waiting, and reads its record in the same
 * statement; `complete` writes the answer with the command's other writes. So a command with a key costs one
 * statement more than one without, not a committed claim of its own; a concurrent request for the key
 * finds the lock taken (in flight); and a process that dies mid-command leaves nothing behind, because its
 * transaction and the lock end with its connection.
 */
export class PostgresIdempotencyStore {
  private readonly retentionMs: number;

  constructor(
    private readonly dataSource: DataSource,
    options: { retentionMs?: number } = {},
  ) {
    this.retentionMs = options.retentionMs ?? MIN_IDEMPOTENCY_RETENTION_MS;
    if (this.retentionMs < MIN_IDEMPOTENCY_RETENTION_MS) {
      throw new RangeError('idempotency keys must be kept at least 24 hours');
    }
  }

  /**
   * Claims the key for a command running in `tx`, until `tx` ends. The record is read in the statement that
   * takes the lock, so a request that commits its answer between that statement's start and the lock is not
   * seen: the claimant then runs the command and `complete` refuses it (IdempotencyClaimLostError), rolling it
   * back.
   */
  async claim(tx: PostgresTransaction, request: ClaimRequest): Promise<ClaimResult> {
    return this.guard(async () => {
      const runner = tx.manager.queryRunner;
      if (runner === undefined) throw new Error("an idempotency claim needs the command's transaction");
      const { rows } = await runPreparedOn<ClaimRow>(
        runner,
        `SELECT ${KEY_LOCK_SQL} AS locked,
           r.fingerprint, r.state, r.locked_at, r.response_status, r.response_headers, r.response_body,
           r.expires_at
         FROM (SELECT 1) AS one
         LEFT JOIN idempotency_records r ON r.organization_id = $1 AND r.environment = $2 AND r.key = $3`,
        [...this.keyParameters(request), KEY_LOCK_CLASS],
      );
      const record = rows[0];
      if (record === undefined || !record.locked) return { kind: 'in_flight' };
      if (record.state === null || (record.expires_at?.getTime() ?? 0) <= request.now.getTime()) {
        // No record, or one past retention: the key is free again, whatever it held.
        return { kind: 'claimed' };
      }
      if (record.fingerprint !== request.fingerprint) return { kind: 'mismatch' };
      if (record.state === 'completed') {
        return {
          kind: 'replay',
          status: record.response_status ?? 500,
          headers: record.response_headers ?? {},
          body: record.response_body ?? '',
        };
      }
      const lockedAt = record.locked_at?.getTime() ?? 0;
      return request.now.getTime() - lockedAt < LEGACY_CLAIM_TIMEOUT_MS
        ? { kind: 'in_flight' }
        : { kind: 'claimed' };
    });
  }

  /**
   * Stores the final response of a claimed key: inside `tx` (the command's transaction, held with its other
   * writes), or on its own when none is given (a refusal, stored once the command's transaction rolled back).
   * Throws IdempotencyClaimLostError when another request answered the key first.
   */
  async complete(
    request: ClaimRequest & { response: StoredResponse },
    tx?: PostgresTransaction,
  ): Promise<void> {
    await this.guard(async () => {
      await writeSql(
        managerOf(this.dataSource, tx),
        {
          // Over a record past retention or a dead claim of an earlier version, never over a live answer.
          sql: `INSERT INTO idempotency_records AS r (organization_id, environment, key, fingerprint, state,
             response_status, response_headers, response_body, created_at, completed_at, expires_at)
           VALUES ($1, $2, $3, $4, 'completed', $5, $6, $7, $8, $8, $9)
           ON CONFLICT (organization_id, environment, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
             state = 'completed', lock_token = NULL, locked_at = NULL, response_status = EXCLUDED.response_status,
             response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body,
             created_at = EXCLUDED.created_at, completed_at = EXCLUDED.completed_at, expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= EXCLUDED.created_at OR (r.state = 'in_flight' AND r.locked_at <= $10)
           RETURNING key`,
          parameters: [
            ...this.keyParameters(request),
            request.fingerprint,
            request.response.status,
            JSON.stringify(request.response.headers),
            request.response.body,
            request.now,
            this.expiry(request.now),
            new Date(request.now.getTime() - LEGACY_CLAIM_TIMEOUT_MS),
          ],
        },
        ({ rowCount }) => {
          if (rowCount !== 1) throw new IdempotencyClaimLostError(request.key);
        },
        // Committed alone (decision 0055), the answer is the claim: the key's lock is taken in its statement.
        {
          expect: 'rows',
          condition: { sql: KEY_LOCK_SQL, parameters: [...this.keyParameters(request), KEY_LOCK_CLASS] },
        },
      );
    });
  }

  /**
   * Deletes records past their retention, in batches so a backlog never holds long locks; returns the count.
   * One purge runs at a time in the cluster (a pg-boss schedule on a singleton queue, decision 0016).
   */
  async purgeExpired(now: Date, batchSize = 1_000): Promise<number> {
    return this.guard(async () => {
      let total = 0;
      for (;;) {
        const { rowCount } = await runSql(
          this.dataSource.manager,
          `DELETE FROM idempotency_records WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM idempotency_records WHERE expires_at <= $1 LIMIT $2))`,
          [now, batchSize],
        );
        total += rowCount;
        if (rowCount < batchSize) return total;
      }
    });
  }

  private expiry(now: Date): Date {
    return new Date(now.getTime() + this.retentionMs);
  }

  private keyParameters(ref: IdempotencyKeyRef): [string, string, string] {
    return [...tenantParameters(ref.scope), ref.key];
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
