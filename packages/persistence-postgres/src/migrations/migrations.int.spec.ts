import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { createDataSource } from '../database/data-source';
import { migrate } from '../database/migration-runner';
import { DomainEventsInAuditLog1763769000000 } from './1763769000000-domain-events-in-audit-log';
import { CaseDocumentsAsJson1763771000000 } from './1763771000000-case-documents-as-json';
import { SharedQuestionnaires1763773000000 } from './1763773000000-shared-questionnaires';
import { SnapshotQuestionnaireReferences1763774000000 } from './1763774000000-snapshot-questionnaire-references';
import { QuestionnaireDocumentsKept1763775000000 } from './1763775000000-questionnaire-documents-kept';
import { MIGRATIONS } from './index';

const TABLES = [
  'access_grant_openings',
  'access_grants',
  'audit_log',
  'authorization_attachments',
  'authorizations',
  'events',
  'files',
  'idempotency_records',
  'manual_handoffs',
  'review_snapshots',
  'runtime_sessions',
  'webhook_endpoints',
];

// Every migration after the catalog one must revert cleanly, newest first, and apply again. A fresh database
// with every migration applied twice takes seconds alone and more beside other suites on a loaded machine.
const MIGRATIONS_TIMEOUT_MS = 60_000;

/** A freshly created database with every migration applied, dropped after `work`. */
async function withMigratedDatabase(work: (dataSource: DataSource) => Promise<void>): Promise<void> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `prior_auth_schema_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const dataSource = createDataSource({ url: url.toString(), poolSize: 2 });
  try {
    await dataSource.initialize();
    await migrate(dataSource);
    await work(dataSource);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs `work` on a query runner inside a transaction that is rolled back afterwards. */
async function rolledBack(
  dataSource: DataSource,
  work: (runner: QueryRunner) => Promise<void>,
): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    await work(runner);
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    await runner.release();
  }
}

describe('schema migrations', () => {
  it(
    'revert cleanly and apply again on a migrated database',
    () =>
      withMigratedDatabase(async (dataSource) => {
        const tables = async () =>
          (
            await dataSource.query(
              `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = ANY($1)
             ORDER BY table_name`,
              [TABLES],
            )
          ).map((row: { table_name: string }) => row.table_name);
        expect(await tables()).toEqual(TABLES);

        const runner = dataSource.createQueryRunner();
        try {
          await runner.startTransaction();
          const reverted = MIGRATIONS.slice(1).map((Migration) => new Migration());
          for (const migration of [...reverted].reverse()) await migration.down(runner);
          expect(
            await runner.query(
              `SELECT to_regclass('authorizations') AS t, to_regprocedure('audit_log_append_only()') AS f`,
            ),
          ).toEqual([{ t: null, f: null }]);
          for (const migration of reverted) await migration.up(runner);
          await runner.commitTransaction();
        } finally {
          await runner.release();
        }
        expect(await tables()).toEqual(TABLES);
      }),
    MIGRATIONS_TIMEOUT_MS,
  );

  it(
    'store the case documents uncompressed (decisions 0051, 0060): rows up to a page inline, larger ones out of line',
    () =>
      withMigratedDatabase(async (dataSource) => {
        expect(
          await dataSource.query(
            `SELECT relname, reloptions FROM pg_class
              WHERE relname IN ('authorizations', 'events', 'idempotency_records') ORDER BY relname`,
          ),
        ).toEqual([
          { relname: 'authorizations', reloptions: ['toast_tuple_target=8160'] },
          { relname: 'events', reloptions: ['toast_tuple_target=8160'] },
          { relname: 'idempotency_records', reloptions: ['toast_tuple_target=8160'] },
        ]);
        expect(
          await dataSource.query(
            `SELECT attstorage FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'snapshot'`,
          ),
        ).toEqual([{ attstorage: 'e' }]);
        // A stored answer of 6,000 very compressible bytes is kept as it is.
        await rolledBack(dataSource, async (runner) => {
          await runner.query(
            `INSERT INTO idempotency_records (organization_id, environment, key, fingerprint, state, response_status,
                                              response_headers, response_body, created_at, completed_at, expires_at)
             VALUES ('org_1', 'sandbox', 'k_1', 'sha256:x', 'completed', 201, '{}', repeat('0123456789', 600), now(),
                     now(), now() + interval '1 day')`,
          );
          expect(
            await runner.query(
              `SELECT pg_column_compression(response_body) AS compression, octet_length(response_body) AS length
                 FROM idempotency_records WHERE key = 'k_1'`,
            ),
          ).toEqual([{ compression: null, length: 6000 }]);
          // A snapshot of 4,000 bytes stays in its row, uncompressed; one of 9,000 goes out of line, uncompressed.
          const [toastTable] = (await runner.query(
            `SELECT reltoastrelid::regclass::text AS toast FROM pg_class WHERE relname = 'events'`,
          )) as Array<{ toast: string }>;
          const snapshotOf = (bytes: number) => JSON.stringify({ kind: 'x', text: '7'.repeat(bytes - 22) });
          for (const [id, bytes] of [
            ['evt_small', 4_000],
            ['evt_large', 9_000],
          ] as const) {
            await runner.query(
              `INSERT INTO events (id, organization_id, environment, type, created_at, snapshot)
               VALUES ($1, 'org_1', 'sandbox', 'authorization.updated', now(), $2)`,
              [id, snapshotOf(bytes)],
            );
          }
          expect(
            await runner.query(
              `SELECT id, pg_column_compression(snapshot) AS compression, octet_length(snapshot::text) AS length
                 FROM events ORDER BY id`,
            ),
          ).toEqual([
            { id: 'evt_large', compression: null, length: 9_000 },
            { id: 'evt_small', compression: null, length: 4_000 },
          ]);
          expect(
            await runner.query(`SELECT count(DISTINCT chunk_id)::int AS values FROM ${toastTable!.toast}`),
          ).toEqual([{ values: 1 }]);
        });
      }),
    MIGRATIONS_TIMEOUT_MS,
  );

  it(
    'keep the case documents as json (decision 0054), and the documents stored before it as they were',
    () =>
      withMigratedDatabase((dataSource) =>
        rolledBack(dataSource, async (runner) => {
          const documentTypes = () =>
            runner.query(
              `SELECT table_name, data_type, count(*)::int AS columns FROM information_schema.columns
                WHERE table_schema = 'public' AND data_type IN ('json', 'jsonb')
                  AND (table_name = 'authorizations' OR (table_name = 'events' AND column_name = 'snapshot'))
                GROUP BY table_name, data_type ORDER BY table_name`,
            );
          expect(await documentTypes()).toEqual([
            { table_name: 'authorizations', data_type: 'json', columns: 11 },
            { table_name: 'events', data_type: 'json', columns: 1 },
          ]);
          const migration = new CaseDocumentsAsJson1763771000000();
          await migration.down(runner);
          expect(await documentTypes()).toEqual([
            { table_name: 'authorizations', data_type: 'jsonb', columns: 11 },
            { table_name: 'events', data_type: 'jsonb', columns: 1 },
          ]);
          // A snapshot written as jsonb before the migration reads back the same after it.
          const snapshot = {
            kind: 'authorization',
            authorization: { id: 'auth_1', note: 'é 🩺 "q"', n: [1, 2.5] },
          };
          await runner.query(
            `INSERT INTO events (id, organization_id, environment, type, authorization_id, created_at, snapshot)
             VALUES ('evt_1', 'org_1', 'sandbox', 'authorization.created', 'auth_1', now(), $1)`,
            [JSON.stringify(snapshot)],
          );
          await migration.up(runner);
          expect(await documentTypes()).toEqual([
            { table_name: 'authorizations', data_type: 'json', columns: 11 },
            { table_name: 'events', data_type: 'json', columns: 1 },
          ]);
          expect(await runner.query(`SELECT snapshot FROM events WHERE id = 'evt_1'`)).toEqual([
            { snapshot },
          ]);
          expect(
            await runner.query(
              `SELECT attstorage FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'snapshot'`,
            ),
          ).toEqual([{ attstorage: 'e' }]);
        }),
      ),
    MIGRATIONS_TIMEOUT_MS,
  );

  it(
    'point cases and snapshots at one shared questionnaire (decisions 0059, 0060), and write it back when reverted',
    () =>
      withMigratedDatabase((dataSource) =>
        rolledBack(dataSource, async (runner) => {
          // As the schema was then: only the foreign keys kept a stored questionnaire.
          await new QuestionnaireDocumentsKept1763775000000().down(runner);
          const questionnaire = { id: 'tmpl_1', title: 'CPAP — “device”', groups: [] };
          await runner.query(`INSERT INTO organizations (id, name) VALUES ('org_1', 'Clinic')`);
          await runner.query(`INSERT INTO questionnaire_documents (id, document) VALUES ('qst_1', $1)`, [
            JSON.stringify(questionnaire),
          ]);
          const insertCase = (id: string, own: object | null, shared: string | null) =>
            runner.query(
              `INSERT INTO authorizations (organization_id, environment, id, version, status, provider_npi, payer_id,
                 route_id, portal_auth_mode, policy, payer, template_selection, questionnaire, questionnaire_id,
                 document_requirements, questionnaire_response, questionnaire_response_version, attachment_version,
                 requirements, submission, created_at, updated_at)
               VALUES ('org_1', 'sandbox', $1, 1, 'requires_input', '1234567893', 'payer_uhc', 'route_1', 'automated',
                 '{}', '{}', '{}', $2, $3, '[]', '{"item":[]}', 1, 1, '{}', '{}', now(), now())`,
              [id, own === null ? null : JSON.stringify(own), shared],
            );
          await insertCase('auth_shared', null, 'qst_1');
          await insertCase('auth_own', { id: 'own', groups: [] }, null);
          // Exactly one of the two: a case cannot have both, or neither.
          await expect(
            runner.query('SAVEPOINT s1').then(() => insertCase('auth_both', questionnaire, 'qst_1')),
          ).rejects.toThrow(/authorizations_one_questionnaire/);
          await runner.query('ROLLBACK TO SAVEPOINT s1');
          // A shared questionnaire some case points at cannot be removed.
          await expect(
            runner.query('SAVEPOINT s2').then(() => runner.query(`DELETE FROM questionnaire_documents`)),
          ).rejects.toThrow(/foreign key/);
          await runner.query('ROLLBACK TO SAVEPOINT s2');

          // An event's snapshot points at it by a tag and the row's column (decision 0060).
          const insertEvent = (
            id: string,
            snapshot: string | null,
            questionnaireId: string | null,
            heldBy: string | null = null,
          ) =>
            runner.query(
              `INSERT INTO events (id, organization_id, environment, type, authorization_id, created_at, snapshot,
                 snapshot_event_id, snapshot_questionnaire_id)
               VALUES ($1, 'org_1', 'sandbox', 'authorization.created', 'auth_shared', now(), $2, $3, $4)`,
              [id, snapshot, heldBy, questionnaireId],
            );
          const tagged = (id: string) =>
            `{"kind":"authorization","state":{"questionnaire":{"$questionnaire":"${id}"}}}`;
          await insertEvent('evt_shared', tagged('qst_1'), 'qst_1');
          await insertEvent(
            'evt_own',
            '{"kind":"authorization","state":{"questionnaire":{"id":"own"}}}',
            null,
          );
          // Only a row that holds its snapshot points at a questionnaire.
          await expect(
            runner.query('SAVEPOINT s3').then(() => insertEvent('evt_held', null, 'qst_1', 'evt_shared')),
          ).rejects.toThrow(/events_snapshot_questionnaire_with_snapshot/);
          await runner.query('ROLLBACK TO SAVEPOINT s3');
          await expect(
            runner.query('SAVEPOINT s4').then(() => insertEvent('evt_missing', tagged('qst_2'), 'qst_2')),
          ).rejects.toThrow(/foreign key/);
          await runner.query('ROLLBACK TO SAVEPOINT s4');

          await new SnapshotQuestionnaireReferences1763774000000().down(runner);
          expect(await runner.query(`SELECT id, snapshot FROM events ORDER BY id`)).toEqual([
            { id: 'evt_own', snapshot: { kind: 'authorization', state: { questionnaire: { id: 'own' } } } },
            { id: 'evt_shared', snapshot: { kind: 'authorization', state: { questionnaire } } },
          ]);
          await new SharedQuestionnaires1763773000000().down(runner);
          expect(await runner.query(`SELECT id, questionnaire FROM authorizations ORDER BY id`)).toEqual([
            { id: 'auth_own', questionnaire: { id: 'own', groups: [] } },
            { id: 'auth_shared', questionnaire },
          ]);
          expect(await runner.query(`SELECT to_regclass('questionnaire_documents') AS table_name`)).toEqual([
            { table_name: null },
          ]);
        }),
      ),
    MIGRATIONS_TIMEOUT_MS,
  );

  it(
    'keep every stored questionnaire as written (decision 0065), referenced or not, until reverted',
    () =>
      withMigratedDatabase((dataSource) =>
        rolledBack(dataSource, async (runner) => {
          await runner.query(`INSERT INTO questionnaire_documents (id, document) VALUES ('qst_1', '{}')`);
          const refused = async (sql: string, operation: string) => {
            await runner.query('SAVEPOINT s');
            await expect(runner.query(sql)).rejects.toThrow(
              `questionnaire_documents are kept as written: ${operation} refused`,
            );
            await runner.query('ROLLBACK TO SAVEPOINT s');
          };
          await refused(`UPDATE questionnaire_documents SET document = '{"x":1}'`, 'UPDATE');
          await refused('DELETE FROM questionnaire_documents', 'DELETE');
          // CASCADE, or the foreign keys that name the table refuse first.
          await refused('TRUNCATE questionnaire_documents CASCADE', 'TRUNCATE');
          expect(await runner.query('SELECT id, document FROM questionnaire_documents')).toEqual([
            { id: 'qst_1', document: {} },
          ]);

          await new QuestionnaireDocumentsKept1763775000000().down(runner);
          await runner.query('DELETE FROM questionnaire_documents');
          expect(await runner.query('SELECT id FROM questionnaire_documents')).toEqual([]);
        }),
      ),
    MIGRATIONS_TIMEOUT_MS,
  );

  it(
    'bring the domain events back into the outbox from the audit log when decision 0050 is reverted',
    () =>
      withMigratedDatabase((dataSource) =>
        rolledBack(dataSource, async (runner) => {
          await runner.query(
            `INSERT INTO audit_log (organization_id, environment, occurred_at, actor, action, subject_type, subject_id,
                                    request_id, details)
             VALUES ('org_1', 'sandbox', '2026-03-02T09:00:00Z', 'worker', 'authorization.created', 'authorization',
                     'auth_1', 'req_1', '{"eventId": "evt_1", "status": "requires_input"}'),
                    ('org_1', 'sandbox', '2026-03-02T09:00:01Z', 'api_key:key_1', 'authorization.read',
                     'authorization', 'auth_1', 'req_2', '{}')`,
          );
          await new DomainEventsInAuditLog1763769000000().down(runner);
          expect(
            await runner.query(
              `SELECT id, organization_id, environment, aggregate_type, aggregate_id, type, occurred_at, payload
                 FROM outbox_events`,
            ),
          ).toEqual([
            {
              id: 'evt_1',
              organization_id: 'org_1',
              environment: 'sandbox',
              aggregate_type: 'authorization',
              aggregate_id: 'auth_1',
              type: 'authorization.created',
              occurred_at: new Date('2026-03-02T09:00:00Z'),
              payload: { status: 'requires_input' },
            },
          ]);
        }),
      ),
    MIGRATIONS_TIMEOUT_MS,
  );
});
