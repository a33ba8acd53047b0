import type {
  CompleteManualHandoffUseCase,
  CreateLiveSessionGrantUseCase,
  CreateManualHandoffAccessGrantUseCase,
  CreateManualHandoffUseCase,
  GetAuthorizationUseCase,
  GetLiveSessionUseCase,
  GetManualHandoffUseCase,
  ListManualHandoffsUseCase,
  ManualHandoffWithAuthorization,
  RevokeManualHandoffUseCase,
  UnableToCompleteManualHandoffUseCase,
} from '@prior-auth/domain';
import type { ClassConstructor } from 'class-transformer';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { CommandRunner, type CommandResult } from '../http/command-runner';
import { pathParam, scopeOf } from '../http/request-context';
import { requiredVersion, runCommand, type CommandRoute } from '../http/route-table';
import { assertEmptyBody, assertEmptyQuery, validateInput } from '../http/validation';
import type { TransactionBound } from '../http/transaction-bound';
import { TOKENS } from '../tokens';
import {
  handoffEtag,
  presentLiveSession,
  presentLiveSessionAccessGrant,
  presentManualHandoff,
  presentManualHandoffAccessGrant,
} from '@prior-auth/presentation';
import {
  CompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
  textOrNull,
} from './manual-handoff.request';
import { MANUAL_HANDOFF_OPERATIONS } from './manual-handoff.openapi';

/** Every manual-handoff and live-session use case the API drives; built in the composition root, per command for commands. */
export interface ManualHandoffUseCases {
  getAuthorization: GetAuthorizationUseCase;
  create: CreateManualHandoffUseCase;
  get: GetManualHandoffUseCase;
  list: ListManualHandoffsUseCase;
  complete: CompleteManualHandoffUseCase;
  unableToComplete: UnableToCompleteManualHandoffUseCase;
  revoke: RevokeManualHandoffUseCase;
  createAccessGrant: CreateManualHandoffAccessGrantUseCase;
  getLiveSession: GetLiveSessionUseCase;
  createLiveSessionGrant: CreateLiveSessionGrantUseCase;
}

/** The commands on one handoff, by their stable operation name, with their route's preconditions. */
const MANUAL_HANDOFF_COMMANDS = {
  'manual_handoffs.complete': MANUAL_HANDOFF_OPERATIONS.complete,
  'manual_handoffs.unable_to_complete': MANUAL_HANDOFF_OPERATIONS.unableToComplete,
  'manual_handoffs.revoke': MANUAL_HANDOFF_OPERATIONS.revoke,
};

const handoffResult = (
  status: number,
  { handoff, authorization }: ManualHandoffWithAuthorization,
  headers: Record<string, string> = {},
): CommandResult => ({
  status,
  headers: { ...headers, ETag: handoffEtag(handoff) },
  body: presentManualHandoff(handoff, authorization),
});

/**
 * Manual handoffs and live-session grants of one authorization (decisions 0007 and 0014), on both path
 * families. Same order as every command: validation (422, never stored), If-Match syntax only once the
 * resource is known to exist for the tenant (else 404), then the idempotent command.
 */
@injectable()
export class ManualHandoffController {
  constructor(
    @inject(TOKENS.ManualHandoffUseCases) private readonly useCases: TransactionBound<ManualHandoffUseCases>,
    @inject(CommandRunner) private readonly commands: CommandRunner,
  ) {}

  async create(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    await runCommand(
      this.commands,
      req,
      res,
      {
        operation: 'manual_handoffs.create',
        preconditions: MANUAL_HANDOFF_OPERATIONS.create,
        params: { authorizationId },
        body: () => assertEmptyBody(req.body),
        // The handoff does not exist yet: If-Match is the authorization's version (decision 0007).
        scopedRead: () => this.useCases.getAuthorization.execute(scope, { authorizationId }),
      },
      async (_body, expectedVersion, tx) => {
        const created = await this.useCases.within(tx).create.execute(scope, {
          authorizationId,
          expectedVersion: requiredVersion(expectedVersion),
        });
        return handoffResult(201, created, {
          Location: `${req.baseUrl}/${authorizationId}/manual-handoffs/${created.handoff.id}`,
        });
      },
    );
  }

  async list(req: Request, res: Response): Promise<void> {
    assertEmptyQuery(req.query);
    const { authorization, handoffs } = await this.useCases.list.execute(scopeOf(req), {
      authorizationId: pathParam(req, 'authorizationId'),
    });
    res.json({
      data: handoffs.map((handoff) => presentManualHandoff(handoff, authorization)),
      // One handoff per payer interaction: an authorization's handoffs always fit in one page.
      pagination: { nextCursor: null },
    });
  }

  async retrieve(req: Request, res: Response): Promise<void> {
    const found = await this.useCases.get.execute(scopeOf(req), this.handoffRef(req));
    res.setHeader('ETag', handoffEtag(found.handoff));
    res.json(presentManualHandoff(found.handoff, found.authorization));
  }

