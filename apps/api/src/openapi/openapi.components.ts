import {
  WEBHOOK_DELIVERY_STATUSES,
  ANSWER_CONSTRAINTS,
  ANSWER_TYPES,
  AUTHORIZATION_STATUSES,
  COMPARISON_OPERATORS,
  FAILURE_CODES,
  FILE_PURPOSES,
  FILE_STATUSES,
  FINAL_SUBMISSION_POLICIES,
  ISSUE_SEVERITIES,
  PAYER_EVIDENCE_CONTENT_TYPES,
  RESOURCE_EVENT_TYPES,
  MANUAL_HANDOFF_RESULTS,
  MANUAL_HANDOFF_STATES,
  MAX_FILE_SIZE_BYTES,
  MAX_GROUP_INSTANCES,
  NEXT_ACTION_OWNERS,
  NEXT_ACTION_TYPES,
  OUTCOMES,
  PAYER_REQUEST_STATUSES,
  PORTAL_AUTH_MODES,
  RECONCILIATION_STATES,
  REQUIREMENT_ISSUE_CODES,
  REVIEW_SNAPSHOT_STATUSES,
  SERVICE_CODE_SYSTEMS,
  SERVICE_TYPES,
  SUBMISSION_ATTEMPT_STATUSES,
  VALUE_TYPES,
  UNSERVICEABLE_REASONS,
} from '@prior-auth/domain';
import {
  API_VERSION_HEADER,
  API_VERSIONS,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
} from '@prior-auth/platform';
import type { oas31 } from 'openapi3-ts';
import {
  ANSWER_DOCS,
  ANSWER_VALUE_FIELDS,
  AnswerRequest,
  CreateAuthorizationRequest,
  LegacyCreateAuthorizationRequest,
  LegacyTemplateSelectionRequest,
  PatchAnswersRequest,
  PolicyRequest,
  QuestionnaireResponseRequest,
  TEMPLATE_SELECTION_DOCS,
  TemplateSelectionRequest,
} from '../authorization/authorization.request';
import { LEGACY_STATUSES } from '@prior-auth/presentation';
import {
  ACTION_ITEM_TYPES,
  DECISION_STATES,
  WORKFLOW_STATES,
} from '../authorization/legacy/legacy-workflow.presenter';
import { PageQuery } from '../http/pagination';
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../http/preconditions';
import {
  CreateWebhookEndpointRequest,
  SUBSCRIBABLE_EVENTS,
  UpdateWebhookEndpointRequest,
} from '../webhooks/webhook-endpoint.request';
import { queryParameters, requestComponentSchemas, requestSchema, type RequestClass } from './request-schema';
import { AttachFileRequest, ConfirmRequest } from '../authorization/authorization.request';
import { ResolveActionRequest } from '../authorization/legacy/legacy-workflow.request';
import { CreateFileRequest } from '../files/file.request';
import {
  CompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
} from '../manual-handoff/manual-handoff.request';
import type { ErrorCode } from './error-catalog';
import {
  arrayOf,
  boolean,
  dateTime,
  describe,
  enumOf,
  integer,
  nullable,
  number,
  object,
  openObject,
  string,
  type Schema,
  type SchemaObject,
} from './schema-builders';

/*
 * The components of the OpenAPI document: schemas, parameters and headers, by name. Schemas are built from the
 * builders in `schema-builders.ts` and from the same constants the request classes and the domain use; request
 * bodies are generated from their classes (`request-schema.ts`). The operations that refer to them are defined
 * with their routes (docs/decisions/0040-routes-feed-the-openapi-document.md).
 */

// ---- component names -----------------------------------------------------------------------------------

export type SchemaName =
  | 'Authorization'
  | 'AuthorizationList'
  | 'LegacyAuthorization'
  | 'LegacyAuthorizationList'
  | 'LegacyWorkflowAuthorization'
  | 'ActionItem'
  | 'SubmissionAttempt'
  | 'ResolveActionRequest'
  | 'LegacyQuestionnaireGroup'
  | 'LegacyCreateAuthorizationRequest'
  | 'LegacyTemplateSelectionInput'
  | 'Policy'
  | 'Payer'
  | 'PayerList'
  | 'SandboxScenario'
  | 'SandboxScenarioList'
  | 'TemplateSelection'
  | 'Route'
  | 'RouteList'
  | 'RouteServiceability'
  | 'DocumentRequirement'
  | 'QuestionnaireGroup'
  | 'QuestionnaireItem'
  | 'AnswerOption'
  | 'Condition'
  | 'ValuesWhen'
  | 'TextWhen'
  | 'Coding'
  | 'Answer'
  | 'QuestionnaireResponse'
  | 'Requirements'
  | 'Issue'
  | 'Submission'
  | 'AuthorizationFailure'
  | 'Event'
  | 'EventList'
  | 'WebhookEndpoint'
  | 'WebhookEndpointWithSecret'
  | 'WebhookEndpointList'
  | 'WebhookDelivery'
  | 'WebhookDeliveryList'
  | 'CreateWebhookEndpointRequest'
  | 'UpdateWebhookEndpointRequest'
  | 'ReviewSnapshot'
  | 'PayerReceipt'
  | 'Decision'
  | 'Attachment'
  | 'NextAction'
  | 'File'
  | 'FileList'
  | 'Pagination'
  | 'ErrorEnvelope'
  | 'ValidationIssue'
  | 'HealthStatus'
  | 'Liveness'
  | 'Readiness'
  | 'BlobUploadResult'
  | 'CreateAuthorizationRequest'
  | 'TemplateSelectionInput'
  | 'PolicyInput'
  | 'QuestionnaireResponseInput'
  | 'AnswerInput'
  | 'PatchAnswersRequest'
  | 'AttachFileRequest'
  | 'ConfirmRequest'
  | 'CreateFileRequest'
  | 'ManualHandoff'
  | 'ManualHandoffList'
  | 'ManualHandoffAccessGrant'
  | 'LiveSession'
  | 'LiveSessionAccessGrant'
  | 'CompleteManualHandoffRequest'
  | 'UnableToCompleteManualHandoffRequest'
  | 'RevokeManualHandoffRequest'
  | 'EmptyBody';

