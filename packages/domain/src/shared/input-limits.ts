/*
 * Caps on what a client may send, in characters or items. They are part of the public contract: the API refuses
 * a longer value with a 422 at its field and its OpenAPI document states each cap, both from these constants, so
 * no value reaches a use case, a row or a requirements evaluation at an arbitrary size.
 */

/** Identifiers a client names: payers, files, actions. */
export const MAX_ID_LENGTH = 100;
/** Questionnaire linkIds, and the short codes of answers (coding codes, quantity units). */
export const MAX_LINK_ID_LENGTH = 255;
/** A free-text answer, and a quantity's code system. */
export const MAX_ANSWER_STRING_LENGTH = 10_000;
/** Items of one questionnaire response. */
export const MAX_RESPONSE_ITEMS = 1_000;
/** Instances of one repeating group: a response item's `instance` is below this. */
export const MAX_GROUP_INSTANCES = 100;
/** Answers of one response item. */
export const MAX_ANSWERS_PER_ITEM = 100;
/** A date or time answer as text; its format is the requirements engine's to check. */
export const MAX_DATE_TEXT_LENGTH = 32;
/** A date-time answer as text. */
export const MAX_DATE_TIME_TEXT_LENGTH = 64;
/** A service code of a template selection (HCPCS, CPT, NDC). */
export const MAX_SERVICE_CODE_LENGTH = 50;
/** Document types one attachment satisfies, and the length of each. */
export const MAX_DOCUMENT_TYPES = 20;
export const MAX_DOCUMENT_TYPE_LENGTH = 100;
/** An attachment's description. */
export const MAX_DESCRIPTION_LENGTH = 2_000;
/** A file's declared name, content type and purpose (their values are the File aggregate's rules). */
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_CONTENT_TYPE_LENGTH = 255;
export const MAX_PURPOSE_LENGTH = 100;
/** What an operator reports on a manual handoff. */
export const MAX_OPERATOR_NOTES_LENGTH = 4_000;
export const MAX_REFERENCE_NUMBER_LENGTH = 100;
export const MAX_REVOKE_REASON_LENGTH = 500;
/** Attachments named when resolving a legacy action item (decision 0032). */
export const MAX_RESOLVE_ATTACHMENTS = 50;
/** The note sent with a legacy action item's resolution. */
export const MAX_RESOLUTION_NOTE_LENGTH = 2_000;
