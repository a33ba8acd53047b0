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
import { idempotencyKey, ifMatchAfterScoping } from '../http/preconditions';
import { pathParam, scopeOf } from '../http/request-context';
import { assertEmptyBody, assertEmptyQuery, validateAll, validateInput } from '../http/validation';
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
    const [key] = validateAll(
      () => idempotencyKey(req, true),
      () => assertEmptyBody(req.body),
    );
    // The handoff does not exist yet: If-Match is the authorization's version (decision 0007).
    const expectedVersion = await ifMatchAfterScoping(req, () =>
      this.useCases.getAuthorization.execute(scope, { authorizationId }),
    );
    await this.commands.run(
      req,
      res,
      {
        operation: 'manual_handoffs.create',
        idempotencyKey: key,
        params: { authorizationId },
        body: req.body,
        ifMatch: expectedVersion,
      },
      async (tx) => {
        const created = await this.useCases
          .within(tx)
          .create.execute(scope, { authorizationId, expectedVersion });
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
    await this.grantCommand(req, res, 'manual_handoffs.create_access_grant', ref, async (useCases) =>
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
      'live_sessions.create_access_grant',
      { authorizationId },
      async (useCases) =>
        presentLiveSessionAccessGrant(
          await useCases.createLiveSessionGrant.execute(scopeOf(req), { authorizationId }),
        ),
    );
  }

  /** Minting a grant: Idempotency-Key required, no body, no If-Match; answers 201 with the grant. */
  private async grantCommand(
    req: Request,
    res: Response,
    operation: string,
    params: Record<string, string>,
    issue: (useCases: ManualHandoffUseCases) => Promise<object>,
  ): Promise<void> {
    const [key] = validateAll(
      () => idempotencyKey(req, true),
      () => assertEmptyBody(req.body),
    );
    await this.commands.run(
      req,
      res,
      { operation, idempotencyKey: key, params, body: req.body, ifMatch: null },
      async (tx) => ({ status: 201, headers: {}, body: await issue(this.useCases.within(tx)) }),
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
    operation: string,
    dto: ClassConstructor<B>,
    work: (
      useCases: ManualHandoffUseCases,
      command: { authorizationId: string; manualHandoffId: string; expectedVersion: number },
      body: B,
    ) => Promise<ManualHandoffWithAuthorization>,
  ): Promise<void> {
    const [key, body] = validateAll(
      () => idempotencyKey(req, true),
      () => validateInput(dto, req.body, 'body'),
    );
    const ref = this.handoffRef(req);
    const expectedVersion = await ifMatchAfterScoping(req, () =>
      this.useCases.get.execute(scopeOf(req), ref),
    );
    await this.commands.run(
      req,
      res,
      { operation, idempotencyKey: key, params: ref, body: req.body, ifMatch: expectedVersion },
      async (tx) =>
        handoffResult(200, await work(this.useCases.within(tx), { ...ref, expectedVersion }, body)),
    );
  }
}