export type ParameterName =
  | 'AuthorizationId'
  | 'AttachmentId'
  | 'ActionId'
  | 'IfMatchOptional'
  | 'PayerId'
  | 'FileId'
  | 'BlobToken'
  | 'ManualHandoffId'
  | 'WebhookEndpointId'
  | 'WebhookDeliveryId'
  | 'GrantToken'
  | 'SandboxSessionToken'
  | 'LiveViewToken'
  | 'IdempotencyKeyRequired'
  | 'IdempotencyKeyOptional'
  | 'ApiVersion'
  | 'IfMatch'
  | 'Limit'
  | 'Cursor';

export type HeaderName =
  | 'ApiVersion'
  | 'RequestId'
  | 'ETag'
  | 'HandoffETag'
  | 'Location'
  | 'IdempotentReplayed'
  | 'RetryAfter'
  | 'WWWAuthenticate'
  | 'RateLimitLimit'
  | 'RateLimitRemaining'
  | 'RateLimitReset';

export const ref = (name: SchemaName): Schema => ({ $ref: `#/components/schemas/${name}` });
export const param = (name: ParameterName): oas31.ReferenceObject => ({
  $ref: `#/components/parameters/${name}`,
});
export const header = (name: HeaderName): oas31.ReferenceObject => ({ $ref: `#/components/headers/${name}` });

// ---- shared schema pieces ------------------------------------------------------------------------------

const id = (prefix: string, description: string) =>
  string({ pattern: `^${prefix}_[A-Za-z0-9]+$`, description });
/** A receipt's details: open, with the one member the service fixes (docs/decisions/0020-payer-evidence.md). */
const receiptDetails: SchemaObject = {
  ...openObject('Channel-specific details.'),
  properties: {
    confirmationFileId: string({
      description:
        'What the payer portal showed when it accepted the submission: a file of purpose `payer_evidence` ' +
        '(an image of the confirmation page, else a PDF of it), read and downloaded like any ready file ' +
        '(`GET /v1/files/{fileId}`) by the case’s organization and environment only. Absent when the ' +
        'receipt came without such a capture (a submission found at the payer after a crash, a manual handoff).',
    }),
  },
};
const STATE = string({ pattern: '^[A-Z]{2}$', description: 'Two-letter US state code.' });
const SERVICE_TYPE = enumOf(SERVICE_TYPES);

/** The pinned route as the API answers it; the request's is generated from `TemplateSelectionRequest`. */
const TEMPLATE_SELECTION = object(
  {
    payerId: string({ minLength: 1, description: TEMPLATE_SELECTION_DOCS.payerId }),
    insuranceState: STATE,
    serviceType: SERVICE_TYPE,
    serviceCode: string({ minLength: 1, description: TEMPLATE_SELECTION_DOCS.serviceCode }),
    serviceCodeSystem: enumOf(SERVICE_CODE_SYSTEMS),
  },
  { description: TEMPLATE_SELECTION_DOCS.selection },
);

/** An answer as the API answers it (one value field); the request's is generated from `AnswerRequest`. */
const ANSWER: SchemaObject = {
  ...object(
    {
      valueString: string(),
      valueBoolean: boolean(),
      valueDate: string({ description: ANSWER_DOCS.valueDate }),
      valueDecimal: number(),
      valueCoding: ref('Coding'),
      valueInteger: integer({ description: ANSWER_DOCS.valueInteger }),
      valueQuantity: object(
        {
          value: number(),
          unit: string({ minLength: 1 }),
          system: string({ minLength: 1 }),
          code: string({ minLength: 1 }),
        },
        { optional: ['unit', 'system', 'code'], description: ANSWER_DOCS.valueQuantity },
      ),
      valueTime: string({ description: ANSWER_DOCS.valueTime }),
      valueDateTime: string({ description: ANSWER_DOCS.valueDateTime }),
    },
    { optional: [...ANSWER_VALUE_FIELDS], description: ANSWER_DOCS.answer },
  ),
  minProperties: 1,
  maxProperties: 1,
};

/** A question's repeating-group instance (docs/decisions/0036). */
const INSTANCE = integer({ minimum: 0, maximum: MAX_GROUP_INSTANCES - 1, description: ANSWER_DOCS.instance });

const QUESTIONNAIRE_RESPONSE = object(
  {
    item: arrayOf(
      object(
        { linkId: string({ minLength: 1 }), instance: INSTANCE, answer: arrayOf(ref('Answer')) },
        { optional: ['instance'] },
      ),
    ),
  },
  { description: 'The current normalized answer set.' },
);

/** The request classes with a component of their own; their nested classes are inlined. */
export const AUTHORIZATION_REQUEST_COMPONENTS = {
  TemplateSelectionInput: TemplateSelectionRequest,
  LegacyTemplateSelectionInput: LegacyTemplateSelectionRequest,
  PolicyInput: PolicyRequest,
  QuestionnaireResponseInput: QuestionnaireResponseRequest,
  AnswerInput: AnswerRequest,
} satisfies Partial<Record<SchemaName, RequestClass>>;

const list = (item: SchemaName, description: string): SchemaObject =>
  object({ data: arrayOf(ref(item)), pagination: ref('Pagination') }, { description });

const condition = (properties: Record<string, Schema>, required: string[]): SchemaObject => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

// ---- component schemas ---------------------------------------------------------------------------------

const webhookEndpointProperties = {
  id: id('we', 'Stable webhook endpoint ID.'),
  url: string(),
  description: nullable(string()),
  enabledEvents: arrayOf(enumOf(SUBSCRIBABLE_EVENTS)),
  disabled: boolean(),
  apiVersion: enumOf(API_VERSIONS, { description: 'The API version its deliveries are rendered in.' }),
  version: integer({ minimum: 1, description: 'Send it quoted in If-Match on PATCH (optional there).' }),
  createdAt: dateTime(),
  updatedAt: dateTime(),
};

