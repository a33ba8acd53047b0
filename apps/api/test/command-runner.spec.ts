import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DomainError } from '@prior-auth/domain';
import {
  CommitRefusedError,
  DatabaseUnavailableError,
  IdempotencyClaimLostError,
  InvalidCursorError,
  type ClaimResult,
  type PostgresIdempotencyStore,
  type PostgresTransaction,
  type StoredResponse,
  type TypeOrmTransactions,
} from '@prior-auth/persistence-postgres';
import { createLogger } from '@prior-auth/platform';
import express, { type Express, type Request } from 'express';
import request from 'supertest';
import { asyncHandler } from '../src/http/async-handler';
import { CommandRunner, fingerprint, type CommandResult } from '../src/http/command-runner';
import { errorHandler, toErrorResponse } from '../src/http/error-handler';
import { requestContext } from '../src/http/request-context';
import { requestIdMiddleware } from '../src/http/request-id.middleware';

/**
 * The runner on fakes: which store calls happen for each kind of outcome, and in which transaction. The fake
 * transaction models a deferred one (decision 0055): for a command that `reads`, it opens (running `opened`,
 * the claim) before the handler; for one that only writes, its one statement is refused unless the key was free.
 */
function harness(
  claim: ClaimResult,
  handler: (tx: PostgresTransaction) => Promise<CommandResult>,
  complete?: () => Promise<void>,
  command: 'reads' | 'only writes' | 'handler opens' = 'reads',
  /** A handler made for each request, as the controllers make theirs (closing over the request). */
  handlerFor?: (req: Request) => (tx: PostgresTransaction) => Promise<CommandResult>,
) {
  const calls = {
    /** Each attempt's work, kept past its command as something on the transaction's path might keep it. */
    works: [] as Array<(tx: PostgresTransaction) => Promise<unknown>>,
    claimedIn: [] as PostgresTransaction[],
    complete: [] as StoredResponse[],
    completedIn: [] as Array<PostgresTransaction | undefined>,
    transactions: 0,
    /** In `handler opens` mode: what the handler's first read would do, opening the transaction. */
    open: async (): Promise<void> => {},
  };
  const store = {
    claim: async (tx: PostgresTransaction) => {
      calls.claimedIn.push(tx);
      return claim;
    },
    complete: async (ref: { response: StoredResponse }, tx?: PostgresTransaction) => {
      calls.complete.push(ref.response);
      calls.completedIn.push(tx);
      await complete?.();
    },
  } as unknown as PostgresIdempotencyStore;
  const transactions = {
    run: async <T>(
      work: (tx: PostgresTransaction) => Promise<T>,
      _metadata: unknown,
      options: { opened?: (tx: PostgresTransaction) => Promise<void> } = {},
    ) => {
      calls.transactions += 1;
      calls.works.push(work);
      if (options.opened && command === 'reads') await options.opened(commandTransaction);
      const opened = options.opened;
      if (opened && command === 'handler opens') calls.open = () => opened(commandTransaction);
      const result = await work(commandTransaction);
      if (options.opened && command === 'only writes' && claim.kind !== 'claimed') {
        throw new CommitRefusedError(new Error('the key was not free'));
      }
      return result;
    },
  } as unknown as TypeOrmTransactions;
  const logger = createLogger({ name: 'test', level: 'silent' });
  const runner = new CommandRunner(store, transactions);
  const app: Express = express();
  app.use(requestIdMiddleware);
  app.use((req, _res, next) => {
    requestContext(req).auth = {
      apiKeyId: 'key_1',
      apiVersion: null,
      scope: { organizationId: 'org_1', environment: 'sandbox' },
    };
    next();
  });
  app.use(express.json());
  app.post(
    '/x',
    asyncHandler((req, res) =>
      runner.run(
        req,
        res,
        {
          operation: 'x',
          idempotencyKey: req.header('idempotency-key') ?? null,
          params: {},
          body: req.body,
          ifMatch: null,
        },
        handlerFor === undefined ? handler : handlerFor(req),
      ),
    ),
  );
  app.use(errorHandler(logger));
  return { app, calls };
}

const commandTransaction = { manager: {}, metadata: {} } as unknown as PostgresTransaction;
const claimed: ClaimResult = { kind: 'claimed' };
const ok = async (): Promise<CommandResult> => ({ status: 201, headers: { ETag: '"1"' }, body: { id: 'a' } });

