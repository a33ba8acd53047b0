import { evaluateRequirements } from '../requirements';
import { Authorization } from './authorization.aggregate';
import type { AuthorizationContext, RequirementsEvaluator } from './authorization.types';
import {
  clinicalNotesFile,
  completeAnswers,
  createInput,
  createTestContext,
} from './testing/authorization.fixtures';

// Compile-time proof that the real engine fits the evaluator the aggregate expects.
const engine: RequirementsEvaluator = evaluateRequirements;

describe('Authorization with the real requirements engine', () => {
  it('blocks on unanswered required items and missing documents, then becomes confirmable', () => {
    const ctx: AuthorizationContext = { ...createTestContext(), evaluate: engine };
    const auth = Authorization.create(createInput(), ctx);
    expect(auth.status).toBe('requires_input');
    expect(auth.requirements.questions.map((q) => q.linkId)).toEqual(
      expect.arrayContaining([
        'patient.memberId',
        'patient.firstName',
        'patient.lastName',
        'patient.birthDate',
      ]),
    );
    expect(auth.requirements.documents.map((d) => d.type)).toEqual(['clinical_notes']);

    auth.patchAnswers(completeAnswers(), ctx);
    auth.attachFile(clinicalNotesFile, ctx);

    expect(auth.requirements).toMatchObject({ questions: [], documents: [], issues: [] });
    expect(auth.status).toBe('requires_confirmation');
    expect(auth.nextAction?.type).toBe('advance_case');
  });
});