export const schemas: Record<SchemaName, SchemaObject> = {
  Authorization: object(
    {
      id: id('auth', 'Stable authorization ID.'),
      version: integer({
        minimum: 1,
        description: 'Optimistic-concurrency version; 1 on creation. Send it quoted in If-Match.',
      }),
      status: enumOf(AUTHORIZATION_STATUSES, {
        description:
          '`requires_action` is used only while the next action is complete_payer_interaction (a human must act ' +
          'at the payer).',
      }),
      policy: ref('Policy'),
      providerNpi: string({ pattern: '^[0-9]{10}$', description: 'Tenant-scoped provider NPI.' }),
      payer: ref('Payer'),
      templateSelection: ref('TemplateSelection'),
      questionnaire: arrayOf(ref('QuestionnaireGroup'), {
        description: 'The full current question surface.',
      }),
      questionnaireResponse: ref('QuestionnaireResponse'),
      requirements: ref('Requirements'),
      submission: ref('Submission'),
      createdAt: dateTime(),
      updatedAt: dateTime('Time of the last change.'),
      outcome: nullable(enumOf(OUTCOMES, { description: 'Terminal outcome once status is completed.' })),
      failure: nullable(ref('AuthorizationFailure')),
      portalAuthMode: enumOf(PORTAL_AUTH_MODES, {
        description: 'How the service accesses the payer portal.',
      }),
      attachments: arrayOf(ref('Attachment')),
      nextAction: nullable(ref('NextAction')),
      completedAt: nullable(dateTime('Set when status reached completed.')),
      canceledAt: nullable(dateTime('Set when status reached canceled.')),
    },
    {
      optional: ['outcome', 'portalAuthMode', 'attachments', 'nextAction', 'completedAt', 'canceledAt'],
      description:
        'The authorization (current shape). Fields the spec marks optional are always present in this ' +
        'implementation, `null` until they apply.',
    },
  ),
  AuthorizationList: list('Authorization', 'A page of authorizations, newest first.'),
  LegacyAuthorization: object(
    {
      id: id('auth', 'Stable authorization ID.'),
      version: integer({ minimum: 1, description: 'Send it quoted in If-Match.' }),
      status: enumOf(LEGACY_STATUSES, {
        description:
          'requires_input → draft, requires_confirmation → ready, processing → in_progress, requires_action → ' +
          'action_required, waiting_on_payer, completed, canceled → cancelled.',
      }),
      providerNpi: string({ pattern: '^[0-9]{10}$' }),
      payer: ref('Payer'),
      templateSelection: ref('TemplateSelection'),
      questionnaire: arrayOf(ref('LegacyQuestionnaireGroup')),
      questionnaireResponse: ref('QuestionnaireResponse'),
      requirements: ref('Requirements'),
      createdAt: dateTime(),
      updatedAt: dateTime(),
      outcome: nullable(enumOf(OUTCOMES)),
      attachments: arrayOf(
        object({
          id: id('att', 'Stable, scoped to the authorization.'),
          fileId: string(),
          label: string(),
          createdAt: dateTime(),
          documentTypes: arrayOf(string(), { minItems: 1 }),
        }),
      ),
      confirmation: nullable(
        object(
          {
            receivedAt: dateTime(),
            referenceNumber: nullable(string()),
            details: receiptDetails,
          },
          { description: 'The payer receipt.' },
        ),
      ),
      decision: nullable(ref('Decision')),
      submittedAt: nullable(dateTime('When the final submission boundary was crossed.')),
      completedAt: nullable(dateTime()),
    },
    {
      description: `The authorization (legacy create/answers shape), answered under API version ${LEGACY_API_VERSION}.`,
    },
  ),
  LegacyAuthorizationList: list('LegacyAuthorization', `A page of authorizations (${LEGACY_API_VERSION}).`),
  LegacyQuestionnaireGroup: object({
    id: string(),
    title: string(),
    items: arrayOf(
      object(
        {
          linkId: string(),
          text: string(),
          required: boolean(),
          answerType: enumOf(ANSWER_TYPES),
          options: arrayOf(ref('AnswerOption')),
        },
        { optional: ['options'] },
      ),
    ),
  }),
  Policy: object({
    finalSubmission: enumOf(FINAL_SUBMISSION_POLICIES, {
      description: '`automatic` submits at the final boundary; `requires_confirmation` pauses for approval.',
    }),
  }),
  Payer: object(
    {
      id: string({ description: 'Canonical payer ID.' }),
      displayName: string(),
      supportedStates: arrayOf(STATE),
      supportedServiceTypes: arrayOf(SERVICE_TYPE),
      aliases: arrayOf(string(), { description: 'Used for search and matching.' }),
      status: string({ description: 'Catalog status, e.g. `active`.' }),
      brand: string({ description: 'Parent brand; omitted when unknown.' }),
      lineOfBusiness: string({ description: 'Omitted when unknown.' }),
    },
    { optional: ['brand', 'lineOfBusiness'] },
  ),
  PayerList: list('Payer', 'A page of payers.'),
  SandboxScenario: object({
    scenario: string({ description: 'What the simulated payer does, e.g. `approved`, `more_info`.' }),
    memberId: string({ description: 'Answer `patient.memberId` with this value to get the scenario.' }),
    description: string(),
  }),
  SandboxScenarioList: list('SandboxScenario', 'Every scenario of the simulated payer (one page).'),
  TemplateSelection: TEMPLATE_SELECTION,
  Route: object(
    {
      templateSelection: ref('TemplateSelection'),
      portalAuthModes: arrayOf(enumOf(PORTAL_AUTH_MODES), { minItems: 1 }),
      questionnaire: arrayOf(ref('QuestionnaireGroup')),
      documentRequirements: arrayOf(ref('DocumentRequirement')),
      serviceability: ref('RouteServiceability'),
    },
    { description: 'A serviceable route: what to collect before creating an authorization on it.' },
  ),
  RouteServiceability: object(
    {
      serviceable: boolean({
        description:
          'Whether a create on this route succeeds now. Sandbox routes always are; a production route needs its payer’s portal connected and, for `automated`, the organization’s stored portal credentials (otherwise create answers 409 unsupported_template_selection).',
      }),
      reason: nullable(
        enumOf(UNSERVICEABLE_REASONS, {
          description:
            'Why not, when `serviceable` is false (for the default mode, `automated` where offered).',
        }),
      ),
      portalAuthModes: arrayOf(enumOf(PORTAL_AUTH_MODES), {
        description: 'The route’s portal auth modes a create can use now.',
      }),
    },
    { description: 'Additive (decision 0021): whether and how the caller can create on the route now.' },
  ),
  RouteList: list('Route', 'A page of serviceable routes.'),
  DocumentRequirement: object(
    {
      type: string({ description: 'The document type an attachment must list in `documentTypes`.' }),
      label: string(),
      message: string(),
      requiredWhen: ref('Condition'),
    },
    { optional: ['requiredWhen'] },
  ),
  QuestionnaireGroup: object(
    {
      id: string({ description: 'Stable group ID.' }),
      title: string(),
      items: arrayOf(ref('QuestionnaireItem')),
      displays: arrayOf(
        object(
          {
            linkId: string(),
            text: string(),
            position: integer({ minimum: 0, description: 'Shown after this many of the group’s items.' }),
            hiddenWhen: describe(ref('Condition'), 'Not shown while this holds.'),
          },
          { optional: ['hiddenWhen'] },
        ),
        {
          description:
            'Text shown among the items without taking an answer (FHIR display items, docs/decisions/0036).',
        },
      ),
    },
    { optional: ['displays'] },
  ),
  QuestionnaireItem: object(
    {
      linkId: string({ description: 'Stable field key used in questionnaireResponse.' }),
      text: string({ description: 'Question text (`textWhen` already resolved for the current answers).' }),
      required: boolean(),
      answerType: enumOf(ANSWER_TYPES),
      repeats: boolean({ description: 'Several answers allowed.' }),
      valueType: enumOf(VALUE_TYPES, {
        description:
          'Refines `answerType`: `integer` and `quantity` (`decimal`), `time` (`string`), `dateTime` (`date`).',
      }),
      units: arrayOf(ref('Coding'), { description: 'The units a `valueQuantity` answer may carry.' }),
      minLength: integer({ minimum: 0 }),
      options: arrayOf(ref('AnswerOption'), { description: 'Allowed coded values.' }),
      answerConstraint: enumOf(ANSWER_CONSTRAINTS, {
        description: '`optionsOrString` also accepts a free-text `valueString` (FHIR open-choice).',
      }),
      pattern: string({ description: 'Regular expression a string answer must match as a whole.' }),
      maxLength: integer({ minimum: 0 }),
      min: string({ description: 'Lower bound: a decimal, or a `YYYY-MM-DD` date.' }),
      max: string({ description: 'Upper bound: a decimal, or a `YYYY-MM-DD` date.' }),
      errorMessage: string({ description: 'Replaces the messages about an answer’s value.' }),
      mode: string({ description: 'Rendering or collection hint.' }),
      defaultValue: describe(ref('Answer'), 'Applied at create time to unanswered allowed items.'),
      requiredWhen: describe(ref('Condition'), 'The item is required while this holds.'),
      notAllowedWhen: describe(ref('Condition'), 'The item must not be answered while this holds.'),
      valuesWhen: ref('ValuesWhen'),
      textWhen: ref('TextWhen'),
      repeatingGroup: object(
        { linkId: string(), text: string() },
        {
          description:
            'The repeating group this question belongs to: its answers carry the group `instance`, and it is ' +
            'asked and validated in each instance (docs/decisions/0036).',
        },
      ),
    },
    {
      optional: [
        'repeatingGroup',
        'repeats',
        'valueType',
        'units',
        'minLength',
        'options',
        'answerConstraint',
        'pattern',
        'maxLength',
        'min',
        'max',
        'errorMessage',
        'mode',
        'defaultValue',
        'requiredWhen',
        'notAllowedWhen',
        'valuesWhen',
        'textWhen',
      ],
    },
  ),
  AnswerOption: object({ code: string(), display: string() }),
  Condition: {
    description:
      'A condition over the answers (docs/decisions/0011): `all`/`any` of conditions, `not`, `exists`, or a ' +
      'comparison. `=` holds when one answer equals; `!=` when none does (unanswered satisfies it); an item ' +
      'whose `notAllowedWhen` holds reads as unanswered.',
    oneOf: [
      condition({ all: arrayOf(ref('Condition')) }, ['all']),
      condition({ any: arrayOf(ref('Condition')) }, ['any']),
      condition({ not: ref('Condition') }, ['not']),
      condition({ linkId: string(), operator: { const: 'exists' }, exists: boolean() }, [
        'linkId',
        'operator',
        'exists',
      ]),
      condition({ linkId: string(), operator: enumOf(COMPARISON_OPERATORS), answer: ref('Answer') }, [
        'linkId',
        'operator',
        'answer',
      ]),
    ],
  },
  ValuesWhen: object(
    { cases: arrayOf(object({ when: ref('Condition'), values: arrayOf(string()) })) },
    {
      description:
        'Conditionally available option codes: the first case whose `when` holds wins; none → all.',
    },
  ),
  TextWhen: object(
    { cases: arrayOf(object({ when: ref('Condition'), text: string() })) },
    { description: 'Conditionally displayed text: the first case whose `when` holds wins; none → `text`.' },
  ),
  Coding: object(
    { code: string(), system: string(), display: string() },
    { optional: ['system', 'display'] },
  ),
  Answer: ANSWER,
  QuestionnaireResponse: QUESTIONNAIRE_RESPONSE,
  Requirements: object(
    {
      version: integer({ minimum: 1, description: 'Checked against nextAction.requirementsVersion.' }),
      questions: arrayOf(
        object({ linkId: string(), instance: INSTANCE, message: string() }, { optional: ['instance'] }),
      ),
      documents: arrayOf(object({ type: string(), message: string() })),
      issues: arrayOf(ref('Issue')),
    },
    { description: 'The current unresolved blockers; the status stays requires_input while any remain.' },
  ),
  Issue: object(
    {
      code: string({
        description: `Stable code; the requirements engine's are ${REQUIREMENT_ISSUE_CODES.map((c) => `\`${c}\``).join(', ')}.`,
      }),
      message: string(),
      field: string({ description: 'The linkId or field path.' }),
      severity: enumOf(ISSUE_SEVERITIES),
      instance: INSTANCE,
    },
    { optional: ['instance'] },
  ),
  Submission: object({
    reviewSnapshot: nullable(ref('ReviewSnapshot')),
    payerReceipt: nullable(ref('PayerReceipt')),
    decision: nullable(ref('Decision')),
    decisionDueAt: nullable(
      dateTime(
        'When the payer’s decision is due under CMS-0057-F: 72 hours (expedited: `request.expedited` ' +
          'answered true) or 7 calendar days after the payer’s receipt. Null until a receipt exists, and ' +
          'again when the payer asks for more information.',
      ),
    ),
  }),
  Event: object(
    {
      id: id('evt', 'Stable event ID; also the `webhook-id` of its deliveries.'),
      type: enumOf(RESOURCE_EVENT_TYPES, {
        description:
          '`authorization.created`; `authorization.updated` for every new version; `authorization.<status>` ' +
          'for each status entered; `authorization.decision_overdue` when a case waiting on the payer passes ' +
          '`submission.decisionDueAt`; `manual_handoff.created`, `manual_handoff.closed`; `file.ready`; ' +
          '`webhook_endpoint.disabled` (after 5 days of failed deliveries) and `webhook_endpoint.test`.',
      }),
      createdAt: dateTime(),
      authorizationId: nullable(string({ description: 'The case the event is about; null for files.' })),
      data: object({
        object: {
          anyOf: [
            ref('Authorization'),
            ref('LegacyAuthorization'),
            ref('ManualHandoff'),
            ref('File'),
            ref('WebhookEndpoint'),
          ],
          description:
            'The resource as it was when the event happened, in the API version of the request (an ' +
            'authorization under 2024-01-01 has the legacy shape).',
        },
      }),
    },
    { description: 'Something that happened to a resource (docs/decisions/0031-events-and-webhooks.md).' },
  ),
  EventList: list('Event', 'A page of events, newest first.'),
  WebhookEndpoint: object(webhookEndpointProperties, {
    description:
      'A URL that receives the organization’s events of one environment, signed (Standard Webhooks).',
  }),
  WebhookEndpointWithSecret: object(
    {
      ...webhookEndpointProperties,
      secret: string({
        pattern: '^whsec_',
        description: 'The signing secret (`whsec_…`), shown only in this answer; it is stored encrypted.',
      }),
    },
    { description: 'The endpoint and its new signing secret.' },
  ),
  WebhookEndpointList: list('WebhookEndpoint', 'A page of webhook endpoints, newest first.'),
  WebhookDelivery: object(
    {
      id: id('whdel', 'The delivery ID.'),
      eventId: id('evt', 'The event delivered; also the `webhook-id` header of every attempt.'),
      eventType: string(),
      authorizationId: nullable(string({ description: 'The case of the event; null for files.' })),
      status: enumOf(WEBHOOK_DELIVERY_STATUSES, {
        description:
          '`pending` until an attempt is answered 2xx (`succeeded`) or retries end after 3 days (`failed`).',
      }),
      nextAttemptAt: nullable(dateTime('When a pending delivery is sent again after a failed attempt.')),
      createdAt: dateTime(),
      updatedAt: dateTime(),
      attempts: {
        type: 'array',
        description: 'Every attempt, oldest first.',
        items: object({
          attemptNumber: integer({ minimum: 1 }),
          attemptedAt: dateTime(),
          statusCode: nullable(integer({ description: 'The receiver’s status; null when none came.' })),
          durationMs: integer({ minimum: 0 }),
          responseExcerpt: nullable(string({ description: 'At most 4 KiB of what the receiver answered.' })),
          error: nullable(
            string({ description: 'Why the attempt failed (status, redirect, timeout, refused address).' }),
          ),
        }),
      },
    },
    { description: 'One event sent to one endpoint (docs/decisions/0031-events-and-webhooks.md).' },
  ),
  WebhookDeliveryList: list('WebhookDelivery', 'A page of deliveries, newest first.'),
  CreateWebhookEndpointRequest: requestSchema(CreateWebhookEndpointRequest),
  UpdateWebhookEndpointRequest: requestSchema(UpdateWebhookEndpointRequest),
  AuthorizationFailure: object(
    {
      code: string({
        description: `Stable reason; the service's codes are ${FAILURE_CODES.map((c) => `\`${c}\``).join(', ')}.`,
      }),
      message: string({ description: 'Human-readable; may change.' }),
      retryable: boolean({
        description:
          'Whether creating the same request again later may succeed (outages, automation trouble), as ' +
          'opposed to a refusal by the payer or its portal.',
      }),
    },
    { description: 'Why a case completed with outcome `failed`; null for every other case.' },
  ),
  ReviewSnapshot: object(
    {
      id: id('rs', 'Review snapshot ID.'),
      generatedAt: dateTime(),
      covers: object(
        {
          authorizationVersion: integer(),
          requirementsVersion: integer(),
          questionnaireResponseVersion: integer(),
          attachmentVersion: integer(),
        },
        {
          description:
            'The versions this snapshot covers; a snapshot not covering the current ones is stale.',
        },
      ),
      status: enumOf(REVIEW_SNAPSHOT_STATUSES, { description: 'Only a `current` snapshot can be approved.' }),
      kind: enumOf(['final_submission']),
      summary: openObject('Structured summary of what will be submitted.'),
      questionnaireResponse: ref('QuestionnaireResponse'),
      attachments: arrayOf(ref('Attachment')),
      warnings: arrayOf(string(), { description: 'To review before approval.' }),
      liveViewUrl: nullable(
        string({
          format: 'uri',
          description:
            'Present while a browser sign-in is active: for a `customer_login` case whose review was prepared ' +
            "while the customer's payer sign-in was held, the absolute URL of the authorization's " +
            '`GET …/live-session` read (side-effect free, it mints no capability; a read-only view needs a ' +
            'live-session access grant). Null for `automated` cases and once that sign-in has lapsed or the ' +
            'case is completed or canceled (decision 0046).',
        }),
      ),
    },
    { description: 'The final-submission review, when approval is required.' },
  ),
  PayerReceipt: object(
    {
      receivedAt: dateTime(),
      referenceNumber: nullable(string()),
      channel: string(),
      payerStatusText: string({ description: 'Raw payer-visible text.' }),
      details: receiptDetails,
    },
    { description: 'Evidence-backed proof that the payer received the submission.' },
  ),
  Decision: object(
    {
      receivedAt: dateTime(),
      authorizationNumber: nullable(string({ description: 'When approved or modified.' })),
      payerStatusText: string(),
      effectiveFrom: nullable(string({ description: 'Start of the approved window, when available.' })),
      effectiveTo: nullable(string({ description: 'End of the approved window, when available.' })),
      modifications: arrayOf(string()),
      denialReasons: arrayOf(string()),
      details: {
        ...openObject('Payer-specific details.'),
        properties: {
          letterFileId: string({
            description:
              'The decision letter the payer portal offered, kept as a file of purpose `payer_evidence` ' +
              '(`GET /v1/files/{fileId}`); absent when the portal offered none.',
          }),
        },
      },
    },
    { description: 'The terminal payer decision, when known.' },
  ),
  Attachment: object({
    id: id('att', 'Stable, scoped to the authorization.'),
    fileId: string(),
    createdAt: dateTime(),
    documentTypes: arrayOf(string(), { minItems: 1, description: 'Requirement types the file satisfies.' }),
    label: string({ description: 'The file name.' }),
    description: nullable(string()),
  }),
  NextAction: object(
    {
      id: id('act', 'Send it as `nextActionId` to confirm.'),
      type: enumOf(NEXT_ACTION_TYPES),
      description: string(),
      authorizationVersion: integer({
        description: 'The authorization version the action was created against.',
      }),
      requirementsVersion: integer(),
      createdAt: dateTime(),
      owner: enumOf(NEXT_ACTION_OWNERS),
      reviewSnapshotId: nullable(string({ description: 'Set for approve_submission.' })),
      expiresAt: nullable(dateTime('When the action is time-limited.')),
      resolution: object(
        { kind: enumOf(['manual_handoff']), reason: string() },
        { description: 'Present only on complete_payer_interaction.' },
      ),
    },
    { optional: ['resolution'] },
  ),
  File: object(
    {
      id: id('file', 'Stable file ID.'),
      status: enumOf(FILE_STATUSES, { description: 'Only `ready` files can be attached.' }),
      fileName: string(),
      contentType: enumOf(PAYER_EVIDENCE_CONTENT_TYPES, {
        description:
          '`text/html` only for purpose `payer_evidence` (a payer page, downloaded as an attachment).',
      }),
      purpose: enumOf(FILE_PURPOSES, {
        description:
          '`payer_evidence`: what a payer portal showed (confirmation page, decision letter, screenshots), ' +
          'created by the service, readable and downloadable like any ready file, never attachable.',
      }),
      sizeBytes: integer({ minimum: 1, maximum: MAX_FILE_SIZE_BYTES }),
      checksumSha256: nullable(string({ pattern: '^[0-9a-f]{64}$', description: 'Recorded at completion.' })),
      createdAt: dateTime(),
      completedAt: nullable(dateTime()),
      uploadUrl: nullable(
        string({
          format: 'uri',
          description: 'Signed upload URL (PUT the raw bytes, no API key); only in the answer to create.',
        }),
      ),
      uploadExpiresAt: dateTime('The upload URL is valid until then (15 minutes).'),
      downloadUrl: nullable(
        string({ format: 'uri', description: 'Short-lived (5 minutes); when reading one ready file.' }),
      ),
    },
    { description: 'An uploaded document. Every field is always present, `null` when it does not apply.' },
  ),
  FileList: list('File', 'A page of files, newest first.'),
  Pagination: object({
    nextCursor: nullable(
      string({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    ),
  }),
  ErrorEnvelope: errorEnvelope(string()),
  ValidationIssue: object({
    errorType: string({
      description:
        'missing, type_error, enum, pattern, too_long, too_short, unknown_field, out_of_range, value_error.',
    }),
    location: arrayOf(string(), {
      minItems: 1,
      description: 'Where: `["body", "templateSelection", "serviceCode"]`; array indexes are strings.',
    }),
    message: string(),
  }),
  HealthStatus: object({
    status: enumOf(['ok', 'degraded']),
    checks: object({ database: enumOf(['up', 'down']) }),
  }),
  Liveness: object({ status: enumOf(['ok']) }),
  Readiness: object({
    status: enumOf(['ready', 'not_ready']),
    checks: object({
      database: enumOf(['up', 'down']),
      migrations: enumOf(['current', 'pending', 'ahead', 'unknown'], {
        description:
          '`pending`: migrations of this release are not applied yet; `ahead`: the database was migrated by a newer release; `unknown`: the database cannot be asked.',
      }),
    }),
  }),
  BlobUploadResult: object({ sizeBytes: integer({ minimum: 0, description: 'Bytes stored.' }) }),

  CreateAuthorizationRequest: requestSchema(CreateAuthorizationRequest, AUTHORIZATION_REQUEST_COMPONENTS),
  LegacyCreateAuthorizationRequest: requestSchema(
    LegacyCreateAuthorizationRequest,
    AUTHORIZATION_REQUEST_COMPONENTS,
  ),
  PatchAnswersRequest: requestSchema(PatchAnswersRequest, AUTHORIZATION_REQUEST_COMPONENTS),
  ...requestComponentSchemas(AUTHORIZATION_REQUEST_COMPONENTS),
  AttachFileRequest: requestSchema(AttachFileRequest),
  ConfirmRequest: requestSchema(ConfirmRequest),
  CreateFileRequest: requestSchema(CreateFileRequest),
  ManualHandoff: object(
    {
      manualHandoffId: id('mh', 'Stable handoff ID.'),
      state: enumOf(MANUAL_HANDOFF_STATES, {
        description: 'offered → active (runtime session provisioned) → closing (claim reconciling) → closed.',
      }),
      result: nullable(enumOf(MANUAL_HANDOFF_RESULTS, { description: 'Set once the handoff is closed.' })),
      authorization: object(
        { id: string(), version: integer(), status: enumOf(AUTHORIZATION_STATUSES) },
        { description: 'The authorization as this operation left it.' },
      ),
      reconciliation: object(
        { id: id('rec', 'Reconciliation ID.'), state: enumOf(RECONCILIATION_STATES) },
        {
          description:
            'Present once the operator’s claim (or a possible submission) is being checked against the payer.',
        },
      ),
      version: integer({ minimum: 1, description: 'The handoff’s own version (its ETag).' }),
      createdAt: dateTime(),
      expiresAt: dateTime('The handoff expires then unless closed first (1 hour after creation).'),
      closedAt: nullable(dateTime()),
    },
    {
      optional: ['reconciliation'],
      description: 'A one-way human ownership episode for payer interaction work.',
    },
  ),
  ManualHandoffList: list('ManualHandoff', 'The authorization’s handoffs, newest first (always one page).'),
  ManualHandoffAccessGrant: object(
    {
      id: id('grant', 'Grant ID (appears in the audit log).'),
      url: string({
        format: 'uri',
        description:
          'Short-lived bearer capability: opening it (no API key) is validated and audited, then redirects to ' +
          'the operator’s runtime session. Not durable authorization truth.',
      }),
      expiresAt: dateTime('5 minutes after issue, never after the handoff expires.'),
    },
    { description: 'Interactive access to an active handoff’s runtime session.' },
  ),
  LiveSession: object(
    {
      authorization: object({ id: string(), version: integer(), status: enumOf(AUTHORIZATION_STATUSES) }),
      available: boolean({ description: 'Whether a live session can be viewed now.' }),
      status: nullable(enumOf(['starting', 'active'])),
      startedAt: nullable(dateTime()),
    },
    { description: 'The authorization’s live session, read without side effects (no capability minted).' },
  ),
  LiveSessionAccessGrant: object(
    {
      id: id('grant', 'Grant ID (appears in the audit log).'),
      url: string({
        format: 'uri',
        description: 'Short-lived bearer capability; opening it redirects to a read-only live view.',
      }),
      expiresAt: dateTime('5 minutes after issue.'),
      access: enumOf(['read_only'], { description: 'Never interactive: that needs a manual handoff.' }),
    },
    { description: 'Read-only access to the current live session.' },
  ),
  CompleteManualHandoffRequest: requestSchema(CompleteManualHandoffRequest),
  UnableToCompleteManualHandoffRequest: requestSchema(UnableToCompleteManualHandoffRequest),
  RevokeManualHandoffRequest: requestSchema(RevokeManualHandoffRequest),
  EmptyBody: object({}, { description: 'This operation takes no body; an empty object is accepted.' }),
  // The legacy workflow shape (docs/decisions/0029 and 0032).
  LegacyWorkflowAuthorization: object(
    {
      id: id('auth', 'Stable authorization ID.'),
      workflowState: enumOf(WORKFLOW_STATES, {
        description:
          'requires_input → needs_input, requires_confirmation → ready_to_submit, processing → submitting, ' +
          'waiting_on_payer → pending_payer, requires_action or an open payer request → action_required, ' +
          'completed, canceled → cancelled.',
      }),
      decisionState: enumOf(DECISION_STATES, {
        description:
          '`unknown` before a payer receipt and for a failed case, `pending` while waiting on the payer, ' +
          '`approved` (approved, modified, not_required) or `denied`.',
      }),
      createdAt: dateTime(),
      updatedAt: dateTime(),
      template: object(
        {
          id: string(),
          version: string(),
          sourceName: string({ description: 'The questionnaire template’s title.' }),
          effectiveDate: nullable(string({ description: 'Not kept by the catalog: always null.' })),
        },
        { description: 'The route’s questionnaire template pinned on the case.' },
      ),
      questionnaire: arrayOf(ref('LegacyQuestionnaireGroup')),
      requirements: object({
        questions: arrayOf(
          object(
            { linkId: string(), instance: INSTANCE, required: boolean(), answered: boolean() },
            { optional: ['instance'] },
          ),
          {
            description: 'Every enabled question.',
          },
        ),
        documents: arrayOf(
          object({
            key: string({ description: 'The document type.' }),
            label: string(),
            required: boolean({ description: 'Required given the current answers.' }),
            provided: boolean({ description: 'An attachment carries this document type.' }),
            message: string(),
          }),
        ),
        issues: arrayOf(
          object({
            code: string(),
            message: string(),
            field: string(),
            severity: enumOf(ISSUE_SEVERITIES),
            blocking: boolean({ description: 'True for severity error.' }),
          }),
        ),
      }),
      submissionChannel: nullable(
        enumOf(['efax'], { description: 'null for portal routes (every route today); efax is reserved.' }),
      ),
      answers: openObject(
        '`{linkId: value}`: the single answer value, or an array when several (a coding or quantity is an object).',
      ),
      attachments: arrayOf(
        object({
          id: id('att', 'Stable, scoped to the authorization.'),
          fileId: string(),
          label: string(),
          createdAt: dateTime(),
        }),
      ),
      actions: arrayOf(ref('ActionItem'), { description: 'The payer’s requests for more information.' }),
      previewFile: nullable(ref('File')),
      latestSubmissionAttempt: nullable(ref('SubmissionAttempt')),
    },
    {
      description:
        'The authorization (legacy workflow shape), answered by `PATCH …/{authorizationId}` and ' +
        '`POST …/actions/{actionId}/resolve` whatever the API version.',
    },
  ),
  ActionItem: object(
    {
      id: id('req', 'Stable, scoped to the authorization.'),
      type: enumOf(ACTION_ITEM_TYPES),
      status: enumOf(PAYER_REQUEST_STATUSES, { description: '`resolved` once the case moved on.' }),
      message: string({ description: 'What the payer asked for.' }),
      createdAt: dateTime(),
      requestedDocuments: arrayOf(string(), { description: 'The requested document types.' }),
      resolutionHint: string(),
      resolutionNote: nullable(string()),
      resolvedAt: nullable(dateTime()),
    },
    { description: 'A payer’s request for more information (sandbox scenario more_info).' },
  ),
  SubmissionAttempt: object(
    {
      id: id('sa', 'Stable, scoped to the authorization.'),
      authorizationId: id('auth', 'The authorization.'),
      status: enumOf(SUBMISSION_ATTEMPT_STATUSES, {
        description:
          '`pending` from the final submission boundary, `accepted` once the payer’s receipt is recorded, ' +
          '`confirmed` once its decision arrived, `failed` when the case failed first.',
      }),
      submissionReference: nullable(string({ description: 'The payer’s reference number.' })),
      acceptedAt: nullable(dateTime()),
      confirmedAt: nullable(dateTime()),
      errorCode: nullable(string()),
      errorMessage: nullable(string()),
    },
    { description: 'The latest pass of the case to the payer.' },
  ),
  ResolveActionRequest: requestSchema(ResolveActionRequest),
};

/** The spec's error envelope; each response narrows `error.code` to its own codes (`errorsOf`). */
function errorEnvelope(code: SchemaObject): SchemaObject {
  return object({
    error: object({
      code,
      message: string({ description: 'Human-readable; never contains PHI or secrets.' }),
      retryable: boolean({ description: 'Whether sending the same request later may succeed.' }),
      details: openObject(
        'Code-specific details, e.g. expectedVersion and actualVersion for version_conflict.',
      ),
      issues: arrayOf(ref('ValidationIssue'), { description: 'One entry per invalid field (422).' }),
    }),
    requestId: string({
      description: 'Also the Request-Id response header (of the original request on a replay).',
    }),
  });
}

/** An ErrorEnvelope whose `error.code` is one of `codes`. */
export const errorsOf = (codes: readonly ErrorCode[]): SchemaObject => ({
  allOf: [ref('ErrorEnvelope')],
  type: 'object',
  properties: { error: { type: 'object', properties: { code: enumOf(codes) } } },
});

// ---- parameters and headers ----------------------------------------------------------------------------

export const pathParameter = (name: string, description: string): oas31.ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: string(),
});

