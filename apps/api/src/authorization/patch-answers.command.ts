import type { Authorization, PatchAnswersUseCase } from '@prior-auth/domain';
import type { Request } from 'express';
import { pathParam, scopeOf } from '../http/request-context';
import type { CommandRoute } from '../http/route-table';
import { validateInput } from '../http/validation';
import { PatchAnswersRequest, patchAnswersIssues, toResponseItems } from './authorization.request';

/**
 * The answers patch behind both PATCH endpoints: the current `…/{id}/answers` and the legacy `…/{id}`
 * (docs/decisions/0032). They differ only in their preconditions and the shape they answer, which their
 * controllers keep.
 */
export function patchAnswersCommand(
  req: Request,
  operation: string,
  preconditions: CommandRoute<PatchAnswersRequest>['preconditions'],
): {
  route: Omit<CommandRoute<PatchAnswersRequest>, 'scopedRead'> & { params: { authorizationId: string } };
  work: (
    useCases: { patchAnswers: PatchAnswersUseCase },
    body: PatchAnswersRequest,
    expectedVersion: number | null,
  ) => Promise<Authorization>;
} {
  const scope = scopeOf(req);
  const authorizationId = pathParam(req, 'authorizationId');
  return {
    route: {
      operation,
      preconditions,
      params: { authorizationId },
      body: () => validateInput(PatchAnswersRequest, req.body, 'body', patchAnswersIssues),
    },
    work: (useCases, body, expectedVersion) =>
      useCases.patchAnswers.execute(scope, {
        authorizationId,
        expectedVersion,
        items: toResponseItems(body.questionnaireResponse),
      }),
  };
}
