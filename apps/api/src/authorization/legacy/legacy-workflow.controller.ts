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
import { idempotencyKey, ifMatchAfterScoping } from '../../http/preconditions';
import { pathParam, scopeOf } from '../../http/request-context';
import { validateAll, validateInput } from '../../http/validation';
import type { TransactionBound } from '../../http/transaction-bound';
import { TOKENS } from '../../tokens';
import { etagOf } from '@prior-auth/presentation';
import { PatchAnswersRequest, patchAnswersIssues, toResponseItems } from '../authorization.request';
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
 * `PATCH …/{id}` and `POST …/{id}/actions/{actionId}/resolve` (shared decision 0029, decision 0032): both answer
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
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    const [key, body] = validateAll(
      () => idempotencyKey(req, false),
      () => validateInput(PatchAnswersRequest, req.body, 'body', patchAnswersIssues),
    );
    await this.command(
      req,
      res,
      'authorizations.update',
      key,
      { authorizationId },
      (useCases, expectedVersion) =>
        useCases.patchAnswers.execute(scope, {
          authorizationId,
          expectedVersion,
          items: toResponseItems(body.questionnaireResponse),
        }),
    );
  }

  async resolveAction(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const authorizationId = pathParam(req, 'authorizationId');
    const actionId = pathParam(req, 'actionId');
    const [key, body] = validateAll(
      () => idempotencyKey(req, false),
      () => validateInput(ResolveActionRequest, req.body, 'body'),
    );
    await this.command(
      req,
      res,
      'authorizations.resolve_action',
      key,
      { authorizationId, actionId },
      (useCases, expectedVersion) =>
        useCases.resolveAction.execute(scope, {
          authorizationId,
          expectedVersion,
          requestId: actionId,
          attachmentIds: [...body.attachmentIds],
          resolutionNote: body.resolutionNote ?? null,
        }),
    );
  }

  /** If-Match only when sent (then after tenant scoping, as everywhere); the answer is the workflow shape. */
  private async command(
    req: Request,
    res: Response,
    operation: string,
    key: string | null,
    params: Record<string, string> & { authorizationId: string },
    work: (useCases: LegacyWorkflowUseCases, expectedVersion: number | null) => Promise<Authorization>,
  ): Promise<void> {
    const expectedVersion =
      req.header('if-match') === undefined
        ? null
        : await ifMatchAfterScoping(req, () =>
            this.useCases.get.execute(scopeOf(req), { authorizationId: params.authorizationId }),
          );
    await this.commands.run(
      req,
      res,
      { operation, idempotencyKey: key, params, body: req.body, ifMatch: expectedVersion },
      async (tx) => {
        const useCases = this.useCases.within(tx);
        const authorization = await work(useCases, expectedVersion);
        // Rendered on first need after answers or attachments changed (decision 0032). The change is already
        // committed: a preview that cannot be rendered now is answered as null (the next read renders it)
        // rather than failing a command that succeeded.
        const preview = await useCases.preview
          .execute(scopeOf(req), authorization)
          .catch((error: unknown) => {
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
      },
    );
  }
}
