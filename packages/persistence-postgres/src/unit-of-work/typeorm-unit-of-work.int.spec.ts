import { DomainError, type DomainEventEnvelope, type TenantScope, type UnitOfWork } from '@prior-auth/domain';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { PgBoss } from 'pg-boss';
import type { DataSource } from 'typeorm';
import { arrange, type Arranged } from '../authorization/testing/authorization-builders';
import { createDataSource } from '../database/data-source';
import { DatabaseUnavailableError } from '../database/database-errors';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmAccessGrantStore } from '../audit/typeorm-access-grant-store';
import { PostgresIdempotencyStore } from '../idempotency/postgres-idempotency-store';
import { startJobBoss } from '../outbox/job-queues';
import { JOB_TABLE } from '../outbox/pg-boss-job-queue';
import { createTestTenant, testCursors, uniqueSuffix } from './testing/test-tenants';
import { TypeOrmTransactions } from './postgres-transaction';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;
let transactions: TypeOrmTransactions;
let idempotency: PostgresIdempotencyStore;
let boss: PgBoss;

beforeAll(async () => {
  dataSource = await openTestDataSource(6);
  // Its own pool is never used to enqueue: a job written through it would survive a rollback, and the
  // "leaves nothing behind" tests below would fail (decision 0016).
  boss = await startJobBoss({ connectionString: process.env.DATABASE_URL!, role: 'producer', poolSize: 1 });
  unitOfWork = new TypeOrmUnitOfWork(dataSource, {
    cursors: testCursors(),
    jobBoss: boss,
    defaultActor: 'worker',
  });
  transactions = new TypeOrmTransactions(dataSource);
  idempotency = new PostgresIdempotencyStore(dataSource);
});
afterAll(async () => {
  await boss.stop({ graceful: false });
  await dataSource.destroy();
});

const envelopes = (arranged: Arranged): DomainEventEnvelope[] => {
  const { authorization } = arranged;
  return [
    {
      id: `evt_${uniqueSuffix()}`,
      type: 'authorization.created',
      aggregateType: 'authorization',
      aggregateId: authorization.id,
      organizationId: authorization.organizationId,
      environment: authorization.environment,
      occurredAt: new Date('2026-03-02T09:00:00.000Z'),
      payload: { status: authorization.status, version: authorization.version },
    },
  ];
};

/** Everything a command may write for `authorizationId`, counted. */
async function footprint(scope: TenantScope, authorizationId: string) {
  const count = async (sql: string) =>
    Number(
      (await dataSource.query(sql, [scope.organizationId, scope.environment, authorizationId]))[0].count,
    );
  return {
    authorizations: await count(
      'SELECT count(*) FROM authorizations WHERE organization_id = $1 AND environment = $2 AND id = $3',
    ),
    attachments: await count(
      'SELECT count(*) FROM authorization_attachments WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3',
    ),
    audit: await count(
      'SELECT count(*) FROM audit_log WHERE organization_id = $1 AND environment = $2 AND subject_id = $3',
    ),
    jobs: await count(
      `SELECT count(*) FROM ${JOB_TABLE} WHERE data->>'organizationId' = $1 AND data->>'environment' = $2
         AND data->>'authorizationId' = $3`,
    ),
  };
}

const NOTHING = { authorizations: 0, attachments: 0, audit: 0, jobs: 0 };

/** The command: files, the aggregate with its attachment, its events and a job. */
const command = (scope: TenantScope, arranged: Arranged, work: UnitOfWork = unitOfWork) =>
  work.run(scope, async (tx) => {
    for (const file of arranged.files) await tx.files.save(file);
    await tx.authorizations.save(arranged.authorization);
    await tx.domainEvents.append(envelopes(arranged));
    await tx.jobs.enqueue({
      type: 'process',
      authorizationId: arranged.authorization.id,
      payload: { attempt: 1 },
    });
  });

