import { createHash, randomBytes } from 'node:crypto';
import { SANDBOX_PAYER_DEMO_ACCOUNT, SANDBOX_PAYER_LOCKED_ACCOUNT } from '@prior-auth/payer-portal';
import { Pool, type PoolClient } from 'pg';

/** A sign-in the website accepts. The demo account is what sandbox `automated` runs sign in with. */
export interface SandboxAccount {
  username: string;
  password: string;
  totpSecret: string;
  locked: boolean;
}

/** The documented demo account (sandbox `automated` runs sign in with it), defined beside its page script. */
export const DEMO_ACCOUNT: SandboxAccount = Object.freeze({ ...SANDBOX_PAYER_DEMO_ACCOUNT, locked: false });

/** An account the payer has locked: the right password shows the locked-account page. */
export const LOCKED_ACCOUNT: SandboxAccount = Object.freeze({
  ...SANDBOX_PAYER_LOCKED_ACCOUNT,
  locked: true,
});

export interface SessionRow {
  id: string;
  username: string;
  mfaPassed: boolean;
  draft: Draft;
}

export interface DraftDocument {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  documentType: string;
}

/** The request a signed-in user is filling in, kept with the session (a real portal keeps it server-side too). */
export interface Draft {
  providerNpi?: string;
  memberId?: string;
  birthDate?: string;
  scenario?: string;
  started?: boolean;
  service?: Record<string, string>;
  clinical?: string;
  documents?: DraftDocument[];
}

export interface RequestRow {
  referenceNumber: string;
  externalKey: string;
  username: string;
  providerNpi: string;
  memberId: string;
  scenario: string;
  form: Record<string, unknown>;
  documents: DraftDocument[];
  receivedAt: Date;
}

const SCHEMA = 'payer_sandbox';
// Any constant works: it only serialises concurrent start-ups of the website on one database.
const SCHEMA_LOCK = 0x5041_5945;