const idempotencyKey = (required: boolean): oas31.ParameterObject => ({
  name: 'Idempotency-Key',
  in: 'header',
  required,
  description:
    'Unique per request. The same key with the same request (body, path, If-Match) answers the stored result ' +
    'with `Idempotent-Replayed: true`; with another request → 409 idempotency_key_reused. Keys are scoped to ' +
    'the organization and environment and kept at least 24 hours.' +
    (required
      ? ' Missing → 422 at `["headers", "Idempotency-Key"]`.'
      : ' Optional here; honoured when sent.'),
  schema: string({
    minLength: 1,
    maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
  }),
});

/** `limit` or `cursor`, generated from the query class every list's query extends. */
function pageParameter(name: keyof PageQuery): oas31.ParameterObject {
  const found = queryParameters(PageQuery).find(
    (parameter) => (parameter as oas31.ParameterObject).name === name,
  );
  if (found === undefined) throw new Error(`PageQuery has no ${name}`);
  return found as oas31.ParameterObject;
}

export const parameters: Record<ParameterName, oas31.ParameterObject> = {
  AuthorizationId: pathParameter('authorizationId', 'The authorization ID (`auth_…`).'),
  AttachmentId: pathParameter('attachmentId', 'The attachment ID (`att_…`).'),
  ActionId: pathParameter('actionId', 'The action item ID (`req_…`) of the legacy workflow shape.'),
  PayerId: pathParameter('payerId', 'The canonical payer ID.'),
  FileId: pathParameter('fileId', 'The file ID (`file_…`).'),
  BlobToken: pathParameter('token', 'The signed, expiring capability from an upload or download URL.'),
  ManualHandoffId: pathParameter('manualHandoffId', 'The manual handoff ID (`mh_…`).'),
  WebhookEndpointId: pathParameter('webhookEndpointId', 'The webhook endpoint ID (`we_…`).'),
  WebhookDeliveryId: pathParameter('deliveryId', 'The delivery ID (`whdel_…`).'),
  GrantToken: pathParameter('token', 'The signed capability of an access-grant URL.'),
  SandboxSessionToken: pathParameter('token', 'The signed, expiring capability a grant redirected to.'),
  LiveViewToken: pathParameter('token', 'The signed capability a live-session grant redirected to.'),
  IdempotencyKeyRequired: idempotencyKey(true),
  IdempotencyKeyOptional: idempotencyKey(false),
  ApiVersion: {
    name: API_VERSION_HEADER,
    in: 'header',
    required: false,
    description:
      `The API version of this request; default: the version pinned on the API key, else ${CURRENT_API_VERSION}. ` +
      `Unknown → 422 at \`["headers", "${API_VERSION_HEADER}"]\`.`,
    schema: enumOf(API_VERSIONS),
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: true,
    description:
      'The current version as a quoted decimal, e.g. `"3"` (the ETag). Missing → 428 precondition_required; ' +
      'malformed → 400 bad_request; stale → 409 version_conflict.',
    schema: string({ pattern: '^"(0|[1-9][0-9]*)"$' }),
  },
  IfMatchOptional: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Optional on the legacy workflow endpoints (decision 0032); when sent, the current version as a quoted ' +
      'decimal: malformed → 400 bad_request, stale → 409 version_conflict.',
    schema: string({ pattern: '^"(0|[1-9][0-9]*)"$' }),
  },
  Limit: pageParameter('limit'),
  Cursor: pageParameter('cursor'),
};

