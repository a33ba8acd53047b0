import type { oas31 } from 'openapi3-ts';
import { header, headers, ref, type SchemaName } from '../openapi/openapi.components';
import { jsonBody, jsonResponse, type OperationDoc } from '../openapi/openapi.operations';
import { string } from '../openapi/schema-builders';
import {
  CreateWebhookEndpointRequest,
  ListWebhookEndpointsQuery,
  UpdateWebhookEndpointRequest,
} from './webhook-endpoint.request';

/*
 * What the OpenAPI document says of each `/v1/webhook-endpoints…` operation beyond its route
 * (`webhook-endpoint.routes.ts`; docs/decisions/0031-events-and-webhooks.md).
 */

/** An action on an endpoint that takes no body (`{}` or nothing). */
const withEmptyBody = (doc: OperationDoc): OperationDoc => ({
  ...doc,
  requestBody: jsonBody('EmptyBody', false),
  errors: ['request_validation_failed', ...doc.errors],
});

/** An operation under one endpoint: an unknown ID is 404 webhook_endpoint_not_found. */
const onEndpoint = (doc: OperationDoc): OperationDoc => ({
  ...doc,
  errors: ['webhook_endpoint_not_found', ...doc.errors],
});

const withEtag = (description: string, schema: SchemaName) =>
  jsonResponse(description, ref(schema), { ETag: header('ETag') });

const ifMatchOptional: oas31.ParameterObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The endpoint’s version as a quoted decimal (its ETag); stale → 409 version_conflict.',
  schema: string({ pattern: '^"(0|[1-9][0-9]*)"$' }),
};

export const WEBHOOK_ENDPOINT_OPERATIONS = {
  create: {
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Answers the endpoint with its signing `secret`, shown only here. No Idempotency-Key: a stored ' +
      'replay would keep the secret in clear.',
    requestBody: jsonBody(CreateWebhookEndpointRequest, true),
    responses: {
      201: jsonResponse('The endpoint and its secret.', ref('WebhookEndpointWithSecret'), {
        Location: {
          ...headers.Location,
          schema: string({ pattern: '^/v1/webhook-endpoints/we_[A-Za-z0-9]+$' }),
        },
        ETag: header('ETag'),
      }),
    },
    errors: ['request_validation_failed', 'webhook_url_not_allowed', 'webhook_endpoint_invalid'],
  },
  list: {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description: 'Newest first, keyset-paginated; secrets are never listed.',
    query: ListWebhookEndpointsQuery,
    responses: { 200: jsonResponse('A page of webhook endpoints.', ref('WebhookEndpointList')) },
    errors: ['request_validation_failed'],
  },
  retrieve: onEndpoint({
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    responses: { 200: withEtag('The endpoint.', 'WebhookEndpoint') },
    errors: [],
  }),
  update: onEndpoint({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Changes `url`, `enabledEvents`, `disabled`, `description` or `apiVersion`; If-Match is checked ' +
      'when sent.',
    // The endpoint's own optional If-Match (not the legacy workflow's component).
    parameters: [ifMatchOptional],
    requestBody: jsonBody(UpdateWebhookEndpointRequest, true),
    responses: { 200: withEtag('The changed endpoint.', 'WebhookEndpoint') },
    errors: [
      'request_validation_failed',
      'bad_request',
      'webhook_url_not_allowed',
      'webhook_endpoint_invalid',
      'version_conflict',
    ],
  }),
  remove: onEndpoint({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    responses: {
      204: {
        description: 'Deleted; nothing more is sent to it.',
        headers: { 'Request-Id': header('RequestId') },
      },
    },
    errors: [],
  }),
  rotateSecret: withEmptyBody(
    onEndpoint({
      operationId: 'rotateWebhookEndpointSecret',
      summary: 'Rotate the signing secret',
      description:
        'Answers a new secret, shown only here. For 24 hours deliveries are signed with both the new and ' +
        'the previous secret (two `v1,` signatures), so receivers can switch without missing an event.',
      responses: { 200: withEtag('The endpoint and its new secret.', 'WebhookEndpointWithSecret') },
      errors: [],
    }),
  ),
  sendTest: withEmptyBody(
    onEndpoint({
      operationId: 'sendWebhookTestEvent',
      summary: 'Send a test event (sandbox)',
      description:
        'Records a `webhook_endpoint.test` event delivered to this endpoint only, whatever it enabled. ' +
        'Sandbox keys only: a production key gets 404 not_found.',
      responses: { 202: jsonResponse('The test event, being delivered.', ref('Event')) },
      errors: ['not_found'],
    }),
  ),
  listDeliveries: onEndpoint({
    operationId: 'listWebhookDeliveries',
    summary: 'List an endpoint’s deliveries',
    description: 'Newest first, keyset-paginated, each with its attempts.',
    query: ListWebhookEndpointsQuery,
    responses: { 200: jsonResponse('A page of deliveries.', ref('WebhookDeliveryList')) },
    errors: ['request_validation_failed'],
  }),
  retryDelivery: withEmptyBody(
    onEndpoint({
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again',
      description:
        'Makes the delivery pending and sends it now, with the same `webhook-id`, whatever its state. A ' +
        'delivery is sent by one attempt at a time: a follow-up waiting for its backoff is replaced, and ' +
        'while an attempt is in flight the retry starts no second one (that attempt answers it).',
      responses: { 202: jsonResponse('The delivery, pending.', ref('WebhookDelivery')) },
      errors: ['webhook_delivery_not_found'],
    }),
  ),
} satisfies Record<string, OperationDoc>;
