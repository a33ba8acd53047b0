import {
  Authorization,
  VersionConflictError,
  type TenantScope,
  type TransactionalPorts,
} from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { InvalidCursorError } from '../pagination/keyset-cursor';
import { createTestTenant, testCursors } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import {
  answers,
  arrange,
  createAuthorization,
  readyFile,
  SCENARIOS,
  statusOf,
  testContext,
  type Arranged,
} from './testing/authorization-builders';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;

beforeAll(async () => {
  dataSource = await openTestDataSource(8);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
});
afterAll(() => dataSource.destroy());

const store = (scope: TenantScope, arranged: Arranged) =>
  unitOfWork.run(scope, async (tx) => {
    for (const file of arranged.files) await tx.files.save(file);
    await tx.authorizations.save(arranged.authorization);
  });

const load = (scope: TenantScope, id: string) =>
  unitOfWork.run(scope, (tx) => tx.authorizations.findById(id));

/** A promise the test resolves by hand, to line transactions up. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describe('TypeOrmAuthorizationRepository', () => {
  describe('round trip', () => {
    it.each(SCENARIOS)('stores and rehydrates an authorization %s exactly', async (scenario) => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, scenario);
      const original = arranged.authorization;
      expect(original.status).toBe(statusOf(scenario));

      await store(scope, arranged);
      expect(original.persistedVersion).toBe(original.version);

      const loaded = await load(scope, original.id);
      expect(loaded).not.toBeNull();
      expect(loaded!.toState()).toEqual(original.toState());
      expect(loaded!.persistedVersion).toBe(original.version);
      expect(loaded!.pullEvents()).toEqual([]);
    });

    it('updates an aggregate through its behaviour, rewriting attachments in order', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation');
      await store(scope, arranged);
      const { ctx } = arranged;
      const second = readyFile(scope, ctx);
      const third = readyFile(scope, ctx);

      await unitOfWork.run(scope, async (tx) => {
        await tx.files.save(second);
        await tx.files.save(third);
        const authorization = (await tx.authorizations.findById(arranged.authorization.id))!;
        authorization.attachFile(
          { fileId: second.id, documentTypes: ['lab_results'], label: 'b.pdf', description: null },
          ctx,
        );
        authorization.attachFile(
          { fileId: third.id, documentTypes: ['imaging_order'], label: 'c.pdf', description: null },
          ctx,
        );
        authorization.detachAttachment(authorization.attachments[0]!.id, ctx);
        authorization.patchAnswers([{ linkId: 'request.expedited', answer: [{ valueBoolean: true }] }], ctx);
        await tx.authorizations.save(authorization);
        expect(authorization.persistedVersion).toBe(authorization.version);
        // A second save in the same transaction starts from the version just written.
        authorization.patchAnswers([{ linkId: 'request.expedited', answer: [] }], ctx);
        await tx.authorizations.save(authorization);
      });

      const loaded = (await load(scope, arranged.authorization.id))!;
      expect(loaded.version).toBe(arranged.authorization.version + 5);
      expect(loaded.attachments.map((a) => a.fileId)).toEqual([second.id, third.id]);
      expect(loaded.questionnaireResponse.item).toEqual(answers());
    });

    it('keeps earlier review snapshots as evidence when the aggregate moves on', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation_final_approval');
      await store(scope, arranged);
      const snapshotId = arranged.authorization.submission.reviewSnapshot!.id;

      await unitOfWork.run(scope, async (tx) => {
        const authorization = (await tx.authorizations.findById(arranged.authorization.id))!;
        authorization.patchAnswers(
          [{ linkId: 'request.expedited', answer: [{ valueBoolean: false }] }],
          arranged.ctx,
        );
        await tx.authorizations.save(authorization);
      });

      const loaded = (await load(scope, arranged.authorization.id))!;
      expect(loaded.submission.reviewSnapshot).toMatchObject({ id: snapshotId, status: 'stale' });
      const rows = await dataSource.query(
        'SELECT id, status FROM review_snapshots WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3',
        [scope.organizationId, scope.environment, arranged.authorization.id],
      );
      expect(rows).toEqual([{ id: snapshotId, status: 'stale' }]);
    });

    it('answers null for an unknown id', async () => {
      const scope = await createTestTenant(dataSource);
      expect(await load(scope, 'auth_does_not_exist')).toBeNull();
    });

    it('answers "unchanged" for the version held, the whole authorization for another, within the tenant', async () => {
      const scope = await createTestTenant(dataSource);
      const other = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation_final_approval');
      await store(scope, arranged);
      const { id, version } = arranged.authorization;
      const ifChanged = (tenant: TenantScope, knownVersion: number) =>
        unitOfWork.run(tenant, (tx) => tx.authorizations.findIfChanged(id, knownVersion));

      expect(await ifChanged(scope, version)).toEqual({ unchanged: true, id, version });
      const changed = await ifChanged(scope, version - 1);
      expect(changed).toBeInstanceOf(Authorization);
      expect((changed as Authorization).toState()).toEqual(arranged.authorization.toState());
      expect(await ifChanged(other, version)).toBeNull();
      expect(
        await unitOfWork.run(scope, (tx) => tx.authorizations.findIfChanged('auth_does_not_exist', 1)),
      ).toBeNull();

      // Loaded this way, the aggregate saves like one found by id: its next version is what the next read sees.
      await unitOfWork.run(scope, async (tx) => {
        const loaded = (await tx.authorizations.findIfChanged(id, 0)) as Authorization;
        loaded.patchAnswers(
          [{ linkId: 'request.expedited', answer: [{ valueBoolean: false }] }],
          arranged.ctx,
        );
        await tx.authorizations.save(loaded);
      });
      expect(await ifChanged(scope, version)).toBeInstanceOf(Authorization);
      expect(await ifChanged(scope, version + 1)).toEqual({ unchanged: true, id, version: version + 1 });
    });
  });

  describe('optimistic concurrency', () => {
    it('lets exactly one of two concurrent saves of the same version win', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_input');
      await store(scope, arranged);
      const version = arranged.authorization.version;
      const bothLoaded = gate();
      let loadedCount = 0;

      const attempt = (memberId: string) =>
        unitOfWork.run(scope, async (tx) => {
          const authorization = (await tx.authorizations.findById(arranged.authorization.id))!;
          loadedCount += 1;
          if (loadedCount === 2) bothLoaded.open();
          await bothLoaded.opened;
          authorization.patchAnswers(
            [{ linkId: 'patient.memberId', answer: [{ valueString: memberId }] }],
            testContext(),
          );
          await tx.authorizations.save(authorization);
          return memberId;
        });

      const results = await Promise.allSettled([attempt('WINNER-A'), attempt('WINNER-B')]);
      const won = results.filter((r): r is PromiseFulfilledResult<string> => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(VersionConflictError);
      expect(lost[0]!.reason).toMatchObject({ expectedVersion: version, actualVersion: version + 1 });

      const stored = (await load(scope, arranged.authorization.id))!;
      expect(stored.version).toBe(version + 1);
      expect(stored.questionnaireResponse.item[0]!.answer).toEqual([{ valueString: won[0]!.value }]);
    });

    it('refuses a stale aggregate with the expected and the actual version', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_input');
      await store(scope, arranged);
      const stale = (await load(scope, arranged.authorization.id))!;
      const fresh = (await load(scope, arranged.authorization.id))!;
      fresh.cancel(arranged.ctx);
      await unitOfWork.run(scope, (tx) => tx.authorizations.save(fresh));

      stale.patchAnswers([{ linkId: 'request.expedited', answer: [{ valueBoolean: true }] }], arranged.ctx);
      const failure = unitOfWork.run(scope, (tx) => tx.authorizations.save(stale));
      await expect(failure).rejects.toBeInstanceOf(VersionConflictError);
      await expect(unitOfWork.run(scope, (tx) => tx.authorizations.save(stale))).rejects.toMatchObject({
        expectedVersion: arranged.authorization.version,
        actualVersion: arranged.authorization.version + 1,
      });
      expect(stale.persistedVersion).toBe(arranged.authorization.version);
    });

    it('refuses to insert an id that already exists', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_input');
      await store(scope, arranged);
      // A new aggregate that happens to get an id already stored.
      const ctx = testContext();
      const newId = ctx.newId;
      ctx.newId = (prefix) => (prefix === 'auth' ? arranged.authorization.id : newId(prefix));
      const twin = createAuthorization(scope, ctx);
      expect(twin.persistedVersion).toBeNull();
      await expect(unitOfWork.run(scope, (tx) => tx.authorizations.save(twin))).rejects.toMatchObject({
        code: 'version_conflict',
        expectedVersion: 0,
        actualVersion: arranged.authorization.version,
      });
    });
  });

  describe('tenancy', () => {
    it('never shows or changes another organization’s or environment’s authorization', async () => {
      const owner = await createTestTenant(dataSource);
      const otherOrganization = await createTestTenant(dataSource);
      const otherEnvironment: TenantScope = {
        organizationId: owner.organizationId,
        environment: 'production',
      };
      const arranged = arrange(owner, 'requires_confirmation');
      await store(owner, arranged);
      const id = arranged.authorization.id;

      for (const scope of [otherOrganization, otherEnvironment]) {
        expect(await load(scope, id)).toBeNull();
        const page = await unitOfWork.run(scope, (tx) => tx.authorizations.list({ limit: 100 }));
        expect(page.items).toEqual([]);
        // The owner's aggregate cannot be written through another tenant's repository…
        await expect(
          unitOfWork.run(scope, (tx) => tx.authorizations.save(arranged.authorization)),
        ).rejects.toThrow(/another tenant/);
        // …and a forged copy claiming the other tenant matches no row there.
        const forged = Authorization.rehydrate({ ...arranged.authorization.toState(), ...scope });
        forged.cancel(arranged.ctx);
        await expect(unitOfWork.run(scope, (tx) => tx.authorizations.save(forged))).rejects.toMatchObject({
          actualVersion: 0,
        });
      }
      const untouched = (await load(owner, id))!;
      expect(untouched.toState()).toEqual(arranged.authorization.toState());
    });

    it('refuses an attachment that references another tenant’s file', async () => {
      const owner = await createTestTenant(dataSource);
      const other = await createTestTenant(dataSource);
      const arranged = arrange(owner, 'requires_input');
      await store(owner, arranged);
      const foreignFile = readyFile(other, arranged.ctx);
      await unitOfWork.run(other, (tx) => tx.files.save(foreignFile));

      const attempt = unitOfWork.run(owner, async (tx) => {
        const authorization = (await tx.authorizations.findById(arranged.authorization.id))!;
        authorization.attachFile(
          { fileId: foreignFile.id, documentTypes: ['clinical_notes'], label: 'x', description: null },
          arranged.ctx,
        );
        await tx.authorizations.save(authorization);
      });
      await expect(attempt).rejects.toThrow(/foreign key/);
      expect((await load(owner, arranged.authorization.id))!.version).toBe(arranged.authorization.version);
    });
  });

  describe('list', () => {
    const seed = async (scope: TenantScope, count: number) => {
      const created: Authorization[] = [];
      await unitOfWork.run(scope, async (tx) => {
        for (let index = 0; index < count; index += 1) {
          // Pairs share a creation time, so the id breaks ties.
          const ctx = testContext(new Date(Date.UTC(2026, 0, 1, 0, Math.floor(index / 2))));
          const authorization = createAuthorization(scope, ctx);
          if (index % 3 === 0) authorization.cancel(ctx);
          await tx.authorizations.save(authorization);
          created.push(authorization);
        }
      });
      const newestFirst = [...created].sort(
        (a, b) =>
          b.toState().createdAt.getTime() - a.toState().createdAt.getTime() ||
          (b.id < a.id ? -1 : b.id > a.id ? 1 : 0),
      );
      return newestFirst;
    };

    const collect = async (
      scope: TenantScope,
      query: { limit: number; status?: 'canceled' | 'requires_input' },
    ) => {
      const ids: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await unitOfWork.run(scope, (tx: TransactionalPorts) =>
          tx.authorizations.list({ ...query, cursor }),
        );
        expect(page.items.length).toBeLessThanOrEqual(query.limit);
        ids.push(...page.items.map((a) => a.id));
        if (page.nextCursor === null) return { ids, cursors };
        cursors.push(page.nextCursor);
        cursor = page.nextCursor;
      }
    };

    it('pages newest first with keyset cursors, without gaps or repeats', async () => {
      const scope = await createTestTenant(dataSource);
      const expected = await seed(scope, 11);
      const { ids, cursors } = await collect(scope, { limit: 3 });
      expect(ids).toEqual(expected.map((a) => a.id));
      expect(cursors).toHaveLength(3);
      expect((await collect(scope, { limit: 11 })).cursors).toEqual([]);
    });

    it('filters by status', async () => {
      const scope = await createTestTenant(dataSource);
      const expected = (await seed(scope, 9)).filter((a) => a.status === 'canceled');
      expect(expected).toHaveLength(3);
      expect((await collect(scope, { limit: 2, status: 'canceled' })).ids).toEqual(expected.map((a) => a.id));
    });

    it('refuses a tampered cursor and one from another query or tenant', async () => {
      const scope = await createTestTenant(dataSource);
      await seed(scope, 4);
      const first = await unitOfWork.run(scope, (tx) => tx.authorizations.list({ limit: 1 }));
      const cursor = first.nextCursor!;
      const list = (
        target: TenantScope,
        query: Parameters<TransactionalPorts['authorizations']['list']>[0],
      ) => unitOfWork.run(target, (tx) => tx.authorizations.list(query));

      const [body, mac] = cursor.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { i: string };
      const altered = `${Buffer.from(JSON.stringify({ ...payload, i: 'auth_zzzz' })).toString('base64url')}.${mac}`;
      for (const bad of [altered, `${cursor}x`, 'not-a-cursor', '']) {
        await expect(list(scope, { limit: 1, cursor: bad })).rejects.toMatchObject({ reason: 'malformed' });
      }
      await expect(list(scope, { limit: 1, cursor, status: 'canceled' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
      await expect(list(scope, { limit: 1, cursor, status: 'canceled' })).rejects.toMatchObject({
        reason: 'other_query',
      });
      const other = await createTestTenant(dataSource);
      await expect(list(other, { limit: 1, cursor })).rejects.toMatchObject({ reason: 'other_query' });
      await expect(list({ ...scope, environment: 'production' }, { limit: 1, cursor })).rejects.toMatchObject(
        {
          reason: 'other_query',
        },
      );
      // A different limit is the same query: the cursor stays valid.
      expect((await list(scope, { limit: 2, cursor })).items).toHaveLength(2);
    });

    it('lists versions as list pages cases, with cursors either read takes', async () => {
      const scope = await createTestTenant(dataSource);
      const expected = await seed(scope, 7);
      const versions = (query: { limit: number; status?: 'canceled'; cursor?: string }) =>
        unitOfWork.run(scope, (tx) => tx.authorizations.listVersions(query));

      const first = await versions({ limit: 4 });
      expect(first.items).toEqual(expected.slice(0, 4).map(({ id, version }) => ({ id, version })));
      // The cursor is the list's: a page of versions and a page of cases go on from each other's.
      const rest = await unitOfWork.run(scope, (tx) =>
        tx.authorizations.list({ limit: 4, cursor: first.nextCursor! }),
      );
      expect(rest.items.map((a) => a.id)).toEqual(expected.slice(4).map((a) => a.id));
      const listed = await unitOfWork.run(scope, (tx) => tx.authorizations.list({ limit: 2 }));
      expect((await versions({ limit: 10, cursor: listed.nextCursor! })).items.map((v) => v.id)).toEqual(
        expected.slice(2).map((a) => a.id),
      );
      const canceled = expected.filter((a) => a.status === 'canceled');
      expect((await versions({ limit: 10, status: 'canceled' })).items).toEqual(
        canceled.map(({ id, version }) => ({ id, version })),
      );
      await expect(versions({ limit: 1, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidCursorError);
      const other = await createTestTenant(dataSource);
      expect(await unitOfWork.run(other, (tx) => tx.authorizations.listVersions({ limit: 10 }))).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it('finds cases only at the versions asked for, and only the tenant’s', async () => {
      const scope = await createTestTenant(dataSource);
      const [newest, middle, oldest] = await seed(scope, 3);
      const moved = arrange(scope, 'requires_confirmation');
      await store(scope, moved);
      const find = (target: TenantScope, versions: Array<{ id: string; version: number }>) =>
        unitOfWork.run(target, (tx) => tx.authorizations.findVersions(versions));

      const found = await find(scope, [
        { id: oldest!.id, version: oldest!.version },
        { id: newest!.id, version: newest!.version },
        // Another version than the stored one, and an id that is not there: left out.
        { id: middle!.id, version: middle!.version + 1 },
        { id: moved.authorization.id, version: moved.authorization.version - 1 },
        { id: 'auth_missing', version: 1 },
      ]);
      expect(found.map((a) => a.id).sort()).toEqual([newest!.id, oldest!.id].sort());
      expect(found.find((a) => a.id === oldest!.id)!.toState()).toEqual(oldest!.toState());
      expect(
        (
          await find(scope, [{ id: moved.authorization.id, version: moved.authorization.version }])
        )[0]!.toState(),
      ).toEqual(moved.authorization.toState());
      expect(await find(scope, [])).toEqual([]);
      const other = await createTestTenant(dataSource);
      expect(await find(other, [{ id: newest!.id, version: newest!.version }])).toEqual([]);
    });
  });
});
