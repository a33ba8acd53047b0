import { Authorization, authorizationResourceEvents, type TenantScope } from '@prior-auth/domain';
import { createInput } from '@prior-auth/domain/testing';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmTransactions } from '../unit-of-work/postgres-transaction';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { flushWrites } from '../unit-of-work/write-batch';
import { questionnaireDocumentId, sharedQuestionnaire } from './questionnaire-text-cache';
import { answers, questionnaire, testContext } from './testing/authorization-builders';

/** Decision 0059: a catalog template is stored once and every case of its route points at it. */

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;

beforeAll(async () => {
  dataSource = await openTestDataSource(8);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
});
afterAll(() => dataSource.destroy());

/** A template no other test uses (the stored documents are shared by the whole database). */
const uniqueTemplate = () => ({ ...questionnaire(), title: `Template ${uniqueSuffix()}` });

/** A unique template as the catalog hands it out (`shared`), and the id of its stored document. */
const catalogTemplate = () => {
  const template = uniqueTemplate();
  return {
    template,
    shared: sharedQuestionnaire(template),
    id: questionnaireDocumentId(JSON.stringify(template)),
  };
};

const newCase = (scope: TenantScope, template = questionnaire()) =>
  Authorization.create(
    createInput({ ...scope, questionnaire: template, questionnaireResponse: { item: answers() } }),
    testContext(),
  );

const create = (scope: TenantScope, authorization: Authorization) =>
  unitOfWork.run(scope, (tx) => tx.authorizations.save(authorization));

/** Saves the case with the events of its save, as the use cases do. */
const createWithEvents = (scope: TenantScope, authorization: Authorization) =>
  unitOfWork.run(scope, async (tx) => {
    await tx.authorizations.save(authorization);
    const recorded = authorization.pullEvents();
    await tx.events.append(
      authorizationResourceEvents(() => `evt_${uniqueSuffix()}`, authorization, recorded),
    );
  });

const storedEvents = (authorizationId: string) =>
  dataSource.query(
    `SELECT snapshot::text AS snapshot, snapshot_questionnaire_id FROM events
      WHERE authorization_id = $1 AND snapshot IS NOT NULL`,
    [authorizationId],
  ) as Promise<Array<{ snapshot: string; snapshot_questionnaire_id: string | null }>>;

const load = (scope: TenantScope, id: string) =>
  unitOfWork.run(scope, (tx) => tx.authorizations.findById(id));

const storedRow = async (id: string) =>
  (
    (await dataSource.query(
      'SELECT questionnaire::text AS questionnaire, questionnaire_id FROM authorizations WHERE id = $1',
      [id],
    )) as Array<{ questionnaire: string | null; questionnaire_id: string | null }>
  )[0];

const documents = (id: string) =>
  dataSource.query('SELECT document::text AS document FROM questionnaire_documents WHERE id = $1', [
    id,
  ]) as Promise<Array<{ document: string }>>;

