import { VersionConflictError, type DomainEventEnvelope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { arrange, type Arranged } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmTransactions, type PostgresTransaction } from './postgres-transaction';
import { createTestTenant, testCursors, uniqueSuffix } from './testing/test-tenants';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';
import { flushWrites } from './write-batch';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;
let transactions: TypeOrmTransactions;

beforeAll(async () => {
  dataSource = await openTestDataSource(4);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors(), defaultActor: 'test' });
  transactions = new TypeOrmTransactions(dataSource);
});
afterAll(async () => {
  await dataSource.destroy();
});

/** Every statement the transaction's connection sends, as its first words. */
function recordStatements(manager: EntityManager): string[] {
  const client = (
    manager.queryRunner as unknown as { databaseConnection: { query: (...a: unknown[]) => unknown } }
  ).databaseConnection;
  const sent: string[] = [];
  const query = client.query.bind(client);
  client.query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    sent.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
    return query(...args);
  };
  return sent;
}

const created = (arranged: Arranged): DomainEventEnvelope[] => [
  {
    id: `evt_${uniqueSuffix()}`,
    type: 'authorization.created',
    aggregateType: 'authorization',
    aggregateId: arranged.authorization.id,
    organizationId: arranged.authorization.organizationId,
    environment: arranged.authorization.environment,
    occurredAt: new Date('2026-03-02T09:00:00.000Z'),
    payload: { status: arranged.authorization.status },
  },
];

async function counts(organizationId: string, authorizationId: string) {
  const [row] = await dataSource.query(
    `SELECT (SELECT count(*) FROM authorizations WHERE organization_id = $1 AND id = $2)::int AS authorizations,
            (SELECT count(*) FROM audit_log WHERE organization_id = $1 AND subject_id = $2)::int AS audit`,
    [organizationId, authorizationId],
  );
  return row as { authorizations: number; audit: number };
}

const holding = <T>(work: (tx: PostgresTransaction) => Promise<T>) =>
  transactions.run(work, {}, { holdWrites: true });

describe('held writes (WriteBatch)', () => {
  it("sends a command's writes as one statement, then commits them", async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    let sent: string[] = [];
    await holding(async (tx) => {
      sent = recordStatements(tx.manager);
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(arranged.authorization);
        await ports.domainEvents.append(created(arranged));
      });
      expect(sent).toEqual([]);
      await flushWrites(tx.manager);
    });
    expect(sent).toEqual(['WITH w0 AS', 'COMMIT']);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toEqual({
      authorizations: 1,
      audit: 1,
    });
  });

  it("prepares a command's statement once per connection and runs it again by name", async () => {
    const single = await openTestDataSource(1);
    const heldStatements = (tx: PostgresTransaction) =>
      tx.manager.query(
        `SELECT name FROM pg_prepared_statements WHERE statement LIKE 'WITH w0 AS (INSERT INTO authorizations%'`,
      ) as Promise<Array<{ name: string }>>;
    const command = (scope: Awaited<ReturnType<typeof createTestTenant>>) => {
      const arranged = arrange(scope, 'requires_input');
      return async (tx: PostgresTransaction) => {
        await unitOfWork.within(tx).run(scope, async (ports) => {
          await ports.authorizations.save(arranged.authorization);
          await ports.domainEvents.append(created(arranged));
        });
        await flushWrites(tx.manager);
        return arranged.authorization.id;
      };
    };
    try {
      const singleTransactions = new TypeOrmTransactions(single);
      const scope = await createTestTenant(single);
      const first = await singleTransactions.run(command(scope), {}, { holdWrites: true });
      const [before, second, after] = await singleTransactions.run(
        async (tx) => [await heldStatements(tx), await command(scope)(tx), await heldStatements(tx)] as const,
        {},
        { holdWrites: true },
      );
      // The one connection kept the first command's statement; the second ran it by the same name.
      expect(before).toHaveLength(1);
      expect(after).toEqual(before);
      for (const id of [first, second]) {
        expect((await counts(scope.organizationId, id)).authorizations).toBe(1);
      }
    } finally {
      await single.destroy();
    }
  });

  it('sends held writes before a read, so the read sees them', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    await holding(async (tx) => {
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(arranged.authorization);
        const read = await ports.authorizations.findById(arranged.authorization.id);
        expect(read?.id).toBe(arranged.authorization.id);
      });
    });
  });

  it('drops held writes when the transaction rolls back', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    await expect(
      holding(async (tx) => {
        await unitOfWork.within(tx).run(scope, async (ports) => {
          await ports.authorizations.save(arranged.authorization);
          await ports.domainEvents.append(created(arranged));
        });
        throw new Error('refused after writing');
      }),
    ).rejects.toThrow('refused after writing');
    expect(await counts(scope.organizationId, arranged.authorization.id)).toEqual({
      authorizations: 0,
      audit: 0,
    });
  });

  it('still refuses a stale version, when the held update is sent, and commits none of it', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_confirmation');
    await unitOfWork.run(scope, async (ports) => {
      for (const file of arranged.files) await ports.files.save(file);
      await ports.authorizations.save(arranged.authorization);
    });
    const stale = await unitOfWork.run(scope, (ports) =>
      ports.authorizations.findById(arranged.authorization.id),
    );
    await dataSource.query(
      'UPDATE authorizations SET version = version + 1 WHERE organization_id = $1 AND id = $2',
      [scope.organizationId, arranged.authorization.id],
    );
    const outcome = holding(async (tx) => {
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(stale!);
        await ports.domainEvents.append(created(arranged));
      });
      await flushWrites(tx.manager);
    });
    await expect(outcome).rejects.toBeInstanceOf(VersionConflictError);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toMatchObject({ audit: 0 });
  });

  it('rewrites child rows of one table in order (a delete, then its inserts)', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_confirmation');
    await unitOfWork.run(scope, async (ports) => {
      for (const file of arranged.files) await ports.files.save(file);
      await ports.authorizations.save(arranged.authorization);
    });
    const attachments = async () =>
      Number(
        (
          await dataSource.query(
            'SELECT count(*) FROM authorization_attachments WHERE organization_id = $1 AND authorization_id = $2',
            [scope.organizationId, arranged.authorization.id],
          )
        )[0].count,
      );
    const before = await attachments();
    expect(before).toBeGreaterThan(0);
    await holding(async (tx) => {
      await unitOfWork.within(tx).run(scope, async (ports) => {
        const loaded = await ports.authorizations.findById(arranged.authorization.id);
        const [first] = loaded!.readState().attachments;
        loaded!.detachAttachment(first!.id, arranged.ctx);
        await ports.authorizations.save(loaded!);
      });
    });
    expect(await attachments()).toBe(before - 1);
  });
});
