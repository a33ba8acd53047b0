import type { PostgresTransaction } from '@prior-auth/persistence-postgres';
import type { Request, Response, Router } from 'express';
import type { OperationDoc } from '../openapi/openapi.operations';
import { asyncHandler } from './async-handler';
import type { CommandResult, CommandRunner } from './command-runner';
import { methodNotAllowed } from './method-not-allowed';
import { noteRouteBase } from './request-context';
import { idempotencyKey, ifMatchAfterScoping } from './preconditions';
import { validateAll } from './validation';

export type RouteHandler = (req: Request, res: Response) => Promise<void>;
export type RouteMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * One operation, defined once (docs/decisions/0040-routes-feed-the-openapi-document.md): what serves it, given
 * the controllers of its resource, and what the OpenAPI document says of it.
 */
export interface Route<C> {
  serve: (controllers: C, req: Request, res: Response) => Promise<void>;
  openapi: OperationDoc;
}

/** Each path (Express syntax, relative to the resource's mount) with its operations, in registration order. */
export type RouteTable<C> = Record<string, Partial<Record<RouteMethod, Route<C>>>>;

/** Where a resource is served, and how the document files its operations there. */
export interface Mount {
  /** The full path prefix (`/v1/files`); empty for the root. */
  path: string;
  tag: string;
  /** Keeps operation ids unique when one table is served under several prefixes. */
  operationIdSuffix: string;
}

/** A route table and the prefixes it is served under: the one source of the router and the document. */
export interface Resource<C> {
  mounts: readonly Mount[];
  routes: RouteTable<C>;
}

/**
 * Registers a table of routes on the router, bound to `controllers`: every handler's rejection reaches the
 * error middleware, and any other method on a known path answers 405 method_not_allowed (decision 0023).
 */
export function addRoutes<R extends Pick<Router, 'route'>, C>(
  router: R,
  table: RouteTable<C>,
  controllers: C,
): R {
  for (const [path, methods] of Object.entries(table)) {
    const route = router.route(path);
    for (const [method, entry] of Object.entries(methods) as Array<[RouteMethod, Route<C>]>) {
      route[method](
        asyncHandler((req, res) => {
          noteRouteBase(req);
          return entry.serve(controllers, req, res);
        }),
      );
    }
    route.all((req, res, next) => {
      noteRouteBase(req);
      methodNotAllowed(req, res, next);
    });
  }
  return router;
}

/**
 * Mounts a resource's router at each of its mounts, on `parent` (itself mounted at `parentPath`), so the
 * prefixes the document names are the ones served.
 */
export function mountResource(
  parent: Pick<Router, 'use'>,
  parentPath: string,
  resource: Resource<never>,
  router: Router,
): void {
  for (const mount of resource.mounts) {
    if (!mount.path.startsWith(`${parentPath}/`)) {
      throw new Error(`${mount.path} is not under ${parentPath}`);
    }
    parent.use(mount.path.slice(parentPath.length), router);
  }
}

/** A command as its route declares it: the preconditions its document entry names, and what it runs on. */
export interface CommandRoute<B> {
  /**
   * Stable operation name (`files.create`), part of the idempotency fingerprint (see `CommandSpec`): never
   * derived from the path, so both authorization path families are one command.
   */
  operation: string;
  /** The route's OpenAPI entry: its Idempotency-Key and If-Match preconditions, stated once. */
  preconditions: Pick<OperationDoc, 'idempotencyKey' | 'ifMatch'>;
  params: Record<string, string>;
  /** Validates the body; its issues are answered in one 422 with the Idempotency-Key's. */
  body: () => B;
  /** Reads the resource the If-Match applies to within the tenant (its not-found error comes first). */
  scopedRead?: () => Promise<unknown>;
}

/**
 * The command ritual of decision 0023, in its order: the Idempotency-Key and the body validated together (422,
 * never stored), If-Match only once the resource is known to exist for the tenant (else 404), then the
 * idempotent run. An optional If-Match is checked only when sent.
 */
export async function runCommand<B>(
  commands: CommandRunner,
  req: Request,
  res: Response,
  route: CommandRoute<B>,
  handler: (body: B, expectedVersion: number | null, tx: PostgresTransaction) => Promise<CommandResult>,
): Promise<void> {
  const { idempotencyKey: keyRule, ifMatch } = route.preconditions;
  const [key, body] = validateAll(
    () => (keyRule === undefined ? null : idempotencyKey(req, keyRule === 'required')),
    route.body,
  );
  const checked = ifMatch === 'required' || (ifMatch === 'optional' && req.header('if-match') !== undefined);
  const expectedVersion = checked
    ? await ifMatchAfterScoping(req, route.scopedRead ?? (async () => undefined))
    : null;
  await commands.run(
    req,
    res,
    {
      operation: route.operation,
      idempotencyKey: key,
      params: route.params,
      body: req.body,
      ifMatch: expectedVersion,
    },
    (tx) => handler(body, expectedVersion, tx),
  );
}

/** The version a command got where its route requires If-Match (`runCommand` has already refused its absence). */
export function requiredVersion(expectedVersion: number | null): number {
  if (expectedVersion === null) throw new Error('this command requires If-Match, but its route does not');
  return expectedVersion;
}
