import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each payer-portal run captured (decision 0020): one row per screenshot, confirmation page (HTML, image,
 * PDF) or decision letter, naming its `payer_evidence` file and the blob key of its bytes. Internal: never
 * presented. Composite foreign keys keep a row inside its tenant, like attachments (decision 0010).
 */
export class PayerEvidence1763750000000 implements MigrationInterface {
  name = 'PayerEvidence1763750000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE payer_evidence (
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        authorization_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('step_screenshot', 'confirmation_html', 'confirmation_image',
          'confirmation_pdf', 'decision_letter')),
        step text NOT NULL,
        captured_at timestamptz NOT NULL,
        file_id text NOT NULL,
        blob_key text NOT NULL,
        recorded_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, id),
        FOREIGN KEY (organization_id, environment, authorization_id)
          REFERENCES authorizations (organization_id, environment, id),
        FOREIGN KEY (organization_id, environment, file_id) REFERENCES files (organization_id, environment, id)
      )`);
    await q.query(
      `CREATE INDEX payer_evidence_authorization_idx
         ON payer_evidence (organization_id, environment, authorization_id, captured_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE payer_evidence');
  }
}
