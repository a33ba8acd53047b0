import type {
  Authorization,
  EnsureSubmissionPreviewUseCase,
  GetAuthorizationUseCase,
  PatchAnswersUseCase,
  ResolvePayerRequestUseCase,
} from '@prior-auth/domain';
import { API_VERSION_HEADER, type Logger } from '@prior-auth/platform';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { apiVersionOf } from '../../http/api-version.middleware';
import { CommandRunner } from '../../http/command-runner';
import { pathParam, scopeOf } from '../../http/request-context';
import { runCommand, type CommandRoute } from '../../http/route-table';
import { validateInput } from '../../http/validation';
import type { TransactionBound } from '../../http/transaction-bound';
import { TOKENS } from '../../tokens';
import { etagOf } from '@prior-auth/presentation';
import { AUTHORIZATION_OPERATIONS } from '../authorization.openapi';
import { patchAnswersCommand } from '../patch-answers.command';
import { ResolveActionRequest } from './legacy-workflow.request';
import { presentLegacyWorkflow } from './legacy-workflow.presenter';

/** The use cases behind the two legacy-only endpoints; built in the composition root, per command for commands. */
export interface LegacyWorkflowUseCases {
  get: GetAuthorizationUseCase;
  patchAnswers: PatchAnswersUseCase;
  resolveAction: ResolvePayerRequestUseCase;
  preview: EnsureSubmissionPreviewUseCase;
}

/**
 * `PATCH …/{id}` and `POST …/{id}/actions/{actionId}/resolve` (docs/decisions/0029 and 0032): both answer
 * the legacy workflow shape whatever the request's version; If-Match and Idempotency-Key are optional and
 * checked when sent. The order of checks is the other commands' (decision 0023).
 */
@injectable()
export class LegacyWorkflowController {
  constructor(
    @inject(TOKENS.LegacyWorkflowUseCases)
    private readonly useCases: TransactionBound<LegacyWorkflowUseCases>,
    @inject(CommandRunner) private readonly commands: CommandRunner,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async update(req: Request, res: Response): Promise<void> {
    const { route, work } = patchAnswersCommand(
      req,
      'authorizations.update',
      AUTHORIZATION_OPERATIONS.updateLegacy,
    );
    await this.command(req, res, route, work);
  }

  async resolveAction(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    const actionId = pathParam(req, 'actionId');
    await this.command(
      req,
      res,
      {
        operation: 'authorizations.resolve_action',
        preconditions: AUTHORIZATION_OPERATIONS.resolveActionLegacy,
        params: { authorizationId, actionId },
        body: () => validateInput(ResolveActionRequest, req.body, 'body'),
      },
      (useCases, body, expectedVersion) =>
        useCases.resolveAction.execute(scope, {
          authorizationId,
          expectedVersion,
          requestId: actionId,
          attachmentIds: [...body.attachmentIds],
          resolutionNote: body.resolutionNote ?? null,
        }),
    );
  }

  /**
   * A legacy command on one authorization (If-Match and Idempotency-Key optional, as its route declares);
   * the answer is the workflow shape.
   */
  private async command<B>(
    req: Request,
    res: Response,
    route: Omit<CommandRoute<B>, 'scopedRead'> & { params: { authorizationId: string } },
    work: (
      useCases: LegacyWorkflowUseCases,
      body: B,
      expectedVersion: number | null,
    ) => Promise<Authorization>,
  ): Promise<void> {
    const scopedRead = () =>
      this.useCases.get.execute(scopeOf(req), { authorizationId: route.params.authorizationId });
    await runCommand(this.commands, req, res, { ...route, scopedRead }, async (body, expectedVersion, tx) => {
      const useCases = this.useCases.within(tx);
      const authorization = await work(useCases, body, expectedVersion);
      // Rendered on first need after answers or attachments changed (decision 0032). The change is already
      // committed: a preview that cannot be rendered now is answered as null (the next read renders it)
      // rather than failing a command that succeeded.
      const preview = await useCases.preview.execute(scopeOf(req), authorization).catch((error: unknown) => {
        this.logger.warn(
          {
            authorizationId: authorization.id,
            error: error instanceof Error ? error.message : String(error),
          },
          'submission preview not rendered',
        );
        return null;
      });
      return {
        status: 200,
        headers: { ETag: etagOf(authorization), [API_VERSION_HEADER]: apiVersionOf(req) },
        body: presentLegacyWorkflow(authorization, preview),
      };
    });
  }
}
