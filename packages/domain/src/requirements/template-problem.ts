import { DomainError } from '../shared/domain-error';

export type TemplateProblemCode =
  | 'invalid_template'
  | 'invalid_group'
  | 'duplicate_group_id'
  | 'invalid_item'
  | 'duplicate_link_id'
  | 'invalid_option'
  | 'invalid_pattern'
  | 'invalid_bound'
  | 'invalid_default_value'
  | 'unknown_link_id'
  | 'invalid_condition'
  | 'condition_cycle'
  | 'invalid_document_requirement'
  | 'unsupported_item_type'
  | 'invalid_questionnaire'
  | 'unsupported_fhir_version';

/** One reason a template (or a FHIR Questionnaire being imported) cannot be loaded. */
export interface TemplateProblem {
  code: TemplateProblemCode;
  /** The item (or group) the problem is on. */
  linkId?: string;
  /** For an imported form: the linkIds from the top of the form down to the item, joined by " > ". */
  path?: string;
  /** For condition problems: the linkId the condition reads. */
  reference?: string;
  /** For document requirement problems: the document type. */
  documentType?: string;
  /** For `condition_cycle`: the linkIds around the cycle, first repeated last. */
  cycle?: string[];
  message: string;
}

/**
 * The single error a template load fails with. Every problem found is listed in `details.problems`; the
 * message names the first. Template text is configuration, never PHI, so linkIds may appear here.
 */
export function templateInvalid(
  templateId: string | undefined,
  problems: readonly TemplateProblem[],
): DomainError {
  const first = problems[0];
  const subject =
    templateId === undefined ? 'Questionnaire template' : `Questionnaire template "${templateId}"`;
  const where =
    first?.path !== undefined
      ? `item ${first.path}: `
      : first?.linkId !== undefined
        ? `item "${first.linkId}": `
        : '';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : '';
  const message = `${subject} is invalid: ${where}${first?.message ?? 'unknown problem'}${more}.`;
  return new DomainError('template_invalid', message, {
    ...(templateId === undefined ? {} : { templateId }),
    ...(first?.linkId === undefined ? {} : { linkId: first.linkId }),
    problems: problems.map((problem) => ({ ...problem })),
  });
}
