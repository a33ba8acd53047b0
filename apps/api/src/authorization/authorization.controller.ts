import {
  DomainError,
  type Authorization,
  type AttachFileUseCase,
  type AuthorizationStatus,
  type CancelAuthorizationUseCase,
  type ConfirmAuthorizationUseCase,
  type CreateAuthorizationUseCase,
  type DetachAttachmentUseCase,
  type GetAuthorizationUseCase,
  type ListAuthorizationsUseCase,
  type PatchAnswersUseCase,
} from '@prior-auth/domain';
import { API_VERSION_HEADER } from '@prior-auth/platform';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { apiVersionOf, isLegacyRequest } from '../http/api-version.middleware';
import { CommandRunner, type CommandResult } from '../http/command-runner';
import { parseLimit } from '../http/pagination';
import { idempotencyKey } from '../http/preconditions';
import { pathParam, scopeOf } from '../http/request-context';
import { requiredVersion, runCommand, type CommandRoute } from '../http/route-table';
import { assertEmptyBody, validateAll, validateInput } from '../http/validation';
import { patchAnswersCommand } from './patch-answers.command';
import type { TransactionBound } from '../http/transaction-bound';
import { TOKENS } from '../tokens';
import type { ReadAuditRecorder } from '../audit/read-audit.recorder';
import {
  etagOf,
  etagOfVersion,
  presentAuthorization,
  presentLegacyAuthorization,
} from '@prior-auth/presentation';
import { sendJsonText } from '../http/json-text';
import {
  AuthorizationRepresentations,
  type AuthorizationRepresentation,
} from './authorization-representations';
import {
  AttachFileRequest,
  ConfirmRequest,
  CreateAuthorizationRequest,
  LegacyCreateAuthorizationRequest,
  ListAuthorizationsQuery,
  createAuthorizationIssues,
  finalSubmissionPolicyOf,
  knownServiceCodeSystem,
  toCreateCommand,
} from './authorization.request';
import { AUTHORIZATION_OPERATIONS } from './authorization.openapi';

/** Every authorization use case the API drives; built in the composition root, per command for commands. */
export interface AuthorizationUseCases {
  create: CreateAuthorizationUseCase;
  get: GetAuthorizationUseCase;
  list: ListAuthorizationsUseCase;
  patchAnswers: PatchAnswersUseCase;
  attachFile: AttachFileUseCase;
  detachAttachment: DetachAttachmentUseCase;
  confirm: ConfirmAuthorizationUseCase;
  cancel: CancelAuthorizationUseCase;
}

/** The fixed parts of a list's answer around its items' held bytes. */
const LIST_OPENING = Buffer.from('{"data":[');
const LIST_SEPARATOR = Buffer.from(',');

/** The text an unchanged listed item was known by: only a held text makes an item unchanged. */
const heldFor = (
  held: ReadonlyMap<string, AuthorizationRepresentation>,
  id: string,
): AuthorizationRepresentation => {
  const representation = held.get(id);
  if (representation === undefined) throw new Error(`listed ${id} as unchanged without holding its text`);
  return representation;
};

/** The authorization in the request's API version (decision 0029): versions are presentation. */
const presentFor = (req: Request) =>
  isLegacyRequest(req) ? presentLegacyAuthorization : presentAuthorization;

/**
 * The stored answer of a command names its version, so a replay answers the original shape and header
 * whatever version the retry asks for (the body is already presented).
 */
const authorizationResult = (
  req: Request,
  status: number,
  authorization: Authorization,
  headers: Record<string, string> = {},
): CommandResult => ({
  status,
  // Assigned, not spread then extended (a new hidden class per answer otherwise; docs/performance.md).
  headers: Object.assign({}, headers, {
    ETag: etagOf(authorization),
    [API_VERSION_HEADER]: apiVersionOf(req),
  }),
  body: presentFor(req)(authorization),
});

/**
 * The authorization endpoints, served under both path families (`/v1/prior-auth/authorizations` and
 * `/v1/prior-authorizations`). Every command follows the same order (decision 0023): authentication
 * (middleware), request validation (422, never stored), If-Match syntax (428/400, checked only once the
 * authorization is known to exist for the tenant, else 404), then the idempotent command itself, where the use
 * case checks tenant scoping (404) and the version (409 version_conflict).
 */
@injectable()
export class AuthorizationController {
  constructor(
    @inject(TOKENS.AuthorizationUseCases) private readonly useCases: TransactionBound<AuthorizationUseCases>,
    @inject(CommandRunner) private readonly commands: CommandRunner,
    @inject(TOKENS.ReadAudit) private readonly readAudit: ReadAuditRecorder,
    @inject(AuthorizationRepresentations) private readonly representations: AuthorizationRepresentations,
  ) {}

