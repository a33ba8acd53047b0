/*
 * The API versions (decision 0029): defined here once, read by the API (request validation, the response
 * header, the OpenAPI document) and by the admin CLI (`key create --api-version`). A version changes response
 * shapes and a few legacy-only rules, never the stored case.
 */

export const API_VERSION_HEADER = 'Prior-Auth-Version';

export const LEGACY_API_VERSION = '2024-01-01';
export const CURRENT_API_VERSION = '2025-01-01';

/** Oldest first. */
export const API_VERSIONS = [LEGACY_API_VERSION, CURRENT_API_VERSION] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

export const isApiVersion = (value: unknown): value is ApiVersion =>
  typeof value === 'string' && (API_VERSIONS as readonly string[]).includes(value);
