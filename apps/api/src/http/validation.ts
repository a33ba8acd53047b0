import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { validationFailed, type ValidationIssue } from './http-error';

type Location = 'body' | 'query' | 'headers' | 'path';

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

function flatten(
  errors: ValidationError[],
  location: Location,
  parents: string[],
  out: ValidationIssue[],
): void {
  for (const error of errors) {
    const path = [...parents, error.property];
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      out.push({
        errorType: ERROR_TYPES[constraint] ?? constraint,
        location: [location, ...path],
        message: constraint === 'whitelistValidation' ? `${path.join('.')} is not a known field` : message,
      });
    }
    if (error.children?.length) flatten(error.children, location, path, out);
  }
}

/**
 * Validates a plain value against a DTO class. Unknown fields are refused (not silently dropped) so a typo
 * in a field name is reported instead of ignored. Throws `422 request_validation_failed` with precise issues.
 */
export function validateInput<T extends object>(
  dto: ClassConstructor<T>,
  value: unknown,
  location: Location,
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
  if (errors.length > 0) {
    const issues: ValidationIssue[] = [];
    flatten(errors, location, [], issues);
    throw validationFailed(issues);
  }
  return instance;
}
