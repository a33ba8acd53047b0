import type { oas31 } from 'openapi3-ts';

/*
 * Small builders for the JSON Schema 2020-12 dialect OpenAPI 3.1 uses. They keep `openapi.document.ts` short and
 * uniform: objects are closed (`additionalProperties: false`) and every property is required unless listed as
 * optional, so a presenter that adds, drops or renames a field fails the contract tests instead of drifting.
 */

export type SchemaObject = oas31.SchemaObject;
export type ReferenceObject = oas31.ReferenceObject;
export type Schema = SchemaObject | ReferenceObject;

type Extra = Omit<SchemaObject, 'type'>;

const isReference = (schema: Schema): schema is ReferenceObject =>
  typeof (schema as ReferenceObject).$ref === 'string';

export const string = (extra: Extra = {}): SchemaObject => ({ type: 'string', ...extra });
export const integer = (extra: Extra = {}): SchemaObject => ({ type: 'integer', ...extra });
export const number = (extra: Extra = {}): SchemaObject => ({ type: 'number', ...extra });
export const boolean = (extra: Extra = {}): SchemaObject => ({ type: 'boolean', ...extra });

export const dateTime = (description?: string): SchemaObject =>
  string({ format: 'date-time', ...(description ? { description } : {}) });

export const enumOf = (values: readonly string[], extra: Extra = {}): SchemaObject => ({
  type: 'string',
  enum: [...values],
  ...extra,
});

export const arrayOf = (items: Schema, extra: Extra = {}): SchemaObject => ({
  type: 'array',
  items,
  ...extra,
});

/** An object whose members the service does not fix (payer details, review summaries). */
export const openObject = (description: string): SchemaObject => ({
  type: 'object',
  additionalProperties: true,
  description,
});

/** The value, or `null`. Primitive types become a type list; references and combinations an `anyOf`. */
export function nullable(schema: Schema): Schema {
  if (!isReference(schema) && typeof schema.type === 'string') {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
    };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** Attaches a description (a reference keeps its target and gains the description, as 3.1 allows). */
export const describe = <S extends Schema>(schema: S, description: string): S => ({ ...schema, description });

/**
 * A closed object: every property is required unless named in `optional`, and no other property may appear.
 */
export function object<P extends Record<string, Schema>>(
  properties: P,
  options: { optional?: ReadonlyArray<keyof P & string>; description?: string; title?: string } = {},
): SchemaObject {
  const optional = new Set<string>(options.optional ?? []);
  const required = Object.keys(properties).filter((name) => !optional.has(name));
  return {
    type: 'object',
    ...(options.title ? { title: options.title } : {}),
    ...(options.description ? { description: options.description } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
