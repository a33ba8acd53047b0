import { IsOptional, IsString, MaxLength, ValidationTypes } from 'class-validator';
import { JSONSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { oas31 } from 'openapi3-ts';
import type { ReferenceObject, SchemaObject } from './schema-builders';

type ParameterObject = oas31.ParameterObject;

export type RequestClass = abstract new () => object;

/** Request classes documented as components of their own, by component name. */
export type RequestComponents = Readonly<Record<string, RequestClass>>;

const GENERATED_REFERENCE = '#/definitions/';

/**
 * The JSON Schema of a request body, generated from its class-validator request class, so the class is the
 * one source of the shape: a field added there is in the OpenAPI document with no other edit
 * (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md). Closed like every request object
 * (the validation refuses unknown properties); prose and `null` where `@IsOptional` allows it come from
 * `@JSONSchema` on the property. A nested class (`@ValidateNested` with `@Type`) is a reference to its
 * component when `components` names it, and inlined otherwise.
 */
export function requestSchema(requestClass: RequestClass, components: RequestComponents = {}): SchemaObject {
  // `@IsDefined` makes the property required; the `not: {type: null}` the library adds beside a type that
  // already excludes null is left out (strict JSON Schema compilers refuse it).
  const generated = validationMetadatasToSchemas({
    additionalConverters: { [ValidationTypes.IS_DEFINED]: {} },
    classTransformerMetadataStorage: defaultMetadataStorage,
  }) as Record<string, SchemaObject>;
  const componentOf = new Map(Object.entries(components).map(([name, target]) => [target.name, name]));
  const resolve = (schema: SchemaObject): SchemaObject => {
    const { $ref: reference, ...rest } = schema as SchemaObject & { $ref?: string };
    if (reference?.startsWith(GENERATED_REFERENCE)) {
      const className = reference.slice(GENERATED_REFERENCE.length);
      const component = componentOf.get(className);
      const { type: _object, ...prose } = rest;
      if (component !== undefined) return { $ref: `#/components/schemas/${component}`, ...prose };
      return { ...closed(className), ...prose };
    }
    return {
      ...rest,
      ...(rest.items === undefined ? {} : { items: resolve(rest.items as SchemaObject) }),
      ...(rest.properties === undefined
        ? {}
        : {
            properties: Object.fromEntries(
              Object.entries(rest.properties).map(([name, property]) => [
                name,
                resolve(property as SchemaObject),
              ]),
            ),
          }),
    };
  };
  const closed = (className: string): SchemaObject => {
    const schema = generated[className];
    if (schema === undefined) throw new Error(`no request schema generated for ${className}`);
    return { ...resolve(schema), additionalProperties: false };
  };
  // A subclass that adds no property (a list's query with no filter) has no schema of its own: its parent's is
  // its shape.
  let target: RequestClass = requestClass;
  while (generated[target.name] === undefined) {
    const parent = Object.getPrototypeOf(target) as RequestClass | null;
    if (parent === null || parent === Function.prototype) break;
    target = parent;
  }
  return closed(target.name);
}

/** The schema of every component in `components`, each referring to the others. */
export const requestComponentSchemas = <C extends RequestComponents>(components: C) =>
  Object.fromEntries(
    Object.entries(components).map(([name, requestClass]) => [name, requestSchema(requestClass, components)]),
  ) as Record<keyof C, SchemaObject>;

/**
 * Lists a property the validation lets through absent as required in the document, where the contract
 * requires it and the domain answers its absence with its own error (put on the class).
 */
export const DocRequired = (...properties: string[]) =>
  JSONSchema((schema) => ({ ...schema, required: [...(schema.required ?? []), ...properties] }));

/** The schema prose of a property, next to the decorators that validate it. */
export const Doc = (description: string) => JSONSchema({ description });

/**
 * Documents the values a field takes as an enum where the domain, not the request class, refuses the others
 * (with its own error code).
 */
export const DocEnum = (values: readonly string[], description: string) =>
  JSONSchema({ enum: [...values], description });

/**
 * An optional text of at most `maxLength` characters that may also be `null` (`@IsOptional` lets null
 * through), documented as such.
 */
export function OptionalText(maxLength: number, description?: string) {
  const decorators = [
    JSONSchema({ type: ['string', 'null'], ...(description === undefined ? {} : { description }) }),
    IsOptional(),
    IsString(),
    MaxLength(maxLength),
  ];
  return (target: object, key: string): void => {
    for (const decorate of decorators) decorate(target, key);
  };
}

/**
 * The query parameters of a query class, generated like a request body (so the class that validates the query
 * is the one source of its parameters): one per property, its `@Doc` prose as the parameter's description.
 * A property named in `shared` is that reference instead (pagination's `limit` and `cursor` components).
 */
export function queryParameters(
  queryClass: RequestClass,
  shared: Readonly<Record<string, ReferenceObject>> = {},
): Array<ParameterObject | ReferenceObject> {
  const schema = requestSchema(queryClass);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const reference = shared[name];
    if (reference !== undefined) return reference;
    const { description, ...rest } = property as SchemaObject;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}
