import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { AUTHORIZATION_REQUEST_COMPONENTS } from '../src/openapi/openapi.components';
import { openApiDocument } from '../src/openapi/openapi.document';
import { requestSchema } from '../src/openapi/request-schema';
import type { SchemaObject } from '../src/openapi/schema-builders';
import {
  AnswerRequest,
  AttachFileRequest,
  ConfirmRequest,
  CreateAuthorizationRequest,
  LegacyCreateAuthorizationRequest,
  PatchAnswersRequest,
  QuestionnaireResponseRequest,
} from '../src/authorization/authorization.request';
import { ResolveActionRequest } from '../src/authorization/legacy/legacy-workflow.request';
import { CreateFileRequest } from '../src/files/file.request';
import {
  CompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
} from '../src/manual-handoff/manual-handoff.request';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
} from '../src/webhooks/webhook-endpoint.request';

/*
 * Request bodies generated from their class-validator request classes
 * (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md): the class is the one source, so a
 * field added to it is in the document with no other edit.
 */

/** A fixture: a request class that gained a field. */
class CreateWebhookEndpointWithRetriesRequest extends CreateWebhookEndpointRequest {
  @IsDefined() @IsInt() @Min(1) @Max(10) maxRetries!: number;
}

const schemas = () => openApiDocument.components?.schemas ?? {};

const GENERATED = {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  AttachFileRequest,
  ConfirmRequest,
  CreateFileRequest,
  ResolveActionRequest,
  CompleteManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
};

/** Requests with nested classes: the named ones are references to their components, the others inlined. */
const GENERATED_WITH_COMPONENTS = {
  CreateAuthorizationRequest,
  LegacyCreateAuthorizationRequest,
  PatchAnswersRequest,
  ...AUTHORIZATION_REQUEST_COMPONENTS,
};

/** A fixture: an answer that gained a nested value. */
class RangeRequest {
  @IsDefined() @IsInt() low!: number;
}
class AnswerWithRangeRequest extends AnswerRequest {
  @IsObject() @ValidateNested() @Type(() => RangeRequest) valueRange?: RangeRequest;
}

it.each(Object.entries(GENERATED_WITH_COMPONENTS))(
  'documents %s as its class generates it',
  (name, requestClass) => {
    expect(schemas()[name]).toEqual(requestSchema(requestClass, AUTHORIZATION_REQUEST_COMPONENTS));
  },
);

it('refers to nested request components and inlines the other nested classes, closed', () => {
  const patch = requestSchema(PatchAnswersRequest, {
    QuestionnaireResponseInput: QuestionnaireResponseRequest,
  });
  expect(patch.properties?.['questionnaireResponse']).toEqual({
    $ref: '#/components/schemas/QuestionnaireResponseInput',
  });
  const answer = requestSchema(AnswerWithRangeRequest);
  expect(answer).toMatchObject({ additionalProperties: false });
  expect(answer.properties?.['valueRange']).toEqual({
    type: 'object',
    properties: { low: { type: 'integer' } },
    required: ['low'],
    additionalProperties: false,
  });
});

it('lists as required what the contract requires though the domain answers its absence', () => {
  const required = (name: string) => (schemas()[name] as SchemaObject | undefined)?.required;
  expect(required('CreateAuthorizationRequest')).toEqual(
    expect.arrayContaining(['providerNpi', 'templateSelection', 'policy']),
  );
  expect(required('PolicyInput')).toEqual(['finalSubmission']);
  expect(required('LegacyCreateAuthorizationRequest')).not.toContain('policy');
});

it.each(Object.entries(GENERATED))('documents %s as its class generates it', (name, requestClass) => {
  expect(schemas()[name]).toEqual(requestSchema(requestClass));
});

it('generates types, limits, null and requiredness from the decorators', () => {
  expect(requestSchema(CreateWebhookEndpointRequest)).toMatchObject({
    type: 'object',
    required: ['url', 'enabledEvents'],
    additionalProperties: false,
    properties: {
      url: { type: 'string', maxLength: 2048 },
      description: { type: ['string', 'null'], maxLength: 500 },
      apiVersion: { enum: ['2024-01-01', '2025-01-01'] },
    },
  });
  expect(requestSchema(ConfirmRequest)).toEqual({
    type: 'object',
    properties: {
      nextActionId: {
        type: ['string', 'null'],
        maxLength: 100,
        description: expect.stringContaining('next_action_required'),
      },
    },
    additionalProperties: false,
  });
});

it('puts a field added to a request class in its schema, with its limits and requiredness', () => {
  const schema = requestSchema(CreateWebhookEndpointWithRetriesRequest);
  expect(schema.properties?.['maxRetries']).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
  expect(schema.required).toEqual(expect.arrayContaining(['url', 'enabledEvents', 'maxRetries']));
  expect(Object.keys(schema.properties ?? {})).toEqual(
    expect.arrayContaining(Object.keys(requestSchema(CreateWebhookEndpointRequest).properties ?? {})),
  );
});
