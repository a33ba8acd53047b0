import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0059: a case whose questionnaire is a catalog template, shared by every case of its route version,
 * points at one stored copy (`questionnaire_documents`, keyed by a hash of its text) instead of carrying its
 * own. Rows written before keep theirs; a case with questions of its own (a payer portal's) still carries them.
 * `down` writes every shared questionnaire back into its cases before dropping the table.
 */
export class SharedQuestionnaires1763773000000 implements MigrationInterface {
  name = 'SharedQuestionnaires1763773000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE questionnaire_documents (
      id text PRIMARY KEY,
      document json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`ALTER TABLE authorizations
      ALTER COLUMN questionnaire DROP NOT NULL,
      ADD COLUMN questionnaire_id text REFERENCES questionnaire_documents (id),
      ADD CONSTRAINT authorizations_one_questionnaire
        CHECK ((questionnaire IS NULL) <> (questionnaire_id IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE authorizations a SET questionnaire = d.document, questionnaire_id = NULL
      FROM questionnaire_documents d WHERE a.questionnaire_id = d.id`);
    // The rows' deferred checks run now: a table with pending ones cannot be altered in the same transaction.
    await q.query('SET CONSTRAINTS ALL IMMEDIATE');
    await q.query(`ALTER TABLE authorizations
      DROP CONSTRAINT authorizations_one_questionnaire,
      DROP COLUMN questionnaire_id,
      ALTER COLUMN questionnaire SET NOT NULL`);
    await q.query('DROP TABLE questionnaire_documents');
  }
}
