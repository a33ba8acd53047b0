import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Runtime sessions (the browser session at the payer an operator or the automation uses). Kept in the shared
 * database so that any API or worker process can answer, release or open a session another one provisioned.
 * See decision 0014.
 */
export class RuntimeSessions1763743000000 implements MigrationInterface {
  name = 'RuntimeSessions1763743000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE runtime_sessions (
        organization_id text NOT NULL REFERENCES organizations(id),
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        authorization_id text NOT NULL,
        provider text NOT NULL,
        status text NOT NULL CHECK (status IN ('starting', 'active', 'ended')),
        created_at timestamptz NOT NULL,
        ended_at timestamptz,
        PRIMARY KEY (organization_id, environment, id),
        FOREIGN KEY (organization_id, environment, authorization_id)
          REFERENCES authorizations (organization_id, environment, id),
        CHECK ((status = 'ended') = (ended_at IS NOT NULL))
      )`);
    // Session ids are random and globally unique; release and open look a session up by id alone.
    await q.query('CREATE UNIQUE INDEX runtime_sessions_id_idx ON runtime_sessions (id)');
    await q.query(`CREATE INDEX runtime_sessions_live_idx
      ON runtime_sessions (organization_id, environment, authorization_id, created_at DESC)
      WHERE status <> 'ended'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE runtime_sessions');
  }
}
