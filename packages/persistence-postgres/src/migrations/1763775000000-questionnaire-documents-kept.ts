import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0065: a stored questionnaire is never changed or removed, as decision 0059 meant, now enforced like
 * the audit log's rows. A process that has seen one committed names it without sending its text again, which
 * is only safe while nothing can take it away.
 */
export class QuestionnaireDocumentsKept1763775000000 implements MigrationInterface {
  name = 'QuestionnaireDocumentsKept1763775000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION questionnaire_documents_kept() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'questionnaire_documents are kept as written: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`CREATE TRIGGER questionnaire_documents_no_update_or_delete
      BEFORE UPDATE OR DELETE ON questionnaire_documents
      FOR EACH ROW EXECUTE FUNCTION questionnaire_documents_kept()`);
    await q.query(`CREATE TRIGGER questionnaire_documents_no_truncate BEFORE TRUNCATE ON questionnaire_documents
      FOR EACH STATEMENT EXECUTE FUNCTION questionnaire_documents_kept()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER questionnaire_documents_no_truncate ON questionnaire_documents');
    await q.query('DROP TRIGGER questionnaire_documents_no_update_or_delete ON questionnaire_documents');
    await q.query('DROP FUNCTION questionnaire_documents_kept()');
  }
}
