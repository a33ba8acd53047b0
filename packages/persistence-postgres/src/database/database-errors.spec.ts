import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable, translateDatabaseError } from './database-errors';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const queryFailed = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['connection reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a timed-out socket', withCode('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND db', 'ENOTFOUND')],
    ['an unreachable network', withCode('connect ENETUNREACH', 'ENETUNREACH')],
    [
      'terminated by the administrator',
      withCode('terminating connection due to administrator command', '57P01'),
    ],
    [
      'a crash shutdown',
      withCode('terminating connection because of crash of another server process', '57P02'),
    ],
    ['a server starting up', withCode('the database system is starting up', '57P03')],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    ['a per-role connection limit', withCode('too many connections for role "app"', '53400')],
    ['a read-only server (failover)', withCode('cannot execute INSERT in a read-only transaction', '25006')],
    ['a connection exception (class 08)', withCode('connection failure', '08006')],
    [
      'an idle session closed by the server',
      withCode('terminating connection due to idle-session timeout', '57P05'),
    ],
    ['a connection ended mid-query', new Error('Connection terminated unexpectedly')],
    ['a connect timeout of the pool', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout of a client', new Error('Connection terminated due to connection timeout')],
    [
      'a client that lost its connection',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['a pool already ended', new Error('Cannot use a pool after calling end on the pool')],
    ['a server starting up, without a code', new Error('the database system is starting up')],
    ['a released query runner', new QueryRunnerAlreadyReleasedError()],
    ['a released query runner provider', new QueryRunnerProviderAlreadyReleasedError()],
    ['an error already translated', new DatabaseUnavailableError(new Error('x'))],
  ])('recognizes %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('looks inside TypeORM query failures, cause chains and aggregate connection attempts', () => {
    expect(isDatabaseUnavailable(queryFailed(withCode('terminating connection', '57P01')))).toBe(true);
    expect(
      isDatabaseUnavailable(new Error('lookup failed', { cause: withCode('connect', 'ECONNREFUSED') })),
    ).toBe(true);
    // Node tries every address of a host name and reports all refusals at once.
    const attempts = new AggregateError([
      withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    ]);
    expect(isDatabaseUnavailable(attempts)).toBe(true);
  });

  it.each([
    ['a unique violation', queryFailed(withCode('duplicate key value', '23505'))],
    ['a syntax error', queryFailed(withCode('syntax error at or near', '42601'))],
    ['a statement timeout', queryFailed(withCode('canceling statement due to statement timeout', '57014'))],
    ['a serialization failure', queryFailed(withCode('could not serialize access', '40001'))],
    ['a plain error', new Error('targetType is not a constructor')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
    ['undefined', undefined],
  ])('leaves %s alone', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('stops on a cyclic cause chain', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    (first as { cause?: unknown }).cause = second;
    expect(isDatabaseUnavailable(first)).toBe(false);
  });

  it('translates only connection failures, once', () => {
    const refused = withCode('connect ECONNREFUSED', 'ECONNREFUSED');
    const translated = translateDatabaseError(refused);
    expect(translated).toBeInstanceOf(DatabaseUnavailableError);
    expect((translated as Error).cause).toBe(refused);
    expect(translateDatabaseError(translated)).toBe(translated);
    const duplicate = queryFailed(withCode('duplicate key value', '23505'));
    expect(translateDatabaseError(duplicate)).toBe(duplicate);
  });
});
