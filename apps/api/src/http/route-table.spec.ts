import type { Request, Response } from 'express';
import type { CommandRunner, CommandSpec } from './command-runner';
import { HttpError, validationFailed } from './http-error';
import { requiredVersion, runCommand, type CommandRoute } from './route-table';

/** The command ritual of decision 0023 as `runCommand` runs it, with a runner that records what it was given. */
describe('runCommand', () => {
  const requestWith = (headers: Record<string, string>, body: unknown = {}) =>
    ({ header: (name: string) => headers[name.toLowerCase()], body }) as unknown as Request;
  const recording = () => {
    const runs: CommandSpec[] = [];
    const runner = {
      run: async (_req: Request, _res: Response, spec: CommandSpec, handler: () => Promise<unknown>) => {
        runs.push(spec);
        await handler();
      },
    } as unknown as CommandRunner;
    return { runs, runner };
  };
  const route = (overrides: Partial<CommandRoute<string>> = {}): CommandRoute<string> => ({
    operation: 'things.update',
    preconditions: { idempotencyKey: 'required', ifMatch: 'required' },
    params: { thingId: 'thing_1' },
    body: () => 'validated',
    ...overrides,
  });
  const res = {} as Response;
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ran',
      (error: HttpError) => `${error.status} ${error.code}`,
    );

  it('runs the command with the key, the If-Match version and the validated body', async () => {
    const { runs, runner } = recording();
    const seen: Array<[string, number | null]> = [];
    const req = requestWith({ 'idempotency-key': 'key-1', 'if-match': '"4"' }, { a: 1 });
    await runCommand(runner, req, res, route(), async (body, version) => {
      seen.push([body, version]);
      return { status: 200, headers: {}, body: {} };
    });
    expect(runs).toEqual([
      {
        operation: 'things.update',
        idempotencyKey: 'key-1',
        params: { thingId: 'thing_1' },
        body: { a: 1 },
        ifMatch: 4,
      },
    ]);
    expect(seen).toEqual([['validated', 4]]);
  });

  it('answers the key and the body in one 422, before If-Match is looked at', async () => {
    const { runs, runner } = recording();
    const body = () => {
      throw validationFailed([{ errorType: 'missing', location: ['body', 'x'], message: 'x is required' }]);
    };
    const refusal = await runCommand(runner, requestWith({}), res, route({ body }), async () => ({
      status: 200,
      headers: {},
      body: {},
    })).catch((error: HttpError) => error);
    expect(refusal).toBeInstanceOf(HttpError);
    expect((refusal as HttpError).options.issues?.map((issue) => issue.location)).toEqual([
      ['headers', 'Idempotency-Key'],
      ['body', 'x'],
    ]);
    expect(runs).toEqual([]);
  });

  it('reads the resource before judging If-Match, so an unknown one is its not-found error', async () => {
    const { runner } = recording();
    const scopedRead = async () => {
      throw new HttpError(404, 'thing_not_found', 'No such thing.');
    };
    const ok = async () => ({ status: 200, headers: {}, body: {} });
    const keyOnly = requestWith({ 'idempotency-key': 'key-1' });
    expect(await codeOf(runCommand(runner, keyOnly, res, route({ scopedRead }), ok))).toBe(
      '404 thing_not_found',
    );
    expect(await codeOf(runCommand(runner, keyOnly, res, route(), ok))).toBe('428 precondition_required');
  });

  it('checks an optional If-Match and Idempotency-Key only when sent', async () => {
    const { runs, runner } = recording();
    const optional = route({ preconditions: { idempotencyKey: 'optional', ifMatch: 'optional' } });
    const ok = async () => ({ status: 200, headers: {}, body: {} });
    await runCommand(runner, requestWith({}), res, optional, ok);
    expect(runs.map(({ idempotencyKey, ifMatch }) => [idempotencyKey, ifMatch])).toEqual([[null, null]]);
    expect(await codeOf(runCommand(runner, requestWith({ 'if-match': 'W/"1"' }), res, optional, ok))).toBe(
      '400 bad_request',
    );
  });

  it('requiredVersion refuses a missing version (a route that does not require If-Match)', () => {
    expect(requiredVersion(3)).toBe(3);
    expect(() => requiredVersion(null)).toThrow('requires If-Match');
  });
});