  async complete(req: Request, res: Response): Promise<void> {
    await this.handoffCommand(
      req,
      res,
      'manual_handoffs.complete',
      CompleteManualHandoffRequest,
      (useCases, ref, body) =>
        useCases.complete.execute(scopeOf(req), {
          ...ref,
          reportedOutcome: body.reportedOutcome,
          observedReferenceNumber: textOrNull(body.observedReferenceNumber),
          operatorNotes: textOrNull(body.operatorNotes),
        }),
    );
  }

  async unableToComplete(req: Request, res: Response): Promise<void> {
    await this.handoffCommand(
      req,
      res,
      'manual_handoffs.unable_to_complete',
      UnableToCompleteManualHandoffRequest,
      (useCases, ref, body) =>
        useCases.unableToComplete.execute(scopeOf(req), {
          ...ref,
          reason: body.reason,
          operatorNotes: textOrNull(body.operatorNotes),
        }),
    );
  }

  async revoke(req: Request, res: Response): Promise<void> {
    await this.handoffCommand(
      req,
      res,
      'manual_handoffs.revoke',
      RevokeManualHandoffRequest,
      (useCases, ref, body) =>
        useCases.revoke.execute(scopeOf(req), {
          ...ref,
          reason: body.reason.trim(),
          notes: textOrNull(body.notes),
        }),
    );
  }

  async createAccessGrant(req: Request, res: Response): Promise<void> {
    const ref = this.handoffRef(req);
    await this.grantCommand(
      req,
      res,
      {
        operation: 'manual_handoffs.create_access_grant',
        preconditions: MANUAL_HANDOFF_OPERATIONS.createAccessGrant,
        params: ref,
      },
      async (useCases) =>
        presentManualHandoffAccessGrant(await useCases.createAccessGrant.execute(scopeOf(req), ref)),
    );
  }

  async getLiveSession(req: Request, res: Response): Promise<void> {
    assertEmptyQuery(req.query);
    const { authorization, liveSession } = await this.useCases.getLiveSession.execute(scopeOf(req), {
      authorizationId: pathParam(req, 'authorizationId'),
    });
    res.json(presentLiveSession(authorization, liveSession));
  }

  async createLiveSessionGrant(req: Request, res: Response): Promise<void> {
    const authorizationId = pathParam(req, 'authorizationId');
    await this.grantCommand(
      req,
      res,
      {
        operation: 'live_sessions.create_access_grant',
        preconditions: MANUAL_HANDOFF_OPERATIONS.createLiveSessionGrant,
        params: { authorizationId },
      },
      async (useCases) =>
        presentLiveSessionAccessGrant(
          await useCases.createLiveSessionGrant.execute(scopeOf(req), { authorizationId }),
        ),
    );
  }

  /** Minting a grant: no body (its route names the preconditions); answers 201 with the grant. */
  private async grantCommand(
    req: Request,
    res: Response,
    route: Pick<CommandRoute<void>, 'operation' | 'preconditions' | 'params'>,
    issue: (useCases: ManualHandoffUseCases) => Promise<object>,
  ): Promise<void> {
    await runCommand(
      this.commands,
      req,
      res,
      { ...route, body: () => assertEmptyBody(req.body) },
      async (_body, _expectedVersion, tx) => ({
        status: 201,
        headers: {},
        body: await issue(this.useCases.within(tx)),
      }),
    );
  }

  private handoffRef(req: Request): { authorizationId: string; manualHandoffId: string } {
    return {
      authorizationId: pathParam(req, 'authorizationId'),
      manualHandoffId: pathParam(req, 'manualHandoffId'),
    };
  }

  /**
   * A command on an existing handoff: Idempotency-Key and body validation (422, together), If-Match (the
   * handoff's own version, its ETag) after tenant scoping, then the idempotent run.
   */
  private async handoffCommand<B extends object>(
    req: Request,
    res: Response,
    operation: keyof typeof MANUAL_HANDOFF_COMMANDS,
    dto: ClassConstructor<B>,
    work: (
      useCases: ManualHandoffUseCases,
      command: { authorizationId: string; manualHandoffId: string; expectedVersion: number },
      body: B,
    ) => Promise<ManualHandoffWithAuthorization>,
  ): Promise<void> {
    const ref = this.handoffRef(req);
    await runCommand(
      this.commands,
      req,
      res,
      {
        operation,
        preconditions: MANUAL_HANDOFF_COMMANDS[operation],
        params: ref,
        body: () => validateInput(dto, req.body, 'body'),
        scopedRead: () => this.useCases.get.execute(scopeOf(req), ref),
      },
      async (body, expectedVersion, tx) =>
        handoffResult(
          200,
          await work(
            this.useCases.within(tx),
            { ...ref, expectedVersion: requiredVersion(expectedVersion) },
            body,
          ),
        ),
    );
  }
}