describe('CommandRunner', () => {
  it('claims the key and stores the success response in the transaction it gave the handler, and sends exactly those bytes', async () => {
    const handedOver: PostgresTransaction[] = [];
    const { app, calls } = harness(claimed, async (tx) => {
      handedOver.push(tx);
      return ok();
    });
    const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(201);
    expect(calls.complete).toEqual([{ status: 201, headers: { ETag: '"1"' }, body: '{"id":"a"}' }]);
    expect(handedOver).toEqual([commandTransaction]);
    expect(calls.claimedIn).toEqual([commandTransaction]);
    expect(calls.completedIn).toEqual([commandTransaction]);
    expect(calls.transactions).toBe(1);
    expect(res.text).toBe('{"id":"a"}');
    expect(res.headers.etag).toBe('"1"');
  });

  it('stores a domain error as its envelope', async () => {
    const { app, calls } = harness(claimed, async () => {
      throw new DomainError('review_stale', 'stale');
    });
    const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(409);
    expect(calls.complete).toHaveLength(1);
    // After the rollback, on its own: not in the command's transaction.
    expect(calls.completedIn).toEqual([undefined]);
    expect(calls.complete[0]!.status).toBe(409);
    expect(calls.complete[0]!.body).toBe(res.text);
    expect(res.body.error.code).toBe('review_stale');
  });

  it('stores nothing on an unexpected error (500, retryable): the claim ends with the transaction', async () => {
    const { app, calls } = harness(claimed, async () => {
      throw new Error('bug');
    });
    const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(500);
    expect(res.body.error).toMatchObject({ code: 'internal_error', retryable: true });
    expect(calls.complete).toEqual([]);
    expect(calls.transactions).toBe(1);
  });

  it('answers idempotency_key_in_use when another request answered the key before the response was stored', async () => {
    const { app } = harness(claimed, ok, async () => {
      throw new IdempotencyClaimLostError('k');
    });
    const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(409);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_in_use', retryable: true });
    expect(res.headers['retry-after']).toBe('1');
  });

  it('answers idempotency_key_in_use while another request holds the key, and reused for another request', async () => {
    let ran = false;
    const handler = async () => {
      ran = true;
      return ok();
    };
    const answer = (claim: ClaimResult) =>
      request(harness(claim, handler).app).post('/x').set('Idempotency-Key', 'k').send({}).expect(409);
    const busy = await answer({ kind: 'in_flight' });
    expect(busy.body.error).toMatchObject({ code: 'idempotency_key_in_use', retryable: true });
    expect(busy.headers['retry-after']).toBe('1');
    const reused = await answer({ kind: 'mismatch' });
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', retryable: false });
    expect(ran).toBe(false);
  });

  it('replays a stored response without running the handler', async () => {
    let ran = false;
    const { app, calls } = harness(
      { kind: 'replay', status: 202, headers: { ETag: '"9"' }, body: '{"x": 1}' },
      async () => {
        ran = true;
        return ok();
      },
    );
    const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(202);
    expect(res.text).toBe('{"x": 1}');
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.headers.etag).toBe('"9"');
    expect(ran).toBe(false);
    expect(calls.claimedIn).toEqual([commandTransaction]);
    expect(calls.complete).toEqual([]);
  });

  it('runs commands without a key in a transaction, without claiming', async () => {
    const { app, calls } = harness({ kind: 'mismatch' }, ok);
    await request(app).post('/x').send({}).expect(201);
    expect(calls.transactions).toBe(1);
    expect(calls.claimedIn).toEqual([]);
    expect(calls.complete).toEqual([]);
  });

  describe('a command that only writes (one statement, decision 0055)', () => {
    const replay: ClaimResult = { kind: 'replay', status: 202, headers: { ETag: '"9"' }, body: '{"x": 1}' };

    it('commits with its answer, claiming nothing first', async () => {
      const { app, calls } = harness(claimed, ok, undefined, 'only writes');
      const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(201);
      expect(res.text).toBe('{"id":"a"}');
      expect(calls.claimedIn).toEqual([]);
      expect(calls.completedIn).toEqual([commandTransaction]);
      expect(calls.transactions).toBe(1);
    });

    it('runs again, claiming first, when its statement was refused: the stored answer is replayed', async () => {
      let runs = 0;
      const { app, calls } = harness(
        replay,
        async () => {
          runs += 1;
          return ok();
        },
        undefined,
        'only writes',
      );
      const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(202);
      expect(res.text).toBe('{"x": 1}');
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(runs).toBe(1);
      expect(calls.claimedIn).toEqual([commandTransaction]);
      expect(calls.transactions).toBe(2);
    });

    it('answers idempotency_key_in_use and idempotency_key_reused after a refused statement', async () => {
      const answer = (claim: ClaimResult) =>
        request(harness(claim, ok, undefined, 'only writes').app)
          .post('/x')
          .set('Idempotency-Key', 'k')
          .send({})
          .expect(409);
      expect((await answer({ kind: 'in_flight' })).body.error.code).toBe('idempotency_key_in_use');
      expect((await answer({ kind: 'mismatch' })).body.error.code).toBe('idempotency_key_reused');
    });

    it('stores a domain refusal met before the key was claimed only once the key is claimed', async () => {
      let runs = 0;
      const { app, calls } = harness(
        claimed,
        async () => {
          runs += 1;
          throw new DomainError('review_stale', 'stale');
        },
        undefined,
        'only writes',
      );
      const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(409);
      expect(res.body.error.code).toBe('review_stale');
      expect(runs).toBe(2);
      expect(calls.claimedIn).toEqual([commandTransaction]);
      expect(calls.completedIn).toEqual([undefined]);
      expect(calls.complete[0]!.body).toBe(res.text);
    });

    it('ends a command whose key was not free when it opened, even if the handler swallowed that', async () => {
      const { app, calls } = harness(
        { kind: 'in_flight' },
        async () => {
          await calls.open().catch(() => undefined);
          return ok();
        },
        undefined,
        'handler opens',
      );
      const res = await request(app).post('/x').set('Idempotency-Key', 'k').send({}).expect(409);
      expect(res.body.error.code).toBe('idempotency_key_in_use');
      expect(calls.complete).toEqual([]);
    });

    it('runs a command without a key again in an ordinary transaction when its statement was refused', async () => {
      const { app, calls } = harness({ kind: 'mismatch' }, ok, undefined, 'only writes');
      await request(app).post('/x').send({}).expect(201);
      expect(calls.transactions).toBe(2);
      expect(calls.claimedIn).toEqual([]);
    });
  });

  describe('lets go of the handler of each attempt once it settles (docs/performance.md, twenty-fourth round)', () => {
    // The collector, for the test to see what is still reachable.
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;

    // The fake refuses a command's one statement when the claim it is given is not `claimed`.
    const refused: ClaimResult = { kind: 'mismatch' };
    it.each([
      ['with a key', 'k', claimed, 'reads', 1],
      ['without a key', null, claimed, 'reads', 1],
      ['without a key, run again after its one statement was refused', null, refused, 'only writes', 2],
    ] as const)('%s', async (_name, key, claim, command, attempts) => {
      const requests: Array<WeakRef<object>> = [];
      let runs = 0;
      const { app, calls } = harness(claim, ok, undefined, command, () => {
        // Stands for the request the controllers' handlers close over.
        const incoming = { path: '/x' };
        requests.push(new WeakRef(incoming));
        return async () => {
          runs += incoming.path === '/x' ? 1 : 0;
          return ok();
        };
      });
      const post = request(app).post('/x');
      await (key === null ? post : post.set('Idempotency-Key', key)).send({}).expect(201);
      expect(calls.works).toHaveLength(attempts);
      expect(runs).toBe(attempts);

      // What the transaction's path kept no longer reaches the handler: run again, it runs nothing.
      for (const work of calls.works) {
        await expect(work(commandTransaction)).rejects.toThrow('a command attempt ran its handler twice');
      }
      expect(runs).toBe(attempts);
      // A WeakRef's target is kept until the job that made or read it ends.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(requests).toHaveLength(1);
      expect(requests[0]!.deref()).toBeUndefined();
      // The attempts were still held while the collector ran.
      expect(calls.works).toHaveLength(attempts);
    });
  });

  it('fingerprints method, operation, parameters, canonical body and If-Match', () => {
    const spec = {
      operation: 'o',
      idempotencyKey: 'k',
      params: { id: 'a' },
      body: { b: 1, a: [1, { d: 2, c: 3 }] },
      ifMatch: 2,
    };
    const same = fingerprint('POST', { ...spec, body: { a: [1, { c: 3, d: 2 }], b: 1 } });
    expect(fingerprint('POST', spec)).toBe(same);
    expect(fingerprint('POST', { ...spec, ifMatch: 3 })).not.toBe(same);
    expect(fingerprint('POST', { ...spec, params: { id: 'b' } })).not.toBe(same);
    expect(fingerprint('POST', { ...spec, operation: 'p' })).not.toBe(same);
    expect(fingerprint('POST', { ...spec, body: { b: 1, a: [{ d: 2, c: 3 }, 1] } })).not.toBe(same);
    // An absent body is the empty object.
    expect(fingerprint('POST', { ...spec, body: undefined })).toBe(
      fingerprint('POST', { ...spec, body: {} }),
    );
    expect(same).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('error mapping of persistence errors', () => {
  it('maps an unavailable database to 503 retryable and a bad cursor to 422 at query.cursor', () => {
    const down = toErrorResponse(new DatabaseUnavailableError(new Error('ECONNREFUSED')), 'req_1');
    expect(down).toMatchObject({
      status: 503,
      body: { error: { code: 'service_unavailable', retryable: true } },
    });
    expect(JSON.stringify(down.body)).not.toContain('ECONNREFUSED');
    const cursor = toErrorResponse(new InvalidCursorError('malformed'), 'req_1');
    expect(cursor).toMatchObject({
      status: 422,
      body: { error: { code: 'request_validation_failed', issues: [{ location: ['query', 'cursor'] }] } },
    });
  });
});
