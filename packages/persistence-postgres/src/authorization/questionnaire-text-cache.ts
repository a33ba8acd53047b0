import { freezeShared, type QuestionnaireTemplate } from '@prior-auth/domain';
import { rememberJson } from '../unit-of-work/sql';

/** How many distinct questionnaire texts a process keeps parsed (a handful of route versions are in use). */
export const PARSED_QUESTIONNAIRES = 256;

const parsed = new Map<string, QuestionnaireTemplate>();

/**
 * A case's questionnaire from its stored JSON text. Every case of a route version stores the same template,
 * so each distinct text is parsed once and the one frozen object is handed to every read: no parse per read,
 * and the template compiler's cache finds it by identity (docs/performance.md). The aggregate replaces its
 * questionnaire rather than changing it, so sharing it is safe; freezing makes a change in place fail loudly.
 */
export function questionnaireFromText(text: string): QuestionnaireTemplate {
  return known(text) ?? keep(text, JSON.parse(text) as QuestionnaireTemplate);
}

/**
 * A route's questionnaire as the catalog read it (already parsed): the one shared object for its text, so
 * every case created on the route holds it without a copy, its compilation is found by identity, and its
 * text is not serialized again when a case is saved (docs/performance.md).
 */
export function sharedQuestionnaire(template: QuestionnaireTemplate): QuestionnaireTemplate {
  const text = JSON.stringify(template);
  return known(text) ?? keep(text, template);
}

function known(text: string): QuestionnaireTemplate | undefined {
  const template = parsed.get(text);
  if (template !== undefined) {
    // Most recently used last.
    parsed.delete(text);
    parsed.set(text, template);
  }
  return template;
}

function keep(text: string, parsedTemplate: QuestionnaireTemplate): QuestionnaireTemplate {
  const template = freezeShared(parsedTemplate);
  rememberJson(template, text);
  parsed.set(text, template);
  if (parsed.size > PARSED_QUESTIONNAIRES) {
    const oldest = parsed.keys().next().value;
    if (oldest !== undefined) parsed.delete(oldest);
  }
  return template;
}
