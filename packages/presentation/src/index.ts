/*
 * Presenters: resources and events rendered field by field in an API version (0019), pure functions over the
 * domain's aggregates. The API answers with them and the worker renders webhook deliveries with them
 * (docs/decisions/0031-events-and-webhooks.md), so a delivery's body is what `GET /v1/events` answers.
 */
export * from './authorization.paths';
export * from './authorization.presenter';
export * from './event.presenter';
export * from './file.presenter';
export * from './legacy-authorization.presenter';
export * from './manual-handoff.presenter';
