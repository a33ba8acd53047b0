import { compileDocumentRequirements, compileTemplate } from './template-compiler';
import type { DocumentRequirement, QuestionnaireTemplate } from './questionnaire.types';

/**
 * Checks a template (and the document requirements shipped with it) at load time. Throws
 * `DomainError('template_invalid')` whose `details.problems` lists each problem with the linkId it is on:
 * duplicate linkIds, a condition reading an unknown linkId, a cycle among `notAllowedWhen` conditions, an
 * invalid pattern, malformed bounds, options, defaults or conditions. The compiled form is cached, so a
 * validated template evaluates without re-checking.
 */
export function validateTemplate(
  template: QuestionnaireTemplate,
  documentRequirements: readonly DocumentRequirement[] = [],
): void {
  const compiled = compileTemplate(template);
  compileDocumentRequirements(compiled, documentRequirements);
}
