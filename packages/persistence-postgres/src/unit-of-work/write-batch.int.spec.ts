import { VersionConflictError, type DomainEventEnvelope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { arrange, type Arranged } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmTransactions, type PostgresTransaction } from './postgres-transaction';
import { createTestTenant, testCursors, uniqueSuffix } from './testing/test-tenants';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';
import { commitWrites, CommitRefusedError, flushWrites, writeSql } from './write-batch';

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
  return recordOn(
    (manager.queryRunner as unknown as { databaseConnection: { query: (...a: unknown[]) => unknown } })
      .databaseConnection,
  );
}

function recordOn(client: { query: (...a: unknown[]) => unknown }): string[] {
  const sent: string[] = [];
  const query = client.query.bind(client);
  client.query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    sent.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
    return query(...args);
  };
  return sent;
}

/** As `recordStatements`, for a deferred transaction: connects its runner first, which sends nothing. */
async function recordDeferred(manager: EntityManager): Promise<string[]> {
  return recordOn((await manager.queryRunner!.connect()) as { query: (...a: unknown[]) => unknown });
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

/** A saved case, and a copy of it loaded before another change moved its version on. */
async function staleCase() {
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
  return { scope, arranged, stale };
}

/** A transaction that opens with its first statement (decision 0055); `opened` records that it did. */
const deferred = <T>(work: (tx: PostgresTransaction) => Promise<T>, opened: string[]) =>
  transactions.run(
    work,
    {},
    {
      holdWrites: true,
      opened: async (tx) => {
        opened.push('opened');
        await tx.manager.queryRunner!.query('SELECT 1 AS opened');
      },
    },
  );

describe('deferred transactions (decision 0055)', () => {
  it('commit writes that are all the transaction sends as one statement, never opening it', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const opened: string[] = [];
    let sent: string[] = [];
    await deferred(async (tx) => {
      sent = await recordDeferred(tx.manager);
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(arranged.authorization);
        await ports.domainEvents.append(created(arranged));
      });
      await commitWrites(tx.manager);
    }, opened);
    expect(sent).toEqual(['WITH w0 AS']);
    expect(opened).toEqual([]);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toEqual({
      authorizations: 1,
      audit: 1,
    });
  });

  it('open with their first read, run `opened` first, and commit as usual', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const opened: string[] = [];
    let sent: string[] = [];
    await deferred(async (tx) => {
      sent = await recordDeferred(tx.manager);
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(arranged.authorization);
        expect(await ports.authorizations.findById(arranged.authorization.id)).not.toBeNull();
      });
      await commitWrites(tx.manager);
    }, opened);
    expect(opened).toEqual(['opened']);
    expect(sent[0]).toBe('START TRANSACTION');
    expect(sent[1]).toBe('SELECT 1 AS');
    expect(sent[2]).toMatch(/^(WITH w0 AS|INSERT INTO authorizations)$/);
    expect(sent.at(-1)).toBe('COMMIT');
    expect(await counts(scope.organizationId, arranged.authorization.id)).toMatchObject({
      authorizations: 1,
    });
  });

  it('open for writes whose result is needed in the transaction', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const opened: string[] = [];
    const seen: number[] = [];
    let sent: string[] = [];
    await deferred(async (tx) => {
      sent = await recordDeferred(tx.manager);
      await unitOfWork.within(tx).run(scope, (ports) => ports.authorizations.save(arranged.authorization));
      const nothing = { sql: 'DELETE FROM idempotency_records WHERE false RETURNING key', parameters: [] };
      await writeSql(tx.manager, nothing, ({ rowCount }) => {
        seen.push(rowCount);
      });
      await commitWrites(tx.manager);
    }, opened);
    expect(opened).toEqual(['opened']);
    expect(seen).toEqual([0]);
    expect(sent).toEqual(['START TRANSACTION', 'SELECT 1 AS', 'WITH w0 AS', 'COMMIT']);
  });

  it('open before held writes are sent early (a later write to their table), so those stay in it', async () => {
    const { scope, arranged, stale } = await staleCase();
    const opened: string[] = [];
    // The stale save rewrites the attachments (a delete, then inserts): the held update goes out early.
    const outcome = deferred(async (tx) => {
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.domainEvents.append(created(arranged));
        await ports.authorizations.save(stale!);
      });
      await commitWrites(tx.manager);
    }, opened);
    await expect(outcome).rejects.toBeInstanceOf(VersionConflictError);
    expect(opened).toEqual(['opened']);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toMatchObject({ audit: 0 });
  });

  it('refuse the one statement when a check fails, committing none of it', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const opened: string[] = [];
    const outcome = deferred(async (tx) => {
      await unitOfWork.within(tx).run(scope, async (ports) => {
        await ports.authorizations.save(arranged.authorization);
        await ports.domainEvents.append(created(arranged));
      });
      // A write expected to return a row (as a versioned update is) that returns none.
      const nothing = { sql: 'DELETE FROM idempotency_records WHERE false RETURNING key', parameters: [] };
      await writeSql(
        tx.manager,
        nothing,
        () => {
          throw new Error('not run when committing alone');
        },
        { expect: 'rows' },
      );
      await commitWrites(tx.manager);
    }, opened);
    await expect(outcome).rejects.toBeInstanceOf(CommitRefusedError);
    expect(opened).toEqual([]);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toEqual({
      authorizations: 0,
      audit: 0,
    });
  });

  it('refuse the one statement when a condition does not hold', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const outcome = deferred(async (tx) => {
      await unitOfWork.within(tx).run(scope, (ports) => ports.authorizations.save(arranged.authorization));
      const nothing = { sql: 'DELETE FROM idempotency_records WHERE false', parameters: [] };
      await writeSql(tx.manager, nothing, undefined, {
        condition: { sql: '$1::boolean', parameters: [false] },
      });
      await commitWrites(tx.manager);
    }, []);
    await expect(outcome).rejects.toBeInstanceOf(CommitRefusedError);
    expect(await counts(scope.organizationId, arranged.authorization.id)).toMatchObject({
      authorizations: 0,
    });
  });

  it('refuse any statement after the writes committed alone, and keep the writes', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_input');
    const outcome = deferred(async (tx) => {
      await unitOfWork.within(tx).run(scope, (ports) => ports.authorizations.save(arranged.authorization));
      await commitWrites(tx.manager);
      await tx.manager.query('SELECT 1');
    }, []);
    await expect(outcome).rejects.toThrow('this transaction has committed its writes already');
    expect(await counts(scope.organizationId, arranged.authorization.id)).toMatchObject({
      authorizations: 1,
    });
  });

  it('send nothing at all when the work fails before its first statement', async () => {
    const opened: string[] = [];
    let sent: string[] = [];
    await expect(
      deferred(async (tx) => {
        sent = await recordDeferred(tx.manager);
        throw new Error('refused before anything was sent');
      }, opened),
    ).rejects.toThrow('refused before anything was sent');
    expect(sent).toEqual([]);
    expect(opened).toEqual([]);
  });
});

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
    const { scope, arranged, stale } = await staleCase();
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