export const headers: Record<HeaderName, oas31.HeaderObject> = {
  ApiVersion: {
    description: 'The API version this response was answered in (for a replay: the original request’s).',
    required: true,
    schema: enumOf(API_VERSIONS),
  },
  RequestId: {
    description:
      "Identifies this request in logs and support requests: `req_…`, or the request's own `X-Request-Id` when that is 8 to 128 letters, digits and `._:-`.",
    required: true,
    schema: string({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' }),
  },
  ETag: {
    description: 'The authorization version as a strong entity tag; send it as If-Match.',
    required: true,
    schema: string({ pattern: '^"[0-9]+"$' }),
  },
  HandoffETag: {
    description: 'The manual handoff’s version as a strong entity tag; send it as If-Match on its commands.',
    required: true,
    schema: string({ pattern: '^"[0-9]+"$' }),
  },
  Location: { description: 'The URL of the created resource.', required: true, schema: string() },
  IdempotentReplayed: {
    description: 'Present (`true`) when this is the stored answer of an earlier request with the same key.',
    schema: enumOf(['true']),
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: string({ pattern: '^[0-9]+$' }) },
  WWWAuthenticate: { description: 'The authentication scheme.', schema: enumOf(['Bearer']) },
  RateLimitLimit: {
    description:
      'The API key’s budget in requests per second (a burst above it is allowed; decision 0035). Present on ' +
      'every answer to a request with a valid key.',
    schema: string({ pattern: '^[0-9]+$' }),
  },
  RateLimitRemaining: {
    description:
      'Requests left in the current one-second window (0 while the key spends its burst allowance).',
    schema: string({ pattern: '^[0-9]+$' }),
  },
  RateLimitReset: {
    description: 'Seconds until the current window ends and the budget is renewed.',
    schema: string({ pattern: '^[0-9]+$' }),
  },
};
