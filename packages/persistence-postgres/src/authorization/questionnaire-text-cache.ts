import type { QuestionnaireTemplate } from '@prior-auth/domain';
import { rememberJson } from '../unit-of-work/sql';

/** How many distinct questionnaire texts a process keeps parsed (a handful of route versions are in use). */
export const PARSED_QUESTIONNAIRES = 256;

const parsed = new Map<string, QuestionnaireTemplate>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value as Record<string, unknown>)) deepFreeze(nested);
  }
  return value;
}

/**
 * A case's questionnaire from its stored JSON text. Every case of a route version stores the same template,
 * so each distinct text is parsed once and the one frozen object is handed to every read: no parse per read,
 * and the template compiler's cache finds it by identity (docs/performance.md). The aggregate replaces its
 * questionnaire rather than changing it, so sharing it is safe; freezing makes a change in place fail loudly.
 */
export function questionnaireFromText(text: string): QuestionnaireTemplate {
  const known = parsed.get(text);
  if (known !== undefined) {
    // Most recently used last.
    parsed.delete(text);
    parsed.set(text, known);
    return known;
  }
  const template = deepFreeze(JSON.parse(text) as QuestionnaireTemplate);
  rememberJson(template, text);
  parsed.set(text, template);
  if (parsed.size > PARSED_QUESTIONNAIRES) {
    const oldest = parsed.keys().next().value;
    if (oldest !== undefined) parsed.delete(oldest);
  }
  return template;
}
