import { randomUUID } from 'node:crypto';
import type { TenantScope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { runSql } from '../unit-of-work/sql';
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
  /** An in-flight claim older than this is presumed dead (its process crashed) and is taken over. */
  lockTimeoutMs: number;
}

export type ClaimResult =
  /** Run the command, then `complete` (or `release`) with this token. */
  | { kind: 'claimed'; claimToken: string }
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

/** The claim was taken over (its lock timed out) or released; storing now could answer a key twice. */
export class IdempotencyClaimLostError extends Error {
  constructor(key: string) {
    super(`the idempotency claim on key ${JSON.stringify(key)} is no longer held`);
    this.name = 'IdempotencyClaimLostError';
  }
}

const TAKEOVER_ATTEMPTS = 5;

/**
 * Idempotency records in PostgreSQL. `claim` and `release` always commit on their own connection, so other
 * requests see an in-flight claim at once; `complete` runs in the transaction it is given, so the stored
 * response commits with the command's changes or not at all.
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

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.guard(async () => {
      const manager = this.dataSource.manager;
      const expiresAt = this.expiry(request.now);
      // A few rounds at most: each failed round means another request changed the record meanwhile.
      for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
        const token = randomUUID();
        const inserted = await runSql(
          manager,
          `INSERT INTO idempotency_records
             (organization_id, environment, key, fingerprint, state, lock_token, locked_at, created_at, expires_at)
           VALUES ($1, $2, $3, $4, 'in_flight', $5, $6, $6, $7)
           ON CONFLICT DO NOTHING RETURNING key`,
          [...this.keyParameters(request), request.fingerprint, token, request.now, expiresAt],
          // Every command with a key begins with this statement: prepared once per connection.
          { prepared: true },
        );
        if (inserted.rowCount === 1) return { kind: 'claimed', claimToken: token };

        const record = await this.read(manager, request);
        if (record === null) continue; // released or purged in between: try to insert again

        if (record.expires_at.getTime() <= request.now.getTime()) {
          // Past retention the key is free again, whatever it held.
          const renewed = await runSql(
            manager,
            `UPDATE idempotency_records SET fingerprint = $4, state = 'in_flight', lock_token = $5, locked_at = $6,
               response_status = NULL, response_headers = NULL, response_body = NULL, completed_at = NULL,
               created_at = $6, expires_at = $7
             WHERE organization_id = $1 AND environment = $2 AND key = $3 AND expires_at <= $6`,
            [...this.keyParameters(request), request.fingerprint, token, request.now, expiresAt],
          );
          if (renewed.rowCount === 1) return { kind: 'claimed', claimToken: token };
          continue;
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
        if (request.now.getTime() - lockedAt < request.lockTimeoutMs) return { kind: 'in_flight' };

        // The holder is presumed dead: take the lock over, unless someone else just did.
        const takenOver = await runSql(
          manager,
          `UPDATE idempotency_records SET lock_token = $4, locked_at = $5
           WHERE organization_id = $1 AND environment = $2 AND key = $3
             AND state = 'in_flight' AND lock_token = $6`,
          [...this.keyParameters(request), token, request.now, record.lock_token],
        );
        if (takenOver.rowCount === 1) return { kind: 'claimed', claimToken: token };
      }
      // Constant churn on one key: answer as if it were in use, which is retryable.
      return { kind: 'in_flight' };
    });
  }

  /**
   * Stores the final response of a claim, inside `tx` (the command's transaction) or on its own when none is
   * given; throws IdempotencyClaimLostError when the claim is not held.
   */
  async complete(
    ref: IdempotencyKeyRef & { claimToken: string; response: StoredResponse; now: Date },
    tx?: PostgresTransaction,
  ): Promise<void> {
    await this.guard(async () => {
      // Held with the command's other writes when its transaction holds them (one statement for all).
      await writeSql(
        managerOf(this.dataSource, tx),
        {
          sql: `UPDATE idempotency_records SET state = 'completed', lock_token = NULL, locked_at = NULL,
           response_status = $5, response_headers = $6, response_body = $7, completed_at = $8, expires_at = $9
         WHERE organization_id = $1 AND environment = $2 AND key = $3 AND state = 'in_flight' AND lock_token = $4
         RETURNING key`,
          parameters: [
            ...this.keyParameters(ref),
            ref.claimToken,
            ref.response.status,
            JSON.stringify(ref.response.headers),
            ref.response.body,
            ref.now,
            this.expiry(ref.now),
          ],
        },
        ({ rowCount }) => {
          if (rowCount !== 1) throw new IdempotencyClaimLostError(ref.key);
        },
      );
    });
  }

  /**
   * Forgets an unfinished claim (responses that are not stored: request-validation failures, unexpected
   * errors), so the client may retry with the same key. Always on its own connection: call it after the
   * command's transaction ended. False when the claim was no longer held.
   */
  async release(ref: IdempotencyKeyRef & { claimToken: string }): Promise<boolean> {
    return this.guard(async () => {
      const { rowCount } = await runSql(
        this.dataSource.manager,
        `DELETE FROM idempotency_records
         WHERE organization_id = $1 AND environment = $2 AND key = $3 AND state = 'in_flight' AND lock_token = $4`,
        [...this.keyParameters(ref), ref.claimToken],
      );
      return rowCount === 1;
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

  private async read(manager: EntityManager, ref: IdempotencyKeyRef): Promise<IdempotencyRecordRow | null> {
    const { rows } = await runSql<IdempotencyRecordRow>(
      manager,
      `SELECT * FROM idempotency_records WHERE organization_id = $1 AND environment = $2 AND key = $3`,
      this.keyParameters(ref),
    );
    return rows[0] ?? null;
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