const DDL = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE TABLE IF NOT EXISTS ${SCHEMA}.accounts (
  username text PRIMARY KEY,
  password_sha256 text NOT NULL,
  totp_secret text NOT NULL,
  locked boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.sessions (
  id text PRIMARY KEY,
  username text NOT NULL,
  mfa_passed boolean NOT NULL DEFAULT false,
  draft jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.requests (
  reference_number text PRIMARY KEY,
  external_key text NOT NULL,
  username text NOT NULL,
  provider_npi text NOT NULL,
  member_id text NOT NULL,
  scenario text NOT NULL,
  form jsonb NOT NULL,
  documents jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS requests_external_key_idx ON ${SCHEMA}.requests (external_key);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.used_codes (
  username text NOT NULL,
  time_step bigint NOT NULL,
  PRIMARY KEY (username, time_step)
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.fault_counters (
  external_key text NOT NULL,
  fault text NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (external_key, fault)
);
`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The website's state in its own schema of PostgreSQL, so it survives restarts and serves several processes. */
export class SandboxStore {
  private constructor(private readonly pool: Pool) {}

  /**
   * Creates the schema idempotently; an advisory lock keeps concurrent start-ups from racing on it.
   * `applicationName` names its connections on the server.
   */
  static async open(
    databaseUrl: string,
    accounts: SandboxAccount[],
    applicationName = 'payer-sandbox',
  ): Promise<SandboxStore> {
    const pool = new Pool({ connectionString: databaseUrl, max: 5, application_name: applicationName });
    // A connection waiting idle in the pool can be ended by the server (a restart, a shutdown): the pool drops it
    // and opens another for the next query. Unlistened, that error would end the whole process.
    pool.on('error', () => undefined);
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
      try {
        await client.query(DDL);
        for (const account of accounts) await upsertAccount(client, account);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]);
      }
    } catch (error) {
      client.release();
      await pool.end();
      throw error;
    }
    client.release();
    return new SandboxStore(pool);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async account(
    username: string,
  ): Promise<{ passwordSha256: string; totpSecret: string; locked: boolean } | null> {
    const { rows } = await this.pool.query(
      `SELECT password_sha256, totp_secret, locked FROM ${SCHEMA}.accounts WHERE username = $1`,
      [username],
    );
    const row = rows[0];
    return row
      ? { passwordSha256: row.password_sha256, totpSecret: row.totp_secret, locked: row.locked }
      : null;
  }

  passwordMatches(stored: string, password: string): boolean {
    return stored === sha256(password);
  }

  /**
   * Spends the user's one-time code of a time step: true the first time, false when that code was already used
   * (RFC 6238 section 5.2). Steps older than the accepted window are forgotten on the way.
   */
  async useCode(username: string, timeStep: number): Promise<boolean> {
    await this.pool.query(`DELETE FROM ${SCHEMA}.used_codes WHERE username = $1 AND time_step < $2`, [
      username,
      timeStep - 2,
    ]);
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${SCHEMA}.used_codes (username, time_step) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [username, timeStep],
    );
    return rowCount === 1;
  }

  async createSession(username: string): Promise<string> {
    const id = randomBytes(24).toString('base64url');
    await this.pool.query(`INSERT INTO ${SCHEMA}.sessions (id, username) VALUES ($1, $2)`, [id, username]);
    return id;
  }

  /** A live session (idle for less than `idleMs`), touched. */
  async session(id: string, idleMs: number): Promise<SessionRow | null> {
    const { rows } = await this.pool.query(
      `UPDATE ${SCHEMA}.sessions SET last_seen_at = now()
        WHERE id = $1 AND last_seen_at > now() - make_interval(secs => $2::double precision / 1000)
        RETURNING id, username, mfa_passed, draft`,
      [id, idleMs],
    );
    const row = rows[0];
    return row ? { id: row.id, username: row.username, mfaPassed: row.mfa_passed, draft: row.draft } : null;
  }

  async passMfa(id: string): Promise<void> {
    await this.pool.query(`UPDATE ${SCHEMA}.sessions SET mfa_passed = true WHERE id = $1`, [id]);
  }

  async saveDraft(id: string, draft: Draft): Promise<void> {
    await this.pool.query(`UPDATE ${SCHEMA}.sessions SET draft = $2 WHERE id = $1`, [
      id,
      JSON.stringify(draft),
    ]);
  }

  async endSession(id: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${SCHEMA}.sessions WHERE id = $1`, [id]);
  }

  /** Counts one more occurrence of a fault for a request key and answers the new count. */
  async bumpFault(externalKey: string, fault: string): Promise<number> {
    const { rows } = await this.pool.query(
      `INSERT INTO ${SCHEMA}.fault_counters (external_key, fault, count) VALUES ($1, $2, 1)
       ON CONFLICT (external_key, fault) DO UPDATE SET count = ${SCHEMA}.fault_counters.count + 1
       RETURNING count`,
      [externalKey, fault],
    );
    return rows[0].count as number;
  }

  async faultCount(externalKey: string, fault: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT count FROM ${SCHEMA}.fault_counters WHERE external_key = $1 AND fault = $2`,
      [externalKey, fault],
    );
    return (rows[0]?.count as number | undefined) ?? 0;
  }

  async insertRequest(request: Omit<RequestRow, 'receivedAt' | 'referenceNumber'>): Promise<RequestRow> {
    const referenceNumber = `PSX-${randomBytes(5).toString('hex').toUpperCase()}`;
    const { rows } = await this.pool.query(
      `INSERT INTO ${SCHEMA}.requests
         (reference_number, external_key, username, provider_npi, member_id, scenario, form, documents)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING received_at`,
      [
        referenceNumber,
        request.externalKey,
        request.username,
        request.providerNpi,
        request.memberId,
        request.scenario,
        JSON.stringify(request.form),
        JSON.stringify(request.documents),
      ],
    );
    return { ...request, referenceNumber, receivedAt: rows[0].received_at as Date };
  }

  async request(referenceNumber: string, username: string): Promise<RequestRow | null> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${SCHEMA}.requests WHERE reference_number = $1 AND username = $2`,
      [referenceNumber.trim().toUpperCase(), username],
    );
    return rows[0] ? toRequest(rows[0]) : null;
  }

  async requestsByKey(externalKey: string, username: string): Promise<RequestRow[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${SCHEMA}.requests WHERE external_key = $1 AND username = $2 ORDER BY received_at`,
      [externalKey.trim(), username],
    );
    return rows.map(toRequest);
  }

  /** How many requests were submitted under a key, by anyone: what tests read to prove "exactly one". */
  async submissionCount(externalKey: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.requests WHERE external_key = $1`,
      [externalKey],
    );
    return rows[0].n as number;
  }
}

async function upsertAccount(client: PoolClient, account: SandboxAccount): Promise<void> {
  await client.query(
    `INSERT INTO ${SCHEMA}.accounts (username, password_sha256, totp_secret, locked) VALUES ($1, $2, $3, $4)
     ON CONFLICT (username) DO UPDATE
       SET password_sha256 = EXCLUDED.password_sha256, totp_secret = EXCLUDED.totp_secret, locked = EXCLUDED.locked`,
    [account.username, sha256(account.password), account.totpSecret, account.locked],
  );
}

function toRequest(row: Record<string, unknown>): RequestRow {
  return {
    referenceNumber: row.reference_number as string,
    externalKey: row.external_key as string,
    username: row.username as string,
    providerNpi: row.provider_npi as string,
    memberId: row.member_id as string,
    scenario: row.scenario as string,
    form: row.form as Record<string, unknown>,
    documents: row.documents as DraftDocument[],
    receivedAt: row.received_at as Date,
  };
}