describe('shared questionnaires', () => {
  it('stores a catalog template once; every case points at it and reads it back whole', async () => {
    const scope = await createTestTenant(dataSource);
    const { template, shared, id } = catalogTemplate();
    const first = newCase(scope, shared);
    const second = newCase(scope, shared);

    await create(scope, first);
    await create(scope, second);

    for (const authorization of [first, second]) {
      expect(await storedRow(authorization.id)).toEqual({ questionnaire: null, questionnaire_id: id });
      const loaded = await load(scope, authorization.id);
      expect(loaded!.toState()).toEqual(authorization.toState());
      expect(loaded!.readState().questionnaire).toBe(shared);
    }
    expect(await documents(id)).toEqual([{ document: JSON.stringify(template) }]);
  });

  it("keeps a questionnaire that is not a catalog template in the case's own row", async () => {
    const scope = await createTestTenant(dataSource);
    const own = uniqueTemplate();
    const authorization = newCase(scope, own);

    await create(scope, authorization);

    expect(await storedRow(authorization.id)).toEqual({
      questionnaire: JSON.stringify(own),
      questionnaire_id: null,
    });
    expect(await documents(questionnaireDocumentId(JSON.stringify(own)))).toEqual([]);
    expect((await load(scope, authorization.id))!.toState()).toEqual(authorization.toState());
  });

  it('points a case stored with its own copy at the shared document when it is saved again', async () => {
    const scope = await createTestTenant(dataSource);
    const template = uniqueTemplate();
    // Stored before the process knew the text as a catalog template, as rows written before decision 0059.
    const authorization = newCase(scope, { ...template });
    await create(scope, authorization);
    expect((await storedRow(authorization.id))!.questionnaire_id).toBeNull();

    sharedQuestionnaire(template);
    await unitOfWork.run(scope, async (tx) => {
      const loaded = (await tx.authorizations.findById(authorization.id))!;
      loaded.cancel(testContext());
      await tx.authorizations.save(loaded);
    });

    const id = questionnaireDocumentId(JSON.stringify(template));
    expect(await storedRow(authorization.id)).toEqual({ questionnaire: null, questionnaire_id: id });
    expect(await documents(id)).toHaveLength(1);
    expect((await load(scope, authorization.id))!.status).toBe('canceled');
  });

  it('keeps pointing at the shared document when a process that never read the catalog saves the case', async () => {
    const scope = await createTestTenant(dataSource);
    const template = uniqueTemplate();
    // Stored by another process: this one has never seen the template's text.
    const authorization = newCase(scope, { ...template });
    await create(scope, authorization);
    const id = questionnaireDocumentId(JSON.stringify(template));
    await dataSource.query('INSERT INTO questionnaire_documents (id, document) VALUES ($1, $2)', [
      id,
      JSON.stringify(template),
    ]);
    await dataSource.query(
      'UPDATE authorizations SET questionnaire = NULL, questionnaire_id = $2 WHERE id = $1',
      [authorization.id, id],
    );

    await unitOfWork.run(scope, async (tx) => {
      const loaded = (await tx.authorizations.findById(authorization.id))!;
      expect(loaded.readState().questionnaire).toEqual(template);
      loaded.cancel(testContext());
      await tx.authorizations.save(loaded);
    });

    expect(await storedRow(authorization.id)).toEqual({ questionnaire: null, questionnaire_id: id });
  });

  it('commits first cases of a new template at once, with one stored document', async () => {
    const scope = await createTestTenant(dataSource);
    const template = uniqueTemplate();
    const shared = sharedQuestionnaire(template);
    const cases = Array.from({ length: 6 }, () => newCase(scope, shared));

    await Promise.all(cases.map((authorization) => create(scope, authorization)));

    const id = questionnaireDocumentId(JSON.stringify(template));
    expect(await documents(id)).toHaveLength(1);
    for (const authorization of cases) expect((await storedRow(authorization.id))!.questionnaire_id).toBe(id);
  });

  it('refuses to remove a shared document a case points at', async () => {
    const scope = await createTestTenant(dataSource);
    const template = uniqueTemplate();
    await create(scope, newCase(scope, sharedQuestionnaire(template)));

    await expect(
      dataSource.query('DELETE FROM questionnaire_documents WHERE id = $1', [
        questionnaireDocumentId(JSON.stringify(template)),
      ]),
    ).rejects.toThrow(/kept as written: DELETE refused/);
  });

  describe("in the events' snapshots (decision 0060)", () => {
    it('a snapshot points at the stored template, and every event reads it back as the shared object', async () => {
      const scope = await createTestTenant(dataSource);
      const { template, shared, id } = catalogTemplate();
      const authorization = newCase(scope, shared);

      await createWithEvents(scope, authorization);

      const rows = await storedEvents(authorization.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.snapshot_questionnaire_id).toBe(id);
      expect(rows[0]!.snapshot).toContain(`{"$questionnaire":"${id}"}`);
      expect(rows[0]!.snapshot).not.toContain(template.title);
      const page = await unitOfWork.run(scope, (tx) =>
        tx.events.list({ authorizationId: authorization.id, limit: 10 }),
      );
      expect(page.items.map((event) => event.type).sort()).toEqual([
        'authorization.created',
        `authorization.${authorization.status}`,
      ]);
      for (const event of page.items) {
        expect(event.snapshot).toEqual({ kind: 'authorization', state: authorization.toState() });
        if (event.snapshot.kind !== 'authorization') throw new Error('not a case snapshot');
        expect(event.snapshot.state.questionnaire).toBe(shared);
      }
    });

    it("a questionnaire that is not a catalog template stays in the snapshot's own text", async () => {
      const scope = await createTestTenant(dataSource);
      const own = uniqueTemplate();
      const authorization = newCase(scope, own);

      await createWithEvents(scope, authorization);

      const rows = await storedEvents(authorization.id);
      expect(rows.map((row) => row.snapshot_questionnaire_id)).toEqual([null]);
      expect(rows[0]!.snapshot).toContain(own.title);
      const page = await unitOfWork.run(scope, (tx) =>
        tx.events.list({ authorizationId: authorization.id, limit: 10 }),
      );
      for (const event of page.items) {
        expect(event.snapshot).toEqual({ kind: 'authorization', state: authorization.toState() });
      }
    });

    it('refuses to remove a stored template an event points at', async () => {
      const scope = await createTestTenant(dataSource);
      const { shared, id } = catalogTemplate();
      const authorization = newCase(scope, shared);
      await createWithEvents(scope, authorization);
      // The case itself no longer points at it: only the event's snapshot does.
      await dataSource.query(
        `UPDATE authorizations SET questionnaire = (SELECT document FROM questionnaire_documents WHERE id = $2),
           questionnaire_id = NULL WHERE id = $1`,
        [authorization.id, id],
      );

      await expect(
        dataSource.query('DELETE FROM questionnaire_documents WHERE id = $1', [id]),
      ).rejects.toThrow(/kept as written: DELETE refused/);
    });
  });

  describe('once one naming it has committed (decision 0065)', () => {
    /**
     * Saves the case as an API command does (its writes held), recording in `sent` every statement its connection
     * sent; with `rollBack`, sends the writes, then rolls them back.
     */
    const save = async (
      scope: TenantScope,
      authorization: Authorization,
      sent: string[],
      rollBack = false,
    ) => {
      await new TypeOrmTransactions(dataSource).run(
        async (tx) => {
          const client = (await tx.manager.queryRunner!.connect()) as { query: (...a: unknown[]) => unknown };
          const query = client.query.bind(client);
          client.query = (...args: unknown[]) => {
            sent.push(`${JSON.stringify(args[0])} ${JSON.stringify(args[1] ?? null)}`);
            return query(...args);
          };
          await unitOfWork.within(tx).run(scope, (ports) => ports.authorizations.save(authorization));
          if (rollBack) {
            await flushWrites(tx.manager);
            throw new Error('rolled back');
          }
        },
        {},
        { holdWrites: true },
      );
    };
    /** What the connection sent for one save that commits. */
    const sentFor = async (scope: TenantScope, authorization: Authorization) => {
      const sent: string[] = [];
      await save(scope, authorization, sent);
      return sent.join('\n');
    };

    it('a process sends a template with each save until one has committed, then names it only', async () => {
      const scope = await createTestTenant(dataSource);
      const { template, shared, id } = catalogTemplate();

      // Sent and stored in a transaction that then rolled back: the process has learnt nothing.
      const rolledBack: string[] = [];
      await expect(save(scope, newCase(scope, shared), rolledBack, true)).rejects.toThrow('rolled back');
      expect(rolledBack.join('\n')).toContain('INSERT INTO questionnaire_documents');
      expect(await documents(id)).toEqual([]);

      const first = await sentFor(scope, newCase(scope, shared));
      expect(first).toContain('INSERT INTO questionnaire_documents');
      expect(first).toContain(template.title);
      expect(await documents(id)).toHaveLength(1);

      const later = newCase(scope, shared);
      const second = await sentFor(scope, later);
      expect(second).not.toContain('INSERT INTO questionnaire_documents');
      expect(second).not.toContain(template.title);
      expect(await storedRow(later.id)).toEqual({ questionnaire: null, questionnaire_id: id });
      expect((await load(scope, later.id))!.readState().questionnaire).toBe(shared);
    });
  });
});
