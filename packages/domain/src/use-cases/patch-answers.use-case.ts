import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type QuestionnaireResponseItem } from '../requirements/questionnaire.types';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

export interface PatchAnswersCommand {
  authorizationId: string;
  /** Null only for the legacy `PATCH …/{id}` sent without If-Match (optional there, decision 0032). */
  expectedVersion: number | null;
  /** Merged by linkId (decision 0028). */
  items: QuestionnaireResponseItem[];
}

export type PatchAnswersDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

export class PatchAnswersUseCase {
  constructor(private readonly deps: PatchAnswersDeps) {}

  execute(scope: TenantScope, command: PatchAnswersCommand): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, command.authorizationId);
      if (command.expectedVersion !== null) authorization.assertVersion(command.expectedVersion);
      authorization.patchAnswers(command.items, authorizationContext(this.deps));
      await saveAuthorization(tx, this.deps.ids, authorization);
      return authorization;
    });
  }
}
