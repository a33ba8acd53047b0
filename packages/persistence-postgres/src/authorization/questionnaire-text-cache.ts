import { createHash } from 'node:crypto';
import { freezeShared, type QuestionnaireTemplate } from '@prior-auth/domain';
import { rememberedJson, rememberJson } from '../unit-of-work/sql';

/** How many distinct questionnaire texts a process keeps parsed (a handful of route versions are in use). */
export const PARSED_QUESTIONNAIRES = 256;

const parsed = new Map<string, QuestionnaireTemplate>();

/** Ids in `questionnaire_documents` of the shared templates this process knows to be catalog templates. */
const storedIds = new WeakMap<QuestionnaireTemplate, string>();

/**
 * Ids of stored questionnaires this process has seen committed (a save naming it, decision 0065). Stored
 * questionnaires are never changed or removed (a trigger refuses it), so one seen committed is there for good,
 * and a save naming it sends no text. Bounded like the parsed texts: past the bound, the text is sent again.
 */
const committedIds = new Set<string>();

/** Whether the stored questionnaire `id` is known to be committed (`rememberCommitted`). */
export const isKnownCommitted = (id: string): boolean => committedIds.has(id);

/** Remembers that the stored questionnaire `id` has committed: call it once its save has (`afterCommit`). */
export function rememberCommitted(id: string): void {
  if (committedIds.size < PARSED_QUESTIONNAIRES) committedIds.add(id);
}

/** A shared questionnaire's id: a hash of its text, so every process names the same template alike. */
export const questionnaireDocumentId = (text: string): string =>
  `qst_${createHash('sha256').update(text).digest('base64url')}`;

/**
 * A case's questionnaire from its stored JSON text. Every case of a route version stores the same template,
 * so each distinct text is parsed once and the one frozen object is handed to every read: no parse per read,
 * and the template compiler's cache finds it by identity (docs/performance.md). The aggregate replaces its
 * questionnaire rather than changing it, so sharing it is safe; freezing makes a change in place fail loudly.
 */
export function questionnaireFromText(text: string, storedId: string | null = null): QuestionnaireTemplate {
  const template = known(text) ?? keep(text, JSON.parse(text) as QuestionnaireTemplate);
  // A row that points at a stored template proves the text is one (decision 0059).
  if (storedId !== null) storedIds.set(template, storedId);
  return template;
}

/**
 * A route's questionnaire as the catalog read it (already parsed): the one shared object for its text, so
 * every case created on the route holds it without a copy, its compilation is found by identity, and its
 * text is not serialized again when a case is saved (docs/performance.md).
 */
export function sharedQuestionnaire(template: QuestionnaireTemplate): QuestionnaireTemplate {
  const text = JSON.stringify(template);
  const shared = known(text) ?? keep(text, template);
  if (!storedIds.has(shared)) storedIds.set(shared, questionnaireDocumentId(text));
  return shared;
}

/**
 * Where a case's questionnaire is kept (decision 0059): a catalog template, shared by every case of its route
 * version, as one stored document (`id`, with its `text`); any other questionnaire (a payer portal's questions
 * added to a case) in the case's own row (null).
 */
export function storedQuestionnaire(template: QuestionnaireTemplate): { id: string; text: string } | null {
  const id = storedIds.get(template);
  const text = id === undefined ? undefined : rememberedJson(template);
  return id === undefined || text === undefined ? null : { id, text };
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
