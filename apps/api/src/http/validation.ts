import { plainToInstance, Type, type ClassConstructor } from 'class-transformer';
import { IsObject, ValidateNested, validateSync, type ValidationError } from 'class-validator';
import { HttpError, validationFailed, type ValidationIssue } from './http-error';
import { memoizeValidationMetadata } from './validation-metadata-cache';

memoizeValidationMetadata();

export type Location = 'body' | 'query' | 'headers' | 'path';

/** The message of an `@IsIn` rule: it names the allowed values, so a client can correct the request. */
export const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});

/** The context that marks the element rule of `ValidateNestedEach`: reported at each element it refuses. */
const EACH_ELEMENT = 'eachElement';

const isJsonObject = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * An array of objects of `type`, each validated as that class. `@ValidateNested({ each: true })` alone does not
 * refuse an element that is itself an array: class-transformer leaves it an array and class-validator walks into
 * it as a nested array, so `[[]]` passed as a list of objects. Here every element that is not a JSON object
 * (an array, `null`, a primitive) is a `type_error` at its own location (`item.0`); the elements that are objects
 * are validated as usual. Use it instead of `@ValidateNested({ each: true })` and `@Type`; `@IsArray` and the
 * size caps stay on the property. The generated schema is unchanged: each element is the class's schema.
 */
export function ValidateNestedEach(type: () => ClassConstructor<object>) {
  const decorators = [
    IsObject({ each: true, context: { [EACH_ELEMENT]: true } }),
    ValidateNested({ each: true }),
    Type(type),
  ];
  return (target: object, property: string): void => {
    for (const decorate of decorators) decorate(target, property);
  };
}

const isElementRule = (error: ValidationError, constraint: string): boolean =>
  error.contexts?.[constraint]?.[EACH_ELEMENT] === true;

// class-validator's constraint names are stable identifiers; expose the common ones as error types.
const ERROR_TYPES: Record<string, string> = {
  whitelistValidation: 'unknown_field',
  isDefined: 'missing',
  isNotEmpty: 'missing',
  isString: 'type_error',
  isBoolean: 'type_error',
  isNumber: 'type_error',
  isInt: 'type_error',
  isArray: 'type_error',
  isObject: 'type_error',
  nestedValidation: 'type_error',
  isIn: 'enum',
  isEnum: 'enum',
  maxLength: 'too_long',
  minLength: 'too_short',
  arrayMinSize: 'too_short',
  arrayMaxSize: 'too_long',
  min: 'out_of_range',
  max: 'out_of_range',
  matches: 'pattern',
};

/**
 * The constraints worth reporting for one field: a missing field only as missing, a value of the wrong type
 * only as a type error (its length or pattern mean nothing then), otherwise every rule it breaks.
 */
function reportable(error: ValidationError): Array<[string, string]> {
  // The element rule also judges a value that is not an array at all; that value is `@IsArray`'s to report.
  const constraints = Object.entries(error.constraints ?? {}).filter(
    ([constraint]) => Array.isArray(error.value) || !isElementRule(error, constraint),
  );
  const missing = constraints.find(([constraint]) => constraint === 'isDefined');
  if (missing && error.value === undefined) return [missing];
  const typeErrors = constraints.filter(([constraint]) => ERROR_TYPES[constraint] === 'type_error');
  const typeError = typeErrors.find(([constraint]) => constraint !== 'nestedValidation') ?? typeErrors[0];
  return typeError ? [typeError] : constraints;
}

function flatten(
  errors: ValidationError[],
  location: Location,
  parents: string[],
  out: ValidationIssue[],
): void {
  for (const error of errors) {
    const path = [...parents, error.property];
    const reported = reportable(error);
    const refusedElements = new Set<string>();
    for (const [constraint, message] of reported) {
      if (isElementRule(error, constraint)) {
        (error.value as unknown[]).forEach((element, index) => {
          if (isJsonObject(element)) return;
          refusedElements.add(String(index));
          out.push({
            errorType: 'type_error',
            location: [location, ...path, String(index)],
            message: `${error.property}[${index}] must be an object`,
          });
        });
        continue;
      }
      out.push({
        errorType: ERROR_TYPES[constraint] ?? constraint,
        location: [location, ...path],
        message: constraint === 'whitelistValidation' ? `${path.join('.')} is not a known field` : message,
      });
    }
    // Fields inside a value that is missing or of the wrong type are not worth reporting one by one; inside
    // an array whose elements were refused, those of the other elements still are.
    const wholeValueRefused = reported.some(
      ([constraint]) =>
        !isElementRule(error, constraint) &&
        (ERROR_TYPES[constraint] === 'missing' || ERROR_TYPES[constraint] === 'type_error'),
    );
    const children = (error.children ?? []).filter((child) => !refusedElements.has(child.property));
    if (!wholeValueRefused && children.length > 0) flatten(children, location, path, out);
  }
}

/**
 * Validates a plain value against a DTO class. Unknown fields are refused (not silently dropped) so a typo
 * in a field name is reported instead of ignored. Throws `422 request_validation_failed` with precise issues.
 * `check` adds rules class-validator cannot express on one property (for example "exactly one of"); it gets
 * the raw value, which may be invalid in other ways, and its issues are reported together with the others.
 */
export function validateInput<T extends object>(
  dto: ClassConstructor<T>,
  value: unknown,
  location: Location,
  check?: (raw: Record<string, unknown>) => ValidationIssue[],
): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationFailed([
      { errorType: 'type_error', location: [location], message: `the ${location} must be a JSON object` },
    ]);
  }
  const instance = plainToInstance(dto, value, {
    enableImplicitConversion: false,
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  const issues: ValidationIssue[] = [];
  flatten(errors, location, [], issues);
  if (check) issues.push(...check(value as Record<string, unknown>));
  if (issues.length > 0) throw validationFailed(issues);
  return instance;
}

/** For operations without a body: nothing, or an empty JSON object. Anything else is a 422 at its field. */
export function assertEmptyBody(value: unknown): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationFailed([
      {
        errorType: 'type_error',
        location: ['body'],
        message: 'this operation takes no body (or an empty object)',
      },
    ]);
  }
  const fields = Object.keys(value);
  if (fields.length > 0) {
    throw validationFailed(
      fields.map((field) => ({
        errorType: 'unknown_field',
        location: ['body', field],
        message: `${field} is not a known field`,
      })),
    );
  }
}

/** For reads that take no query parameters: any parameter is refused (a typo is reported, not ignored). */
export function assertEmptyQuery(query: unknown): void {
  const fields = query !== null && typeof query === 'object' ? Object.keys(query) : [];
  if (fields.length > 0) {
    throw validationFailed(
      fields.map((field) => ({
        errorType: 'unknown_field',
        location: ['query', field],
        message: `${field} is not a known query parameter`,
      })),
    );
  }
}

/**
 * Runs independent validations and reports all their 422 issues at once (for example a missing
 * Idempotency-Key header and an invalid body field), instead of one round trip per problem.
 */
export function validateAll<A, B>(first: () => A, second: () => B): [A, B] {
  const issues: ValidationIssue[] = [];
  const attempt = <T>(run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      if (error instanceof HttpError && error.code === 'request_validation_failed') {
        issues.push(...(error.options.issues ?? []));
        return undefined;
      }
      throw error;
    }
  };
  const a = attempt(first);
  const b = attempt(second);
  if (issues.length > 0) throw validationFailed(issues);
  return [a as A, b as B];
}