  async create(req: Request, res: Response): Promise<void> {
    if (isLegacyRequest(req)) return this.createLegacy(req, res);
    const scope = scopeOf(req);
    const [key, body] = validateAll(
      () => idempotencyKey(req, true),
      () => validateInput(CreateAuthorizationRequest, req.body, 'body', createAuthorizationIssues),
    );
    const finalSubmission = finalSubmissionPolicyOf(body);
    if (finalSubmission === null) {
      // The spec lists this exact error for a missing policy; like other validation failures it is not stored.
      throw new DomainError('final_submission_policy_required', 'policy.finalSubmission is required.');
    }
    const command = toCreateCommand(body, finalSubmission);
    await this.commands.run(
      req,
      res,
      { operation: 'authorizations.create', idempotencyKey: key, params: {}, body: req.body, ifMatch: null },
      async (tx) => {
        const authorization = await this.useCases.within(tx).create.execute(scope, command);
        return authorizationResult(req, 201, authorization, {
          Location: `${req.baseUrl}/${authorization.id}`,
        });
      },
    );
  }

  /**
   * Create under 2024-01-01 (decision 0029): no policy (the case gets `automatic`), Idempotency-Key
   * optional, the code system a free string matched case-insensitively. An unknown system is the same refusal
   * as an unserviceable route, answered (and stored) like the use case's.
   */
  private async createLegacy(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const [key, body] = validateAll(
      () => idempotencyKey(req, false),
      () => validateInput(LegacyCreateAuthorizationRequest, req.body, 'body', createAuthorizationIssues),
    );
    await this.commands.run(
      req,
      res,
      { operation: 'authorizations.create', idempotencyKey: key, params: {}, body: req.body, ifMatch: null },
      async (tx) => {
        const serviceCodeSystem = knownServiceCodeSystem(body.templateSelection.serviceCodeSystem);
        if (serviceCodeSystem === null) {
          throw new DomainError(
            'unsupported_template_selection',
            'No serviceable route matches this service code system.',
          );
        }
        const command = toCreateCommand(
          { ...body, templateSelection: { ...body.templateSelection, serviceCodeSystem } },
          'automatic',
        );
        const authorization = await this.useCases.within(tx).create.execute(scope, command);
        return authorizationResult(req, 201, authorization, {
          Location: `${req.baseUrl}/${authorization.id}`,
        });
      },
    );
  }

  async list(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const query = validateInput(ListAuthorizationsQuery, req.query, 'query');
    const limit = parseLimit(query.limit);
    const apiVersion = apiVersionOf(req);
    const now = Date.now();
    // The items this process holds the text of, at the version it was made from: only the others are loaded
    // (ListAuthorizationsUseCase.executeIfChanged), and the held ones are kept here for this answer.
    const held = new Map<string, AuthorizationRepresentation>();
    // The repository signs cursors bound to the tenant and the status filter (InvalidCursorError → 422).
    const page = await this.useCases.list.executeIfChanged(
      scope,
      {
        status: query.status as AuthorizationStatus | undefined,
        overdue: query.overdue === 'true',
        limit,
        cursor: query.cursor,
      },
      (id) => {
        const representation = this.representations.find(scope, id, apiVersion, now);
        if (representation !== undefined) held.set(id, representation);
        return representation?.version;
      },
    );
    const present = presentFor(req);
    // What res.json would send for { data, pagination }, made of each item's bytes as held: joining the texts
    // instead made one large string to measure and encode again on every list (docs/performance.md).
    const parts: Buffer[] = [LIST_OPENING];
    for (const [index, item] of page.items.entries()) {
      if (index > 0) parts.push(LIST_SEPARATOR);
      const representation =
        'unchanged' in item
          ? heldFor(held, item.id)
          : this.representations.of(scope, item, apiVersion, now, present);
      parts.push(representation.bytes);
    }
    parts.push(Buffer.from(`],"pagination":${JSON.stringify({ nextCursor: page.nextCursor })}}`));
    this.readAudit.record(
      req,
      'authorization',
      page.items.map((item) => item.id),
      'list',
    );
    sendJsonText(res, parts);
  }