describe('TypeOrmUnitOfWork', () => {
  it('commits the aggregate, its children, its events as audit rows and its job together', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_confirmation');
    await command(scope, arranged);
    expect(await footprint(scope, arranged.authorization.id)).toEqual({
      authorizations: 1,
      attachments: 1,
      audit: 1,
      jobs: 1,
    });
    const [audit] = await dataSource.query(
      'SELECT actor, action, subject_type, details FROM audit_log WHERE organization_id = $1 AND subject_id = $2',
      [scope.organizationId, arranged.authorization.id],
    );
    expect(audit).toEqual({
      actor: 'worker',
      action: 'authorization.created',
      subject_type: 'authorization',
      // The event's own id and payload: the audit row is the domain event's only record (decision 0050).
      details: {
        eventId: expect.stringMatching(/^evt_/),
        status: arranged.authorization.status,
        version: arranged.authorization.version,
      },
    });
  });

  it('leaves nothing behind when the work fails half-way', async () => {
    const scope = await createTestTenant(dataSource);
    const arranged = arrange(scope, 'requires_confirmation');
    const failing = unitOfWork.run(scope, async (tx) => {
      for (const file of arranged.files) await tx.files.save(file);
      await tx.authorizations.save(arranged.authorization);
      await tx.domainEvents.append(envelopes(arranged));
      await tx.jobs.enqueue({ type: 'process', authorizationId: arranged.authorization.id });
      throw new Error('boom after writing');
    });
    await expect(failing).rejects.toThrow('boom after writing');
    expect(await footprint(scope, arranged.authorization.id)).toEqual(NOTHING);
    const files = await dataSource.query('SELECT count(*) FROM files WHERE organization_id = $1', [
      scope.organizationId,
    ]);
    expect(Number(files[0].count)).toBe(0);
  });

  it('refuses events of another tenant', async () => {
    const scope = await createTestTenant(dataSource);
    const other = await createTestTenant(dataSource);
    const arranged = arrange(other, 'requires_input');
    await expect(unitOfWork.run(scope, (tx) => tx.domainEvents.append(envelopes(arranged)))).rejects.toThrow(
      /another tenant/,
    );
  });

  describe('within a transaction handed to it', () => {
    const request = (scope: TenantScope, key: string) => ({
      scope,
      key,
      fingerprint: 'POST /x {}',
      now: new Date(),
    });
    /** What a request for the key would be told now (in a transaction of its own). */
    const claim = (scope: TenantScope, key: string) =>
      transactions.run((tx) => idempotency.claim(tx, request(scope, key)));

    it('claims the key, and commits the command and its idempotent response together', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation');
      const key = `key-${uniqueSuffix()}`;

      await transactions.run(
        async (tx) => {
          expect(await idempotency.claim(tx, request(scope, key))).toEqual({ kind: 'claimed' });
          await command(scope, arranged, unitOfWork.within(tx));
          await idempotency.complete(
            {
              ...request(scope, key),
              response: { status: 201, headers: { etag: '"3"' }, body: '{"id":"x"}' },
            },
            tx,
          );
        },
        { actor: 'api_key:key_test', requestId: 'req_1' },
      );

      expect(await footprint(scope, arranged.authorization.id)).toMatchObject({
        authorizations: 1,
        audit: 1,
      });
      expect(await claim(scope, key)).toEqual({
        kind: 'replay',
        status: 201,
        headers: { etag: '"3"' },
        body: '{"id":"x"}',
      });
      const [audit] = await dataSource.query(
        'SELECT actor, request_id FROM audit_log WHERE subject_id = $1',
        [arranged.authorization.id],
      );
      expect(audit).toEqual({ actor: 'api_key:key_test', request_id: 'req_1' });
    });

    it('rolls back the command, its stored response and its claim when the transaction fails after them', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation');
      const key = `key-${uniqueSuffix()}`;

      const failing = transactions.run(async (tx) => {
        expect(await idempotency.claim(tx, request(scope, key))).toEqual({ kind: 'claimed' });
        await command(scope, arranged, unitOfWork.within(tx));
        await idempotency.complete(
          { ...request(scope, key), response: { status: 201, headers: {}, body: '{}' } },
          tx,
        );
        throw new Error('crash before commit');
      });
      await expect(failing).rejects.toThrow('crash before commit');

      expect(await footprint(scope, arranged.authorization.id)).toEqual(NOTHING);
      // Nothing of the key is left: a retry runs the command.
      expect(await claim(scope, key)).toEqual({ kind: 'claimed' });
    });

    it('rolls a refused command back whole; its answer is stored after, on its own', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_confirmation');
      const key = `key-${uniqueSuffix()}`;

      const refused = transactions.run(async (command) => {
        expect(await idempotency.claim(command, request(scope, key))).toEqual({ kind: 'claimed' });
        await unitOfWork.within(command).run(scope, async (tx) => {
          for (const file of arranged.files) await tx.files.save(file);
          await tx.authorizations.save(arranged.authorization);
          throw new DomainError('authorization_not_confirmable', 'no');
        });
      });
      await expect(refused).rejects.toMatchObject({ code: 'authorization_not_confirmable' });
      expect(await footprint(scope, arranged.authorization.id)).toEqual(NOTHING);
      await idempotency.complete({
        ...request(scope, key),
        response: { status: 409, headers: {}, body: '{"error":{"code":"authorization_not_confirmable"}}' },
      });
      expect(await claim(scope, key)).toMatchObject({ kind: 'replay', status: 409 });
    });

    it('joins without a savepoint: a command is one transaction, whatever its units of work', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_input');
      const statements: string[] = [];
      await transactions.run(async (tx) => {
        const runner = tx.manager.queryRunner!;
        const query = runner.query.bind(runner);
        const spy = jest.spyOn(runner, 'query').mockImplementation((sql, ...rest) => {
          statements.push(String(sql));
          return query(sql, ...rest);
        });
        await command(scope, arranged, unitOfWork.within(tx));
        spy.mockRestore();
      });
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.filter((sql) => /SAVEPOINT/i.test(sql))).toEqual([]);
      expect(await footprint(scope, arranged.authorization.id)).toMatchObject({ authorizations: 1 });
    });
    it('joins every unit of work into the one transaction', async () => {
      const scope = await createTestTenant(dataSource);
      const arranged = arrange(scope, 'requires_input');
      const seenInside = await transactions.run(async (tx) => {
        const joined = unitOfWork.within(tx);
        expect(await joined.run(scope, (ports) => ports.files.findById('x'))).toBeNull();
        await command(scope, arranged, joined);
        // Not visible to other connections until the transaction commits.
        return footprint(scope, arranged.authorization.id);
      });
      expect(seenInside).toEqual(NOTHING);
      expect(await footprint(scope, arranged.authorization.id)).toMatchObject({ authorizations: 1 });
    });
  });

  it('revokes grants in its transaction: a close that fails leaves them live', async () => {
    const scope = await createTestTenant(dataSource);
    const subjectId = `mh_${uniqueSuffix()}`;
    const grantId = `grant_${uniqueSuffix()}`;
    const now = new Date();
    await new TypeOrmAccessGrantStore(dataSource).record({
      id: grantId,
      scope,
      kind: 'manual_handoff',
      subjectId,
      expiresAt: new Date(now.getTime() + 60_000),
      createdAt: now,
    });
    const closing = new TypeOrmUnitOfWork(dataSource, {
      cursors: testCursors(),
      grants: (ledger) => ({
        issue: () => Promise.reject(new Error('not issued here')),
        revokeForSubject: async (subject) => void (await ledger.revokeForSubject(subject, now)),
      }),
    });
    const revokedAt = async () =>
      (await dataSource.query('SELECT revoked_at FROM access_grants WHERE id = $1', [grantId]))[0].revoked_at;

    await expect(
      closing.run(scope, async (tx) => {
        await tx.grants.revokeForSubject(subjectId);
        throw new Error('the handoff could not be saved');
      }),
    ).rejects.toThrow('the handoff could not be saved');
    expect(await revokedAt()).toBeNull();
    await closing.run(scope, (tx) => tx.grants.revokeForSubject(subjectId));
    expect(await revokedAt()).toEqual(now);
  });

  describe('a unit of work nested in another', () => {
    it('rolls back to its savepoint: the outer one goes on and commits its own writes', async () => {
      const scope = await createTestTenant(dataSource);
      const kept = arrange(scope, 'requires_input');
      const dropped = arrange(scope, 'requires_confirmation');
      await transactions.run((outer) =>
        unitOfWork.within(outer, 'savepoint').run(scope, async (tx) => {
          await tx.authorizations.save(kept.authorization);
          const inner = unitOfWork.within(outer, 'savepoint').run(scope, async (nested) => {
            for (const file of dropped.files) await nested.files.save(file);
            await nested.authorizations.save(dropped.authorization);
            throw new DomainError('authorization_not_confirmable', 'no');
          });
          await expect(inner).rejects.toMatchObject({ code: 'authorization_not_confirmable' });
        }),
      );
      expect(await footprint(scope, kept.authorization.id)).toMatchObject({ authorizations: 1 });
      expect(await footprint(scope, dropped.authorization.id)).toEqual(NOTHING);
    });
  });

  it('reports a database that went away as a retryable DatabaseUnavailableError', async () => {
    // A TCP proxy in front of the server, so the test can make the database vanish for this pool only.
    const target = new URL(process.env.DATABASE_URL!);
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(target.toString());
    proxied.hostname = '127.0.0.1';
    proxied.port = String((proxy.address() as AddressInfo).port);
    const flaky = createDataSource({ url: proxied.toString(), poolSize: 2 });
    await flaky.initialize();
    try {
      const scope = await createTestTenant(dataSource);
      const flakyWork = new TypeOrmUnitOfWork(flaky, { cursors: testCursors() });
      expect(await flakyWork.run(scope, (tx) => tx.files.findById('x'))).toBeNull();

      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      const failing = flakyWork.run(scope, (tx) => tx.files.findById('x'));
      await expect(failing).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(failing).rejects.toMatchObject({ retryable: true, code: 'database_unavailable' });
      // A refusal's answer, stored on its own connection.
      const idempotencyFailure = new PostgresIdempotencyStore(flaky).complete({
        scope,
        key: 'k',
        fingerprint: 'f',
        now: new Date(),
        response: { status: 409, headers: {}, body: '{}' },
      });
      await expect(idempotencyFailure).rejects.toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await flaky.destroy().catch(() => undefined);
    }
  });

  it('reports a connection killed mid-transaction as DatabaseUnavailableError', async () => {
    const victim = await openTestDataSource(2);
    try {
      const scope = await createTestTenant(dataSource);
      const failing = new TypeOrmTransactions(victim).run(async (tx) => {
        const [{ pid }] = await tx.manager.query('SELECT pg_backend_pid() AS pid');
        await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
        // The unit of work joins the transaction, whose connection is gone.
        return new TypeOrmUnitOfWork(victim, { cursors: testCursors() })
          .within(tx)
          .run(scope, (ports) => ports.files.findById('x'));
      });
      await expect(failing).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(failing).rejects.toMatchObject({ retryable: true });
    } finally {
      await victim.destroy().catch(() => undefined);
    }
  });
});
