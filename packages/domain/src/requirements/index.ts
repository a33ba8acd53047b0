export * from './questionnaire.types';
export { evaluateRequirements } from './requirements-engine';
export {
  requirementChecklist,
  type ChecklistDocument,
  type ChecklistQuestion,
  type RequirementChecklist,
} from './requirement-checklist';
export { presentQuestionnaire, applyDefaults } from './questionnaire-presenter';
export { validateTemplate } from './template-validator';
export { compileTemplate, type CompiledTemplate } from './template-compiler';
export {
  importFhirQuestionnaire,
  importFhirQuestionnaireWithWarnings,
  type FhirImportOptions,
  type FhirImportResult,
  type FhirImportWarning,
  type FhirImportWarningCode,
} from './fhir-questionnaire.importer';
export { REQUIREMENT_ISSUE_CODES, type RequirementIssueCode } from './answer-validator';
export type { TemplateProblem, TemplateProblemCode } from './template-problem';