  /**
   * One indexed read of the stored version; the case is presented (and the text kept) only when this process
   * holds no text of that version (AuthorizationRepresentations, docs/performance.md).
   */
  async retrieve(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    const apiVersion = apiVersionOf(req);
    const now = Date.now();
    const held = this.representations.find(scope, authorizationId, apiVersion, now);
    const found =
      held === undefined
        ? await this.useCases.get.execute(scope, { authorizationId })
        : await this.useCases.get.executeIfChanged(scope, { authorizationId, knownVersion: held.version });
    const representation =
      held !== undefined && 'unchanged' in found
        ? held
        : this.representations.of(scope, found as Authorization, apiVersion, now, presentFor(req));
    this.readAudit.record(req, 'authorization', [authorizationId], 'retrieve');
    res.setHeader('ETag', etagOfVersion(representation.version));
    sendJsonText(res, representation.bytes);
  }

  async patchAnswers(req: Request, res: Response): Promise<void> {
    const { route, work } = patchAnswersCommand(
      req,
      'authorizations.patch_answers',
      AUTHORIZATION_OPERATIONS.patchAnswers,
    );
    await this.versionedCommand(req, res, route, work);
  }

  async attachFile(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    await this.versionedCommand(
      req,
      res,
      {
        operation: 'authorizations.attach_file',
        preconditions: AUTHORIZATION_OPERATIONS.attachFile,
        params: { authorizationId },
        body: () => validateInput(AttachFileRequest, req.body, 'body'),
      },
      async (useCases, body, expectedVersion) => {
        const { authorization } = await useCases.attachFile.execute(scope, {
          authorizationId,
          expectedVersion,
          fileId: body.fileId,
          documentTypes: [...body.documentTypes],
          description: body.description ?? null,
        });
        return authorization;
      },
    );
  }

  async detachAttachment(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    const attachmentId = pathParam(req, 'attachmentId');
    await this.versionedCommand(
      req,
      res,
      {
        operation: 'authorizations.detach_attachment',
        preconditions: AUTHORIZATION_OPERATIONS.detachAttachment,
        params: { authorizationId, attachmentId },
        body: () => assertEmptyBody(req.body),
      },
      (useCases, _body, expectedVersion) =>
        useCases.detachAttachment.execute(scope, { authorizationId, expectedVersion, attachmentId }),
    );
  }

  async confirm(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    await this.versionedCommand(
      req,
      res,
      {
        operation: 'authorizations.confirm',
        preconditions: AUTHORIZATION_OPERATIONS.confirm,
        params: { authorizationId },
        body: () => validateInput(ConfirmRequest, req.body ?? {}, 'body'),
      },
      async (useCases, body, expectedVersion) =>
        useCases.confirm.execute(scope, {
          authorizationId,
          expectedVersion,
          nextActionId: body.nextActionId ?? (await legacyDefaultActionId(req, useCases, authorizationId)),
        }),
    );
  }

  async cancel(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    await this.versionedCommand(
      req,
      res,
      {
        operation: 'authorizations.cancel',
        preconditions: AUTHORIZATION_OPERATIONS.cancel,
        params: { authorizationId },
        body: () => assertEmptyBody(req.body),
      },
      (useCases, _body, expectedVersion) =>
        useCases.cancel.execute(scope, { authorizationId, expectedVersion }),
    );
  }

  /**
   * A command on an existing authorization: the If-Match precondition (after tenant scoping), then the
   * idempotent run whose answer is the updated authorization with its ETag.
   */
  private async versionedCommand<B>(
    req: Request,
    res: Response,
    route: Omit<CommandRoute<B>, 'scopedRead'> & { params: { authorizationId: string } },
    work: (useCases: AuthorizationUseCases, body: B, expectedVersion: number) => Promise<Authorization>,
  ): Promise<void> {
    const scopedRead = () =>
      this.useCases.get.execute(scopeOf(req), { authorizationId: route.params.authorizationId });
    await runCommand(
      this.commands,
      req,
      res,
      // Assigned, not spread then extended (a new hidden class per object on Node 20's V8).
      Object.assign({}, route, { scopedRead }),
      async (body, expectedVersion, tx) =>
        authorizationResult(
          req,
          200,
          await work(this.useCases.within(tx), body, requiredVersion(expectedVersion)),
        ),
    );
  }
}

/**
 * Under 2024-01-01 confirm may omit nextActionId (decision 0029): the case's current action is used, so
 * every other confirm rule (status, action type, requirements, review) still decides. Current clients keep
 * `next_action_required`.
 */
async function legacyDefaultActionId(
  req: Request,
  useCases: AuthorizationUseCases,
  authorizationId: string,
): Promise<string | undefined> {
  if (!isLegacyRequest(req)) return undefined;
  const authorization = await useCases.get.execute(scopeOf(req), { authorizationId });
  return authorization.nextAction?.id;
}
