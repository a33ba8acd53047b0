import type { RequestHandler } from 'express';
import { HttpError, validationFailed, type ValidationIssue } from './http-error';

/*
 * Refusals of hostile input before anything reads the database or transforms a value
 * (docs/decisions/0015-hostile-input-and-outages.md).
 */

/** Keys that reach object prototypes when a parsed body is merged or transformed into class instances. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** No request body of this API nests deeper than a handful of levels; transformers recurse, so cap it. */
export const MAX_BODY_DEPTH = 32;
/** Enough to show the caller what is wrong without answering a huge body with a huge list. */
const MAX_REPORTED_ISSUES = 20;
/** What no string of a body may hold: PostgreSQL stores neither, in text or in jsonb. */
const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired surrogates';
// C0 controls and DEL: NUL first of all. Node's parser refuses them raw; percent-encoded they would pass.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The decoded text of a percent-encoded URL component, or null when it is not valid UTF-8. */
function decodeComponent(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

const notFound = (method: string) => new HttpError(404, 'not_found', `No route matches ${method} this path.`);

function queryIssues(rawQuery: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawName = separator === -1 ? pair : pair.slice(0, separator);
    const rawValue = separator === -1 ? '' : pair.slice(separator + 1);
    const name = decodeComponent(rawName.replace(/\+/g, ' '));
    const value = decodeComponent(rawValue.replace(/\+/g, ' '));
    if (name === null || CONTROL_CHARACTERS.test(name)) {
      // The name itself is unusable, so it cannot be echoed as a location.
      issues.push({
        errorType: 'value_error',
        location: ['query'],
        message: 'a query parameter name is not valid UTF-8 or contains control characters',
      });
    } else if (PROTOTYPE_KEYS.has(name)) {
      issues.push({
        errorType: 'unknown_field',
        location: ['query', name],
        message: `${name} is not a known query parameter`,
      });
    } else if (value === null || CONTROL_CHARACTERS.test(value)) {
      issues.push({
        errorType: 'value_error',
        location: ['query', name],
        message: `${name} is not valid UTF-8 or contains control characters`,
      });
    }
  }
  return issues.slice(0, MAX_REPORTED_ISSUES);
}

/**
 * Path and query values must be valid UTF-8 without control characters: a path that is not → 404 (it names
 * nothing), a query parameter → 422 at its location. Mounted before authentication, whose key lookup is the
 * first database read.
 */
export const wellFormedRequestTarget: RequestHandler = (req, _res, next) => {
  const target = req.originalUrl;
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  // Only a path with percent-escapes needs decoding segment by segment (most paths have none).
  const malformed = path.includes('%')
    ? path.split('/').some((segment) => {
        const decoded = decodeComponent(segment);
        return decoded === null || CONTROL_CHARACTERS.test(decoded);
      })
    : CONTROL_CHARACTERS.test(path);
  if (malformed) {
    next(notFound(req.method));
    return;
  }
  const issues = queryStart === -1 ? [] : queryIssues(target.slice(queryStart + 1));
  next(issues.length > 0 ? validationFailed(issues) : undefined);
};

/** ES2024's String.prototype.isWellFormed (Node >= 20 per engines); the TypeScript lib is ES2023. */
type WellFormedCheckable = string & { isWellFormed(): boolean };

/**
 * Whether PostgreSQL can store the string: text and jsonb refuse U+0000, and an unpaired surrogate has no
 * UTF-8 form (jsonb refuses its escape; node-postgres would silently write U+FFFD into a text column).
 * Allocates nothing; other control characters (tab, newline, U+0001) are storable and allowed.
 */
const isStorable = (text: string): boolean =>
  !text.includes('\u0000') && (text as WellFormedCheckable).isWellFormed();

/**
 * Where a parsed JSON body holds a prototype key (`__proto__`, `constructor`, `prototype`), nests deeper
 * than MAX_BODY_DEPTH, or holds a string (value or key) with NUL or an unpaired surrogate. JSON.parse keeps
 * prototype keys as plain own properties, so the parsed body is inert; the danger is in what later merges or
 * transforms it. Strings PostgreSQL cannot store would fail there as a 500. A bad key is reported at its
 * object's location, so the key itself is not echoed. Iterative, so a deep body cannot exhaust the stack.
 */
export function hostileBodyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const pending: Array<{ value: object; location: string[] }> = [];
  if (body !== null && typeof body === 'object') pending.push({ value: body, location: ['body'] });
  while (pending.length > 0 && issues.length < MAX_REPORTED_ISSUES) {
    const { value, location } = pending.pop()!;
    if (location.length > MAX_BODY_DEPTH) {
      issues.push({
        errorType: 'value_error',
        location,
        message: `the body nests deeper than ${MAX_BODY_DEPTH} levels`,
      });
      continue;
    }
    for (const [key, member] of Object.entries(value)) {
      if (PROTOTYPE_KEYS.has(key)) {
        issues.push({
          errorType: 'unknown_field',
          location: [...location, key],
          message: `${key} is not a known field`,
        });
      } else if (!isStorable(key)) {
        issues.push({ errorType: 'value_error', location, message: `field names ${UNSTORABLE_MESSAGE}` });
      } else if (typeof member === 'string') {
        if (!isStorable(member)) {
          const at = [...location, key];
          issues.push({
            errorType: 'value_error',
            location: at,
            message: `${at.slice(1).join('.')} ${UNSTORABLE_MESSAGE}`,
          });
        }
      } else if (member !== null && typeof member === 'object') {
        pending.push({ value: member as object, location: [...location, key] });
      }
    }
  }
  return issues.slice(0, MAX_REPORTED_ISSUES);
}

/**
 * Refuses a body with prototype keys, excessive nesting or unstorable strings with 422 at their locations,
 * before any handler transforms or stores it. Mounted after authentication (decision 0012: 401 before
 * request validation).
 */
export const safeJsonBody: RequestHandler = (req, _res, next) => {
  const issues = hostileBodyIssues(req.body);
  next(issues.length > 0 ? validationFailed(issues) : undefined);
};
