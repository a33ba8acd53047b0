import {
  ALLOWED_FILE_CONTENT_TYPES,
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
  MAX_ID_LENGTH,
  MAX_GROUP_INSTANCES,
  MAX_SERVICE_CODE_LENGTH,
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
import { LIVE_INPUT_KEYS } from '@prior-auth/payer-portal';
import { LEGACY_STATUSES } from '@prior-auth/presentation';
import {
  ACTION_ITEM_TYPES,
  DECISION_STATES,
  WORKFLOW_STATES,
} from '../authorization/legacy/legacy-workflow.presenter';
import { MAX_PAYER_SEARCH_LENGTH } from '../catalog/catalog.request';
import { MAX_LIVE_INPUT_TEXT_LENGTH } from '../live-view/live-view.routes';
import { DOMAIN_ERROR_HTTP_STATUS } from '../http/error-mapping';
import { DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT } from '../http/pagination';
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../http/preconditions';
import {
  CreateWebhookEndpointRequest,
  SUBSCRIBABLE_EVENTS,
  UpdateWebhookEndpointRequest,
} from '../webhooks/webhook-endpoint.request';
import { requestComponentSchemas, requestSchema, type RequestClass } from './request-schema';
import { AttachFileRequest, ConfirmRequest } from '../authorization/authorization.request';
import { ResolveActionRequest } from '../authorization/legacy/legacy-workflow.request';
import { CreateFileRequest } from '../files/file.request';
import {
  CompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
} from '../manual-handoff/manual-handoff.request';
import { ERROR_DESCRIPTIONS, ERROR_HTTP_STATUS, type ErrorCode } from './error-catalog';
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
 * The OpenAPI 3.1 description of every endpoint the API serves. Schemas are built from the builders in
 * `schema-builders.ts` and from the same constants the request DTOs and the domain use; error responses are
 * generated from the code lists below and the status tables in `error-catalog.ts`. The API tests validate every
 * response they receive against this document (test/contract), so it cannot drift from the implementation.
 */

export type OpenApiDocument = oas31.OpenAPIObject;

// ---- component names -----------------------------------------------------------------------------------

type SchemaName =
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

type ParameterName =
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

type HeaderName =
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

const ref = (name: SchemaName): Schema => ({ $ref: `#/components/schemas/${name}` });
const param = (name: ParameterName): oas31.ReferenceObject => ({ $ref: `#/components/parameters/${name}` });
const header = (name: HeaderName): oas31.ReferenceObject => ({ $ref: `#/components/headers/${name}` });

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

const schemas: Record<SchemaName, SchemaObject> = {
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
      liveViewUrl: nullable(string({ description: 'Present while a browser sign-in is active.' })),
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
  // The legacy workflow shape (shared decision 0029, decision 0032).
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
const errorsOf = (codes: readonly ErrorCode[]): SchemaObject => ({
  allOf: [ref('ErrorEnvelope')],
  type: 'object',
  properties: { error: { type: 'object', properties: { code: enumOf(codes) } } },
});

// ---- parameters and headers ----------------------------------------------------------------------------

const pathParameter = (name: string, description: string): oas31.ParameterObject => ({
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

const parameters: Record<ParameterName, oas31.ParameterObject> = {
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
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Page size, 1 to ${MAX_LIMIT}.`,
    schema: integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      '`pagination.nextCursor` of the previous page; opaque and bound to the organization, environment and filters.',
    schema: string({ maxLength: MAX_CURSOR_LENGTH }),
  },
};

const queryParameter = (name: string, schema: Schema, description: string): oas31.ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const headers: Record<HeaderName, oas31.HeaderObject> = {
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

// ---- responses -----------------------------------------------------------------------------------------

type Response = oas31.ResponseObject;
type Headers = Record<string, oas31.ReferenceObject | oas31.HeaderObject>;

const JSON_MEDIA_TYPE = 'application/json';

const jsonResponse = (description: string, schema: Schema, extraHeaders: Headers = {}): Response => ({
  description,
  headers: { 'Request-Id': header('RequestId'), ...extraHeaders },
  content: { [JSON_MEDIA_TYPE]: { schema } },
});

const codeList = (codes: readonly ErrorCode[]) =>
  codes.map((code) => `- \`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join('\n');

/** One response per status, the envelope's `code` restricted to the codes listed for it. */
function errorResponses(
  codes: readonly ErrorCode[],
  options: { command: boolean },
): Record<string, Response> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Response> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const extra: Headers = {};
    if (status === 401) extra['WWW-Authenticate'] = header('WWWAuthenticate');
    if (
      group.includes('service_unavailable') ||
      group.includes('idempotency_key_in_use') ||
      group.includes('rate_limited')
    )
      extra['Retry-After'] = header('RetryAfter');
    // Domain refusals of a command are stored with its key and replayed like its success (not the rest).
    if (options.command && group.some((code) => Object.hasOwn(DOMAIN_ERROR_HTTP_STATUS, code)))
      extra['Idempotent-Replayed'] = header('IdempotentReplayed');
    responses[String(status)] = jsonResponse(codeList(group), errorsOf(group), extra);
  }
  return responses;
}

// ---- operations ----------------------------------------------------------------------------------------

type Access = 'api_key' | 'public' | 'capability';

interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  parameters?: Array<oas31.ParameterObject | oas31.ReferenceObject>;
  requestBody?: oas31.RequestBodyObject;
  responses: Record<string, Response>;
  /** The operation's own error codes; those every request can meet are added from `access`. */
  errors: readonly ErrorCode[];
  access: Access;
  /** A command whose answer is stored under its Idempotency-Key. */
  command?: boolean;
}

/**
 * Errors any request can meet, by how the route is mounted (see `app.ts`). Before routing, a path value that
 * is not valid UTF-8 or holds control characters (`%00`) is a `not_found`, such a query parameter a
 * `request_validation_failed`; under `/v1`, so is a body with prototype keys or nested too deep.
 */
const COMMON_ERRORS: Record<Access, readonly ErrorCode[]> = {
  // Behind the JSON body checks and the API-key lookup (which reads the database).
  api_key: [
    'bad_request',
    'unauthorized',
    'not_found',
    'payload_too_large',
    'request_validation_failed',
    'internal_error',
    'service_unavailable',
    // The key's budget, or the address's limit on requests without a valid key (decision 0035).
    'rate_limited',
  ],
  // Behind the JSON body checks, no key.
  public: ['bad_request', 'not_found', 'payload_too_large', 'request_validation_failed', 'internal_error'],
  // Blob routes: mounted before the body checks; the token is the credential.
  capability: ['not_found', 'request_validation_failed', 'internal_error'],
};

/**
 * Every `/v1` operation takes the version header and answers it (decision 0029), errors included, and names
 * the key's rate-limit budget (decision 0035) once the key is known.
 */
const withApiVersion = (responses: Record<string, Response>): Record<string, Response> =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: {
          ...response.headers,
          [API_VERSION_HEADER]: header('ApiVersion'),
          'RateLimit-Limit': header('RateLimitLimit'),
          'RateLimit-Remaining': header('RateLimitRemaining'),
          'RateLimit-Reset': header('RateLimitReset'),
        },
      },
    ]),
  );

function operation(spec: OperationSpec): oas31.OperationObject {
  const versioned = spec.access === 'api_key';
  const parameters = [...(versioned ? [param('ApiVersion')] : []), ...(spec.parameters ?? [])];
  const responses = {
    ...spec.responses,
    ...errorResponses([...spec.errors, ...COMMON_ERRORS[spec.access]], { command: spec.command ?? false }),
  };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(versioned ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: versioned ? withApiVersion(responses) : responses,
  };
}

/**
 * Working examples (tested against the API in test/openapi.api.spec.ts): a sandbox case for the demo NPI of
 * `pnpm start` on the CPAP route, and the answers that leave only its documents outstanding.
 */
export const CREATE_AUTHORIZATION_EXAMPLE = {
  providerNpi: '1234567893',
  policy: { finalSubmission: 'automatic' },
  templateSelection: {
    payerId: 'payer_uhc',
    insuranceState: 'CA',
    serviceType: 'outpatient',
    serviceCode: 'E0601',
    serviceCodeSystem: 'hcpcs',
  },
};

export const PATCH_ANSWERS_EXAMPLE = {
  questionnaireResponse: {
    item: [
      { linkId: 'patient.memberId', answer: [{ valueString: 'SBX-APPROVED' }] },
      { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
      { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
      { linkId: 'patient.birthDate', answer: [{ valueDate: '1980-12-10' }] },
      { linkId: 'request.diagnosisCode', answer: [{ valueString: 'G47.33' }] },
      { linkId: 'clinical.sleepStudyType', answer: [{ valueCoding: { code: 'psg' } }] },
      { linkId: 'clinical.sleepStudyDate', answer: [{ valueDate: '2026-01-10' }] },
      { linkId: 'clinical.apneaHypopneaIndex', answer: [{ valueDecimal: 22 }] },
      { linkId: 'clinical.faceToFaceDate', answer: [{ valueDate: '2026-01-15' }] },
      { linkId: 'clinical.priorPapUse', answer: [{ valueBoolean: false }] },
    ],
  },
};

const patchAnswersBody = (): oas31.RequestBodyObject => ({
  required: true,
  description:
    'One item per question answered, by `linkId` (and `instance` inside a repeating group); each answer is one ' +
    'FHIR value (`valueString`, `valueDate`, `valueDecimal`, `valueInteger`, `valueBoolean` or `valueCoding`) ' +
    'as the question’s type asks.',
  content: {
    [JSON_MEDIA_TYPE]: {
      schema: ref('PatchAnswersRequest'),
      examples: {
        cpapAnswers: {
          summary: 'Every question of the sandbox CPAP route (E0601) answered',
          value: PATCH_ANSWERS_EXAMPLE,
        },
      },
    },
  },
});

const jsonBody = (schema: SchemaName, required: boolean, description?: string): oas31.RequestBodyObject => ({
  required,
  ...(description ? { description } : {}),
  content: { [JSON_MEDIA_TYPE]: { schema: ref(schema) } },
});

/** An authorization in the request's API version: one document for both (docs/decisions). */
const AUTHORIZATION_BY_VERSION: SchemaObject = {
  oneOf: [ref('Authorization'), ref('LegacyAuthorization')],
  description: `\`Authorization\` under ${CURRENT_API_VERSION}, \`LegacyAuthorization\` under ${LEGACY_API_VERSION}.`,
};

const AUTHORIZATION_FAMILIES = {
  primary: '/v1/prior-auth/authorizations',
  alternate: '/v1/prior-authorizations',
} as const;

const AUTHORIZATION_LOCATION = `^(${Object.values(AUTHORIZATION_FAMILIES).join('|')})/auth_[A-Za-z0-9]+$`;

const COMMAND_CONFLICTS: readonly ErrorCode[] = ['idempotency_key_reused', 'idempotency_key_in_use'];

/** The authorization operations; `family` is the path prefix, `suffix` keeps operationIds unique. */
function authorizationPaths(family: string, suffix: string, tag: string): oas31.PathsObject {
  const one = `${family}/{authorizationId}`;
  const authorization = (description: string, extra: Headers = {}) =>
    jsonResponse(description, AUTHORIZATION_BY_VERSION, { ETag: header('ETag'), ...extra });
  const command = (description: string) =>
    authorization(description, { 'Idempotent-Replayed': header('IdempotentReplayed') });
  const precondition: ErrorCode[] = [
    'precondition_required',
    'request_validation_failed',
    'version_conflict',
  ];
  const base = { tag, access: 'api_key' as const };
  const op = (spec: Omit<OperationSpec, 'tag' | 'access'>) =>
    operation({ ...base, ...spec, operationId: `${spec.operationId}${suffix}` });
  /** A command on one authorization under If-Match: its own errors among those every such command can meet. */
  const mutation = (
    idempotencyKey: 'IdempotencyKeyOptional' | 'IdempotencyKeyRequired',
    spec: Omit<OperationSpec, 'tag' | 'access' | 'parameters' | 'command'>,
  ) =>
    op({
      ...spec,
      parameters: [param('IfMatch'), param(idempotencyKey)],
      command: true,
      errors: [
        ...precondition,
        'authorization_not_found',
        ...spec.errors,
        'template_invalid',
        ...COMMAND_CONFLICTS,
      ],
    });

  const workflow = (description: string) =>
    jsonResponse(description, ref('LegacyWorkflowAuthorization'), {
      ETag: header('ETag'),
      'Idempotent-Replayed': header('IdempotentReplayed'),
    });
  /** The legacy-only commands (decision 0032): If-Match and Idempotency-Key optional, checked when sent. */
  const legacyWorkflowCommand = (spec: Omit<OperationSpec, 'tag' | 'access' | 'parameters' | 'command'>) =>
    op({
      ...spec,
      parameters: [param('IfMatchOptional'), param('IdempotencyKeyOptional')],
      command: true,
      errors: [
        'request_validation_failed',
        'version_conflict',
        'authorization_not_found',
        ...spec.errors,
        'template_invalid',
        ...COMMAND_CONFLICTS,
      ],
    });

  return {
    [family]: {
      post: op({
        operationId: 'createAuthorization',
        summary: 'Create an authorization',
        description:
          'Creates the case at version 1 with the route’s questionnaire and requirements; submits nothing to ' +
          'the payer. `Location` names the path family the request used (a replay answers the stored ' +
          '`Location`, of the family the original request used).',
        parameters: [param('IdempotencyKeyRequired')],
        requestBody: {
          required: true,
          description: `The body of the request's API version; under ${LEGACY_API_VERSION} Idempotency-Key is optional.`,
          content: {
            [JSON_MEDIA_TYPE]: {
              schema: { anyOf: [ref('CreateAuthorizationRequest'), ref('LegacyCreateAuthorizationRequest')] },
              examples: {
                sandboxCpap: {
                  summary: 'A sandbox CPAP case (E0601, UnitedHealthcare, California)',
                  value: CREATE_AUTHORIZATION_EXAMPLE,
                },
              },
            },
          },
        },
        command: true,
        responses: {
          201: authorization('The created authorization.', {
            Location: { ...headers.Location, schema: string({ pattern: AUTHORIZATION_LOCATION }) },
            'Idempotent-Replayed': header('IdempotentReplayed'),
          }),
        },
        errors: [
          'final_submission_policy_required',
          'provider_not_found',
          'payer_not_found',
          'unsupported_template_selection',
          'portal_auth_mode_unsupported',
          'request_validation_failed',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
      get: op({
        operationId: 'listAuthorizations',
        summary: 'List authorizations',
        description: 'Newest first, keyset-paginated.',
        parameters: [
          queryParameter('status', enumOf(AUTHORIZATION_STATUSES), 'Only authorizations in this status.'),
          queryParameter(
            'overdue',
            enumOf(['true', 'false']),
            '`true`: only cases still `waiting_on_payer` past `submission.decisionDueAt`.',
          ),
          param('Limit'),
          param('Cursor'),
        ],
        responses: {
          200: jsonResponse('A page of authorizations.', {
            // anyOf: an empty page is both.
            anyOf: [ref('AuthorizationList'), ref('LegacyAuthorizationList')],
            description: `The shape of the request's API version (\`LegacyAuthorizationList\` under ${LEGACY_API_VERSION}).`,
          }),
        },
        errors: ['request_validation_failed', 'template_invalid'],
      }),
    },
    [one]: {
      parameters: [param('AuthorizationId')],
      get: op({
        operationId: 'getAuthorization',
        summary: 'Retrieve an authorization',
        description: 'The returned version (also the ETag) is the value to send in If-Match.',
        responses: { 200: authorization('The authorization.') },
        errors: ['authorization_not_found', 'template_invalid'],
      }),
      patch: legacyWorkflowCommand({
        operationId: 'updateAuthorizationLegacy',
        summary: 'Update answers (legacy)',
        description:
          'Merges answers like `PATCH …/answers` and answers the legacy workflow shape whatever the API version.',
        requestBody: patchAnswersBody(),
        responses: { 200: workflow('The updated authorization (legacy workflow shape).') },
        errors: ['authorization_not_mutable'],
      }),
    },
    [`${one}/answers`]: {
      parameters: [param('AuthorizationId')],
      patch: mutation('IdempotencyKeyOptional', {
        operationId: 'patchAuthorizationAnswers',
        summary: 'Patch answers',
        description:
          'Merges by linkId (and `instance` for a question inside a repeating group): each item sent replaces ' +
          'that item’s answers, an empty `answer` clears it, items not sent are kept. Requirements are ' +
          'recomputed; a value the question refuses is a requirement issue.',
        requestBody: patchAnswersBody(),
        responses: { 200: command('The updated authorization.') },
        errors: ['authorization_not_mutable'],
      }),
    },
    [`${one}/attachments`]: {
      parameters: [param('AuthorizationId')],
      post: mutation('IdempotencyKeyRequired', {
        operationId: 'attachAuthorizationFile',
        summary: 'Attach a file',
        description:
          'Links a ready file (purpose authorization_attachment). When all blockers clear, the status becomes ' +
          'requires_confirmation with nextAction.type advance_case.',
        requestBody: jsonBody('AttachFileRequest', true),
        responses: { 200: command('The updated authorization.') },
        errors: ['authorization_not_mutable', 'file_not_found', 'file_not_ready', 'file_content_mismatch'],
      }),
    },
    [`${one}/attachments/{attachmentId}`]: {
      parameters: [param('AuthorizationId'), param('AttachmentId')],
      delete: mutation('IdempotencyKeyOptional', {
        operationId: 'deleteAuthorizationAttachment',
        summary: 'Delete an attachment',
        description: 'Unlinks the attachment (the file stays); requirements are recomputed.',
        requestBody: jsonBody('EmptyBody', false),
        responses: { 200: command('The updated authorization.') },
        errors: ['authorization_not_mutable', 'attachment_not_found'],
      }),
    },
    [`${one}/confirm`]: {
      parameters: [param('AuthorizationId')],
      post: mutation('IdempotencyKeyRequired', {
        operationId: 'confirmAuthorization',
        summary: 'Confirm the next action',
        description:
          'advance_case moves the case to processing; approve_submission approves the current review snapshot ' +
          'and crosses the final submission boundary, irreversibly. Checks in order: version_conflict, ' +
          'next_action_required, status (next_action_not_confirmable / authorization_not_confirmable), the ' +
          'action id (review_stale / next_action_mismatch), requirements_not_satisfied, review_stale.',
        requestBody: jsonBody('ConfirmRequest', false),
        responses: { 200: command('The confirmed authorization.') },
        errors: [
          'next_action_required',
          'authorization_not_confirmable',
          'next_action_not_confirmable',
          'next_action_mismatch',
          'review_stale',
          'requirements_not_satisfied',
        ],
      }),
    },
    [`${one}/cancel`]: {
      parameters: [param('AuthorizationId')],
      post: mutation('IdempotencyKeyRequired', {
        operationId: 'cancelAuthorization',
        summary: 'Cancel an authorization',
        description:
          'Stops future processing and rejects later writes; does not reverse a submission the payer already ' +
          'received (payerReceipt and decision are kept). Not allowed from completed or canceled.',
        requestBody: jsonBody('EmptyBody', false),
        responses: { 200: command('The canceled authorization.') },
        errors: ['authorization_not_cancelable'],
      }),
    },
    [`${one}/actions/{actionId}/resolve`]: {
      parameters: [param('AuthorizationId'), param('ActionId')],
      post: legacyWorkflowCommand({
        operationId: 'resolveAuthorizationAction',
        summary: 'Resolve an action item (legacy)',
        description:
          'Answers the payer’s request with attachments already on the case and moves the case on as a ' +
          'confirm of its current action would. Answers the legacy workflow shape whatever the API version.',
        requestBody: jsonBody('ResolveActionRequest', true),
        responses: { 200: workflow('The authorization (legacy workflow shape).') },
        errors: [
          'action_not_found',
          'action_not_open',
          'attachment_not_found',
          'requirements_not_satisfied',
          'authorization_not_confirmable',
          'next_action_not_confirmable',
        ],
      }),
    },
  };
}

/** Manual handoffs and the live session of one authorization (decision 0014), under each path family. */
function manualHandoffPaths(family: string, suffix: string, tag: string): oas31.PathsObject {
  const handoffs = `${family}/{authorizationId}/manual-handoffs`;
  const one = `${handoffs}/{manualHandoffId}`;
  const handoff = (description: string, extra: Headers = {}) =>
    jsonResponse(description, ref('ManualHandoff'), { ETag: header('HandoffETag'), ...extra });
  const replayable = { 'Idempotent-Replayed': header('IdempotentReplayed') };
  const base = { tag, access: 'api_key' as const };
  const op = (spec: Omit<OperationSpec, 'tag' | 'access'>) =>
    operation({ ...base, ...spec, operationId: `${spec.operationId}${suffix}` });
  const handoffCommand = (
    operationId: string,
    summary: string,
    description: string,
    body: SchemaName,
  ): oas31.PathItemObject => ({
    parameters: [param('AuthorizationId'), param('ManualHandoffId')],
    post: op({
      operationId,
      summary,
      description,
      parameters: [param('IfMatch'), param('IdempotencyKeyRequired')],
      requestBody: jsonBody(body, true),
      command: true,
      responses: { 200: handoff('The handoff and the authorization as the command left them.', replayable) },
      errors: [
        'precondition_required',
        'request_validation_failed',
        'version_conflict',
        'authorization_not_found',
        'manual_handoff_not_found',
        'manual_handoff_invalid_state',
        'template_invalid',
        ...COMMAND_CONFLICTS,
      ],
    }),
  });

  return {
    [handoffs]: {
      parameters: [param('AuthorizationId')],
      post: op({
        operationId: 'createManualHandoff',
        summary: 'Create a manual handoff',
        description:
          'Hands the open payer interaction to a human. Allowed only while `nextAction.type` is ' +
          '`complete_payer_interaction` with `resolution.kind = manual_handoff`, and once per interaction ' +
          '(`details.manualHandoffId` names the open one). If-Match is the **authorization’s** version; the ' +
          'answer’s ETag is the handoff’s. The handoff is `active` at once: its runtime session is provisioned ' +
          'in the same transaction. From then on automation never resumes for that interaction.',
        parameters: [param('IfMatch'), param('IdempotencyKeyRequired')],
        requestBody: jsonBody('EmptyBody', false),
        command: true,
        responses: {
          201: handoff('The active handoff.', {
            Location: {
              ...headers.Location,
              schema: string({ pattern: '/manual-handoffs/mh_[A-Za-z0-9]+$' }),
            },
            ...replayable,
          }),
        },
        errors: [
          'precondition_required',
          'request_validation_failed',
          'version_conflict',
          'authorization_not_found',
          'manual_handoff_not_allowed',
          'auth_provider_unavailable',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
      get: op({
        operationId: 'listManualHandoffs',
        summary: 'List an authorization’s manual handoffs',
        responses: { 200: jsonResponse('The handoffs, newest first.', ref('ManualHandoffList')) },
        errors: ['authorization_not_found', 'request_validation_failed', 'template_invalid'],
      }),
    },
    [one]: {
      parameters: [param('AuthorizationId'), param('ManualHandoffId')],
      get: op({
        operationId: 'getManualHandoff',
        summary: 'Retrieve a manual handoff',
        responses: { 200: handoff('The handoff.') },
        errors: ['authorization_not_found', 'manual_handoff_not_found', 'template_invalid'],
      }),
    },
    [`${one}/complete`]: handoffCommand(
      'completeManualHandoff',
      'Complete a manual handoff',
      'Records the operator’s claim; the handoff moves to `closing` with reconciliation `pending` and the ' +
        'authorization returns to `processing`. The worker then looks the reported submission up at the payer: ' +
        'found → receipt, `waiting_on_payer`; not found → back to `requires_action`. Never sets ' +
        '`waiting_on_payer` or `completed` directly. Revokes the handoff’s grants.',
      'CompleteManualHandoffRequest',
    ),
    [`${one}/unable-to-complete`]: handoffCommand(
      'unableToCompleteManualHandoff',
      'Report a manual handoff as not completed',
      'Closes the handoff (`unable_to_complete`) and returns the authorization to `processing`; the pipeline ' +
        'checks the payer first and opens a new interaction if a human is still needed. Revokes the grants.',
      'UnableToCompleteManualHandoffRequest',
    ),
    [`${one}/revoke`]: handoffCommand(
      'revokeManualHandoff',
      'Revoke a manual handoff',
      'Closes the handoff (`revoked`) and revokes its grants at once; the authorization stays in ' +
        '`requires_action`. If the operator could have submitted, reconciliation runs before any payer truth ' +
        'is projected.',
      'RevokeManualHandoffRequest',
    ),
    [`${one}/access-grants`]: {
      parameters: [param('AuthorizationId'), param('ManualHandoffId')],
      post: op({
        operationId: 'createManualHandoffAccessGrant',
        summary: 'Create an interactive access grant',
        description: 'Requires the handoff to be `active`. No If-Match.',
        parameters: [param('IdempotencyKeyRequired')],
        requestBody: jsonBody('EmptyBody', false),
        command: true,
        responses: {
          201: jsonResponse('The grant.', ref('ManualHandoffAccessGrant'), replayable),
        },
        errors: [
          'request_validation_failed',
          'authorization_not_found',
          'manual_handoff_not_found',
          'manual_handoff_invalid_state',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
    [`${family}/{authorizationId}/live-session`]: {
      parameters: [param('AuthorizationId')],
      get: op({
        operationId: 'getLiveSession',
        summary: 'Read the live session',
        description: 'Side-effect free; mints no capability.',
        responses: { 200: jsonResponse('The live session, if any.', ref('LiveSession')) },
        errors: ['authorization_not_found', 'request_validation_failed', 'template_invalid'],
      }),
    },
    [`${family}/{authorizationId}/live-session/access-grants`]: {
      parameters: [param('AuthorizationId')],
      post: op({
        operationId: 'createLiveSessionAccessGrant',
        summary: 'Create a read-only live-session grant',
        description: 'A short-lived, read-only view of the current live session; never interactive.',
        parameters: [param('IdempotencyKeyRequired')],
        requestBody: jsonBody('EmptyBody', false),
        command: true,
        responses: { 201: jsonResponse('The grant.', ref('LiveSessionAccessGrant'), replayable) },
        errors: [
          'request_validation_failed',
          'authorization_not_found',
          'live_session_not_available',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
  };
}

const TAGS = {
  health: 'Health',
  catalog: 'Catalog',
  authorizations: 'Authorizations',
  authorizationsAlt: 'Authorizations (/v1/prior-authorizations)',
  handoffs: 'Manual handoffs',
  handoffsAlt: 'Manual handoffs (/v1/prior-authorizations)',
  grants: 'Access grants',
  files: 'Files',
  blobs: 'File bytes',
  docs: 'Documentation',
  events: 'Events',
  webhooks: 'Webhook endpoints',
} as const;

const documentResponse = (description: string) =>
  jsonResponse(description, {
    type: 'object',
    description: 'An OpenAPI 3.1 document (this one).',
    properties: {
      openapi: string({ pattern: '^3\\.1\\.' }),
      info: openObject('Title, version and description.'),
      paths: openObject('The operations.'),
    },
    required: ['openapi', 'info', 'paths'],
    additionalProperties: true,
  });

/**
 * The blob paths exist only with the filesystem file store; with S3 every method on them answers 404
 * not_found. The extension tells readers (and the contract tests) so.
 */
const SERVED_WITH_FILESYSTEM_STORAGE = {
  'x-served-only-with': 'BLOB_STORAGE_URL=file://… (otherwise every method answers 404 not_found)',
} as const;

// ---- webhook endpoints (docs/decisions/0031-events-and-webhooks.md) --------------------------------------

/** An operation of `/v1/webhook-endpoints…`: API-key access under the webhooks tag. */
type WebhookOperationSpec = Omit<OperationSpec, 'tag' | 'access'> & {
  /** A POST that takes no body (`{}` or nothing), as the actions on an endpoint do. */
  emptyBody?: boolean;
};

const webhookOperation = ({ emptyBody = false, ...spec }: WebhookOperationSpec): oas31.OperationObject =>
  operation({
    ...spec,
    tag: TAGS.webhooks,
    access: 'api_key',
    ...(emptyBody ? { requestBody: jsonBody('EmptyBody', false) } : {}),
    errors: [...(emptyBody ? (['request_validation_failed'] as const) : []), ...spec.errors],
  });

const ifMatchOptional: oas31.ParameterObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The endpoint’s version as a quoted decimal (its ETag); stale → 409 version_conflict.',
  schema: string({ pattern: '^"(0|[1-9][0-9]*)"$' }),
};

const ENDPOINT = '/v1/webhook-endpoints';
const ONE_ENDPOINT = `${ENDPOINT}/{webhookEndpointId}`;

/** The paths under one endpoint: each takes its ID, and an unknown one is 404 webhook_endpoint_not_found. */
const onEndpoint = (
  operations: Partial<Record<'get' | 'post' | 'patch' | 'delete', WebhookOperationSpec>>,
  extraParameters: oas31.ReferenceObject[] = [],
): oas31.PathItemObject => ({
  parameters: [param('WebhookEndpointId'), ...extraParameters],
  ...Object.fromEntries(
    Object.entries(operations).map(([method, spec]) => [
      method,
      webhookOperation({ ...spec, errors: ['webhook_endpoint_not_found', ...spec.errors] }),
    ]),
  ),
});

function webhookEndpointPaths(): Record<string, oas31.PathItemObject> {
  const withEtag = (description: string, schema: SchemaName) =>
    jsonResponse(description, ref(schema), { ETag: header('ETag') });
  return {
    [ENDPOINT]: {
      post: webhookOperation({
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description:
          'Answers the endpoint with its signing `secret`, shown only here. No Idempotency-Key: a stored ' +
          'replay would keep the secret in clear.',
        requestBody: jsonBody('CreateWebhookEndpointRequest', true),
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
      }),
      get: webhookOperation({
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: 'Newest first, keyset-paginated; secrets are never listed.',
        parameters: [param('Limit'), param('Cursor')],
        responses: { 200: jsonResponse('A page of webhook endpoints.', ref('WebhookEndpointList')) },
        errors: ['request_validation_failed'],
      }),
    },
    [ONE_ENDPOINT]: onEndpoint({
      get: {
        operationId: 'getWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint',
        responses: { 200: withEtag('The endpoint.', 'WebhookEndpoint') },
        errors: [],
      },
      patch: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint',
        description:
          'Changes `url`, `enabledEvents`, `disabled`, `description` or `apiVersion`; If-Match is checked ' +
          'when sent.',
        parameters: [ifMatchOptional],
        requestBody: jsonBody('UpdateWebhookEndpointRequest', true),
        responses: { 200: withEtag('The changed endpoint.', 'WebhookEndpoint') },
        errors: [
          'request_validation_failed',
          'bad_request',
          'webhook_url_not_allowed',
          'webhook_endpoint_invalid',
          'version_conflict',
        ],
      },
      delete: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        responses: {
          204: {
            description: 'Deleted; nothing more is sent to it.',
            headers: { 'Request-Id': header('RequestId') },
          },
        },
        errors: [],
      },
    }),
    [`${ONE_ENDPOINT}/rotate-secret`]: onEndpoint({
      post: {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret',
        description:
          'Answers a new secret, shown only here. For 24 hours deliveries are signed with both the new and ' +
          'the previous secret (two `v1,` signatures), so receivers can switch without missing an event.',
        emptyBody: true,
        responses: { 200: withEtag('The endpoint and its new secret.', 'WebhookEndpointWithSecret') },
        errors: [],
      },
    }),
    [`${ONE_ENDPOINT}/test`]: onEndpoint({
      post: {
        operationId: 'sendWebhookTestEvent',
        summary: 'Send a test event (sandbox)',
        description:
          'Records a `webhook_endpoint.test` event delivered to this endpoint only, whatever it enabled. ' +
          'Sandbox keys only: a production key gets 404 not_found.',
        emptyBody: true,
        responses: { 202: jsonResponse('The test event, being delivered.', ref('Event')) },
        errors: ['not_found'],
      },
    }),
    [`${ONE_ENDPOINT}/deliveries`]: onEndpoint({
      get: {
        operationId: 'listWebhookDeliveries',
        summary: 'List an endpoint’s deliveries',
        description: 'Newest first, keyset-paginated, each with its attempts.',
        parameters: [param('Limit'), param('Cursor')],
        responses: { 200: jsonResponse('A page of deliveries.', ref('WebhookDeliveryList')) },
        errors: ['request_validation_failed'],
      },
    }),
    [`${ONE_ENDPOINT}/deliveries/{deliveryId}/retry`]: onEndpoint(
      {
        post: {
          operationId: 'retryWebhookDelivery',
          summary: 'Send a delivery again',
          description:
            'Makes the delivery pending and sends it now, with the same `webhook-id`, whatever its state. A ' +
            'delivery is sent by one attempt at a time: a follow-up waiting for its backoff is replaced, and ' +
            'while an attempt is in flight the retry starts no second one (that attempt answers it).',
          emptyBody: true,
          responses: { 202: jsonResponse('The delivery, pending.', ref('WebhookDelivery')) },
          errors: ['webhook_delivery_not_found'],
        },
      },
      [param('WebhookDeliveryId')],
    ),
  };
}

const paths: oas31.PathsObject = {
  '/health': {
    get: operation({
      operationId: 'getHealth',
      summary: 'Liveness and database reachability',
      tag: TAGS.health,
      access: 'public',
      responses: {
        200: jsonResponse('The service and its database are up.', ref('HealthStatus')),
        503: jsonResponse('The database cannot be reached.', ref('HealthStatus')),
      },
      errors: [],
    }),
  },
  '/livez': {
    get: operation({
      operationId: 'getLiveness',
      summary: 'Liveness probe',
      description: 'The process answers. Never touches the database: an outage is not a reason to restart.',
      tag: TAGS.health,
      access: 'public',
      responses: { 200: jsonResponse('The process is alive.', ref('Liveness')) },
      errors: [],
    }),
  },
  '/readyz': {
    get: operation({
      operationId: 'getReadiness',
      summary: 'Readiness probe',
      description: 'The database is reachable and its schema is the one this release expects.',
      tag: TAGS.health,
      access: 'public',
      responses: {
        200: jsonResponse('Ready for traffic.', ref('Readiness')),
        503: jsonResponse('Not ready: see `checks` (with `Retry-After`).', ref('Readiness')),
      },
      errors: [],
    }),
  },
  '/metrics': {
    get: operation({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description:
        "Request latency by route pattern and status (`prior_auth_http_request_duration_seconds`) and the process's own metrics, in the Prometheus text format.",
      tag: TAGS.health,
      access: 'public',
      responses: {
        200: {
          description: 'The Prometheus text exposition format.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
      errors: [],
    }),
  },
  '/v1/payers': {
    get: operation({
      operationId: 'listPayers',
      summary: 'List payers',
      tag: TAGS.catalog,
      access: 'api_key',
      parameters: [
        queryParameter(
          'q',
          string({ maxLength: MAX_PAYER_SEARCH_LENGTH }),
          'Matches the display name or an alias.',
        ),
        queryParameter('state', string({ pattern: '^[A-Za-z]{2}$' }), 'Only payers serving this state.'),
        queryParameter('serviceType', SERVICE_TYPE, 'Only payers supporting this service type.'),
        param('Limit'),
        param('Cursor'),
      ],
      responses: { 200: jsonResponse('A page of payers.', ref('PayerList')) },
      errors: ['request_validation_failed'],
    }),
  },
  '/v1/payers/{payerId}': {
    parameters: [param('PayerId')],
    get: operation({
      operationId: 'getPayer',
      summary: 'Retrieve a payer',
      tag: TAGS.catalog,
      access: 'api_key',
      responses: { 200: jsonResponse('The payer.', ref('Payer')) },
      errors: ['payer_not_found'],
    }),
  },
  '/v1/prior-auth/routes': {
    get: operation({
      operationId: 'listRoutes',
      summary: 'List serviceable routes',
      description:
        'Each route pins a questionnaire and document requirements; create an authorization with its ' +
        '`templateSelection`. Every questionnaire has a patient group with patient.memberId, ' +
        'patient.firstName, patient.lastName and patient.birthDate.',
      tag: TAGS.catalog,
      access: 'api_key',
      parameters: [
        queryParameter('payerId', string({ maxLength: MAX_ID_LENGTH }), 'Only routes of this payer.'),
        queryParameter('insuranceState', string({ pattern: '^[A-Za-z]{2}$' }), 'Only routes for this state.'),
        queryParameter('serviceType', SERVICE_TYPE, 'Only routes for this service type.'),
        queryParameter(
          'serviceCode',
          string({ maxLength: MAX_SERVICE_CODE_LENGTH }),
          'Only routes for this service code.',
        ),
        param('Limit'),
        param('Cursor'),
      ],
      responses: { 200: jsonResponse('A page of routes.', ref('RouteList')) },
      errors: ['request_validation_failed', 'template_invalid'],
    }),
  },
  '/v1/sandbox/scenarios': {
    get: operation({
      operationId: 'listSandboxScenarios',
      summary: "List the simulated payer's scenarios (sandbox keys only)",
      description:
        'In the sandbox no real payer is contacted; the answer to `patient.memberId` picks the outcome. ' +
        'Any member ID not listed is approved. A production key gets 404 not_found.',
      tag: TAGS.catalog,
      access: 'api_key',
      responses: { 200: jsonResponse('The scenarios.', ref('SandboxScenarioList')) },
      errors: ['not_found'],
    }),
  },
  ...authorizationPaths(AUTHORIZATION_FAMILIES.primary, '', TAGS.authorizations),
  ...authorizationPaths(AUTHORIZATION_FAMILIES.alternate, 'AltPath', TAGS.authorizationsAlt),
  ...manualHandoffPaths(AUTHORIZATION_FAMILIES.primary, '', TAGS.handoffs),
  ...manualHandoffPaths(AUTHORIZATION_FAMILIES.alternate, 'AltPath', TAGS.handoffsAlt),
  '/v1/files': {
    post: operation({
      operationId: 'createFile',
      summary: 'Create a file (upload step 1)',
      description:
        'Answers the file with `status: pending_upload` and a signed `uploadUrl`. Step 2: `PUT` the raw bytes ' +
        'to `uploadUrl` with the declared Content-Type and no API key. Step 3: complete the file.',
      tag: TAGS.files,
      access: 'api_key',
      parameters: [param('IdempotencyKeyOptional')],
      requestBody: jsonBody('CreateFileRequest', true),
      command: true,
      responses: {
        201: jsonResponse('The created file, with its upload URL.', ref('File'), {
          Location: { ...headers.Location, schema: string({ pattern: '^/v1/files/file_[A-Za-z0-9]+$' }) },
          'Idempotent-Replayed': header('IdempotentReplayed'),
        }),
      },
      errors: ['request_validation_failed', 'file_content_mismatch', ...COMMAND_CONFLICTS],
    }),
    get: operation({
      operationId: 'listFiles',
      summary: 'List files',
      description: 'Newest first, keyset-paginated. Listed files carry no URLs.',
      tag: TAGS.files,
      access: 'api_key',
      parameters: [param('Limit'), param('Cursor')],
      responses: { 200: jsonResponse('A page of files.', ref('FileList')) },
      errors: ['request_validation_failed'],
    }),
  },
  '/v1/events': {
    get: operation({
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'The events of the key’s organization and environment, newest first, keyset-paginated; kept at least ' +
        '30 days.',
      tag: TAGS.events,
      access: 'api_key',
      parameters: [
        queryParameter('type', enumOf(RESOURCE_EVENT_TYPES), 'Only events of this type.'),
        queryParameter('authorizationId', string({ maxLength: MAX_ID_LENGTH }), 'Only events of this case.'),
        param('Limit'),
        param('Cursor'),
      ],
      responses: { 200: jsonResponse('A page of events.', ref('EventList')) },
      errors: ['request_validation_failed'],
    }),
  },
  ...webhookEndpointPaths(),
  '/v1/files/{fileId}': {
    parameters: [param('FileId')],
    get: operation({
      operationId: 'getFile',
      summary: 'Retrieve a file',
      description: 'A ready file carries a fresh `downloadUrl` (valid 5 minutes).',
      tag: TAGS.files,
      access: 'api_key',
      responses: { 200: jsonResponse('The file.', ref('File')) },
      errors: ['file_not_found'],
    }),
  },
  '/v1/files/{fileId}/complete': {
    parameters: [param('FileId')],
    post: operation({
      operationId: 'completeFile',
      summary: 'Complete a file upload (upload step 3)',
      description:
        'Checks that the bytes arrived with the declared size and an allowed content type (judged from the ' +
        'bytes) and answers the file `ready`. A failed check leaves it pending_upload: upload again and retry.',
      tag: TAGS.files,
      access: 'api_key',
      parameters: [param('IdempotencyKeyOptional')],
      requestBody: jsonBody('EmptyBody', false),
      command: true,
      responses: {
        200: jsonResponse('The ready file.', ref('File'), {
          'Idempotent-Replayed': header('IdempotentReplayed'),
        }),
      },
      errors: [
        'file_not_found',
        'file_already_completed',
        'file_upload_incomplete',
        'file_content_mismatch',
        'request_validation_failed',
        ...COMMAND_CONFLICTS,
      ],
    }),
  },
  '/blobs/upload/{token}': {
    ...SERVED_WITH_FILESYSTEM_STORAGE,
    parameters: [param('BlobToken')],
    put: operation({
      operationId: 'uploadFileBytes',
      summary: 'Upload file bytes (upload step 2)',
      description:
        'The `uploadUrl` of a file, served by this API when files are stored on its filesystem ' +
        '(`BLOB_STORAGE_URL=file://…`; with S3 the URL points at the bucket and this path answers 404). No API ' +
        'key: the signed URL is the credential. Send the raw bytes with the declared Content-Type.',
      tag: TAGS.blobs,
      access: 'capability',
      requestBody: {
        required: true,
        content: Object.fromEntries(
          ALLOWED_FILE_CONTENT_TYPES.map((type) => [type, { schema: string({ contentMediaType: type }) }]),
        ),
      },
      responses: { 200: jsonResponse('The bytes are stored.', ref('BlobUploadResult')) },
      errors: [
        'upload_url_invalid',
        'upload_url_expired',
        'upload_content_type_mismatch',
        'upload_too_large',
        'upload_interrupted',
        'not_found',
      ],
    }),
  },
  '/blobs/download/{token}': {
    ...SERVED_WITH_FILESYSTEM_STORAGE,
    parameters: [param('BlobToken')],
    get: operation({
      operationId: 'downloadFileBytes',
      summary: 'Download file bytes',
      description:
        'The `downloadUrl` of a ready file (filesystem storage only, like the upload path). No API key; the ' +
        'answer is an attachment with the file’s verified content type.',
      tag: TAGS.blobs,
      access: 'capability',
      responses: {
        200: {
          description: 'The file bytes.',
          headers: { 'Request-Id': header('RequestId') },
          content: Object.fromEntries(
            [...ALLOWED_FILE_CONTENT_TYPES, 'application/octet-stream'].map((type) => [
              type,
              { schema: string({ contentMediaType: type }) },
            ]),
          ),
        },
      },
      errors: ['download_url_invalid', 'download_url_expired', 'download_not_found', 'not_found'],
    }),
  },
  '/grants/{token}': {
    parameters: [param('GrantToken')],
    get: operation({
      operationId: 'openAccessGrant',
      summary: 'Open an access grant',
      description:
        'The `url` of an access grant. No API key: the signed URL is the credential. Checks signature, ' +
        'revocation, expiry and that the handoff is still active (or the live session still live), audits the ' +
        'attempt (time, client address, user agent, outcome) whatever its outcome, then redirects to the ' +
        'runtime session.',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        303: {
          description:
            'Redirect to the runtime session (interactive, or read-only for a live-session grant).',
          headers: { 'Request-Id': header('RequestId'), Location: header('Location') },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/sandbox-portal/sessions/{token}': {
    parameters: [param('SandboxSessionToken')],
    ...Object.fromEntries(
      (['get', 'post'] as const).map((method) => [
        method,
        operation({
          operationId: method === 'get' ? 'viewSandboxPortalSession' : 'submitSandboxPortalSession',
          summary:
            method === 'get'
              ? 'The sandbox payer’s session page'
              : 'Submit the request at the sandbox payer (interactive sessions)',
          description:
            'Where a sandbox grant redirects: an HTML page of the simulated payer portal. The interactive page ' +
            'submits the request to the simulated payer and shows its reference number (report it when ' +
            'completing the handoff); the read-only page has no controls and refuses POST. Refusals are HTML ' +
            'pages too (403 tampered or read-only, 410 expired or session ended).',
          tag: TAGS.grants,
          access: 'capability',
          ...(method === 'post'
            ? {
                requestBody: {
                  required: false,
                  content: { 'application/x-www-form-urlencoded': { schema: object({}) } },
                },
              }
            : {}),
          responses: Object.fromEntries(
            [
              [200, 'The session page.'],
              [403, 'The link is not valid, or the session is read-only (POST).'],
              [404, 'No such session.'],
              [405, 'Another method than GET, HEAD or POST.'],
              [410, 'The link has expired or the session has ended.'],
              [503, 'The sandbox portal cannot be reached (its database is unavailable).'],
            ].map(([status, description]) => [
              String(status),
              {
                description: String(description),
                headers: { 'Request-Id': header('RequestId') },
                content: { 'text/html': { schema: string() } },
              },
            ]),
          ),
          errors: [],
        }),
      ]),
    ),
  },
  '/live-sessions/{token}': {
    parameters: [param('LiveViewToken')],
    get: operation({
      operationId: 'viewLiveSession',
      summary: 'Read-only live view of a browser session at the payer',
      description:
        'Where a live-session grant redirects while a portal run of the case is live (decision 0033): an HTML ' +
        'page showing the browser’s screen as it changes, fed by `…/stream`. No API key: the signed URL is the ' +
        'credential, checked against its grant (revocation, expiry) and the session on every use, and audited. ' +
        'Any other method, and anything sent to `…/input`, is input and is refused (`access_grant_invalid`).',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        200: {
          description: 'The live view page.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/html': { schema: string() } },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/live-sessions/{token}/stream': {
    parameters: [param('LiveViewToken')],
    get: operation({
      operationId: 'streamLiveSession',
      summary: 'The live view’s frames (server-sent events)',
      description:
        'Server-sent events: `frame` (`{seq, page, contentType, capturedAt, image}`, the image base64-encoded) ' +
        'at once with the newest frame and again for each newer one, then `ended` (`{reason: "ended" | ' +
        '"expired"}`) when the session ends or the grant expires. Checked and audited like the page.',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        200: {
          description: 'The event stream.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/event-stream': { schema: string() } },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/live-sessions/{token}/input': {
    parameters: [param('LiveViewToken')],
    post: operation({
      operationId: 'sendLiveSessionInput',
      summary: 'A click or key press in an interactive live view',
      description:
        'What the interactive view of a manual-handoff grant sends (decision 0038): one input, dispatched in ' +
        'order to the browser page of the session by the worker that owns it. Checked against the grant and ' +
        'the session and audited like the page; a read-only (live-session) grant is refused ' +
        '(`access_grant_invalid`). No API key: the signed URL is the credential.',
      tag: TAGS.grants,
      access: 'capability',
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: {
              oneOf: [
                object(
                  {
                    kind: enumOf(['click']),
                    x: number({ minimum: 0, maximum: 1, description: 'From the left edge, as a fraction.' }),
                    y: number({ minimum: 0, maximum: 1, description: 'From the top edge, as a fraction.' }),
                  },
                  { title: 'Click' },
                ),
                object({ kind: enumOf(['key']), key: enumOf(LIVE_INPUT_KEYS) }, { title: 'Key' }),
                object(
                  {
                    kind: enumOf(['text']),
                    text: string({
                      minLength: 1,
                      maxLength: MAX_LIVE_INPUT_TEXT_LENGTH,
                      description: 'Printable characters; control keys go as `key`.',
                    }),
                  },
                  { title: 'Text' },
                ),
              ],
            },
          },
        },
      },
      responses: {
        202: jsonResponse(
          'Taken: sent on to the browser of the session.',
          object({ accepted: boolean({ enum: [true] }) }),
        ),
      },
      // Its own JSON body parser (a 4 KiB limit): not JSON → bad_request, too large → payload_too_large.
      errors: [
        'bad_request',
        'payload_too_large',
        'request_validation_failed',
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/v1/openapi.json': {
    get: operation({
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description: 'Requires the API key like every /v1 path; the same document is public at /openapi.json.',
      tag: TAGS.docs,
      access: 'api_key',
      responses: { 200: documentResponse('This document.') },
      errors: [],
    }),
  },
  '/openapi.json': {
    get: operation({
      operationId: 'getPublicOpenApiDocument',
      summary: 'This OpenAPI document (public)',
      tag: TAGS.docs,
      access: 'public',
      responses: { 200: documentResponse('This document.') },
      errors: [],
    }),
  },
  '/docs': {
    get: operation({
      operationId: 'getApiReference',
      summary: 'API reference page',
      description: 'A browsable reference of this document (Swagger UI, served from this service).',
      tag: TAGS.docs,
      access: 'public',
      responses: {
        200: {
          description: 'An HTML page.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/html': { schema: string() } },
        },
      },
      errors: [],
    }),
  },
  '/docs/assets/{asset}': {
    parameters: [{ ...pathParameter('asset', 'A file of the reference page.') }],
    get: operation({
      operationId: 'getApiReferenceAsset',
      summary: 'API reference page assets',
      tag: TAGS.docs,
      access: 'public',
      responses: {
        200: {
          description: 'A script, style sheet or image of the reference page.',
          headers: { 'Request-Id': header('RequestId') },
          content: Object.fromEntries(
            ['text/javascript', 'text/css', 'image/png'].map((type) => [type, { schema: string() }]),
          ),
        },
      },
      errors: ['not_found'],
    }),
  },
};

const DESCRIPTION = `
The prior-authorization service: an HTTP + JSON API that tracks prior-authorization cases from requirements
(answers and documents) through submission to the payer, proof of receipt and the payer's decision.

**Authentication.** Every \`/v1\` request carries \`Authorization: Bearer <API_KEY>\`. Keys belong to one
organization and one environment (\`pa_sandbox_…\` or \`pa_live_…\`); a key of one environment is never valid
in the other. Another organization's or environment's objects answer 404. \`/health\`, the probes \`/livez\` and
\`/readyz\`, \`/metrics\`, this document at
\`/openapi.json\`, \`/docs\`, the signed \`/blobs/…\` URLs, access-grant URLs (\`/grants/…\`) and the sandbox
session pages they lead to need no key: the signed URL is the credential.

**Versions.** Two API versions: \`${LEGACY_API_VERSION}\` (legacy shapes) and \`${CURRENT_API_VERSION}\`
(current, the default). A request's version is its \`${API_VERSION_HEADER}\` header, else the version pinned on
its API key; every \`/v1\` response names the version used in the same header. Responses that carry an
authorization are \`oneOf\` the current and the legacy shape: the version decides which. The stored case is the
same under both.

**Requests.** A request that carries a body must send \`Content-Type: application/json\` (the sandbox session
page's HTML form excepted; any other type or
invalid JSON → 400 \`bad_request\`; over the size limit → 413 \`payload_too_large\`). Unknown fields are refused
(422, \`errorType: unknown_field\`).

**Concurrency.** Responses that carry an authorization or a manual handoff have \`ETag: "<version>"\`;
mutations require it back in \`If-Match\` (missing → 428, malformed → 400, stale → 409 \`version_conflict\`); a
handoff's own commands take the handoff's version.

**Idempotency.** Command POSTs accept \`Idempotency-Key\` (required on create, attach, confirm, cancel and every
manual-handoff, access-grant and live-session-grant POST). The
same key and request answer the stored status and body byte for byte with \`Idempotent-Replayed: true\`.

**Errors.** Every error has the envelope \`{error: {code, message, retryable, details, issues}, requestId}\`;
clients match on \`error.code\`. Each operation lists its statuses and codes. Beyond them, a path no route
serves answers 404 \`not_found\` (under \`/v1\`, an invalid key is a 401 first) and a known path with a method
it does not serve answers 405 \`method_not_allowed\` (components \`NotFound\` and \`MethodNotAllowed\`).
Before any route: a path that is not valid UTF-8 or holds control characters (\`%00\`) answers 404
\`not_found\`, such a query parameter 422; headers over the server's limit answer 431 \`headers_too_large\`,
a request that is not valid HTTP 400 \`bad_request\`, one not received in time 408 \`request_timeout\`.

**Paths.** \`/v1/prior-authorizations/…\` is an alias: every \`/v1/prior-auth/authorizations/…\` operation is
served there too, with the same requests and responses.

**Rate limits** (decision 0035). Each API key has a budget, by default 100 requests per second with bursts up to
200, shared by every API process; past it → 429 \`rate_limited\` (\`retryable: true\`) with \`Retry-After\`
in seconds. Every answer to a request with a valid key carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`
and \`RateLimit-Reset\`. An address that makes too many requests without a valid key (30 a minute by
default) is answered 429 for the rest of that minute, whatever key it sends.

**Browsers (CORS).** API keys are server-side secrets: by default no browser origin may call the API. A
deployment may allow origins (\`CORS_ALLOWED_ORIGINS\`); preflight \`OPTIONS\` requests never need a key.

**Lists** answer \`{data, pagination: {nextCursor}}\`, newest first; \`limit\` is 1–${MAX_LIMIT}
(default ${DEFAULT_LIMIT}).
`.trim();

const genericError = (code: ErrorCode): Response => {
  const status = ERROR_HTTP_STATUS[code];
  return jsonResponse(codeList([code]), errorsOf([code]), {
    ...(status === 401 ? { 'WWW-Authenticate': header('WWWAuthenticate') } : {}),
  });
};

/** The API's OpenAPI 3.1 document, served at `/v1/openapi.json` and `/openapi.json`. */
export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Prior-Authorization Service API',
    version: '1.0.0',
    description: DESCRIPTION,
  },
  servers: [{ url: '/', description: 'This deployment' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: TAGS.health, description: 'Public liveness, readiness and metrics.' },
    { name: TAGS.catalog, description: 'The payer catalog and the serviceable routes.' },
    { name: TAGS.events, description: 'What happened to the organization’s cases, handoffs and files.' },
    {
      name: TAGS.webhooks,
      description: 'Where events are sent, signed per the Standard Webhooks specification.',
    },
    { name: TAGS.authorizations, description: 'Prior-authorization cases.' },
    {
      name: TAGS.authorizationsAlt,
      description:
        'An alias: `/v1/prior-authorizations/…` serves the same operations and responses as ' +
        '`/v1/prior-auth/authorizations/…` (the second path family the spec names); `Location` on create ' +
        'names this family.',
    },
    {
      name: TAGS.handoffs,
      description: 'A human takes over a payer interaction automation cannot finish; live-session views.',
    },
    { name: TAGS.handoffsAlt, description: 'The same operations under the second path family.' },
    {
      name: TAGS.grants,
      description:
        'Opening access-grant URLs (no API key) and the sandbox payer’s session page they lead to.',
    },
    { name: TAGS.files, description: 'Supporting documents: create, upload, complete, then attach.' },
    { name: TAGS.blobs, description: 'Signed upload and download URLs of the filesystem file store.' },
    { name: TAGS.docs, description: 'This document and its reference page.' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'pa_sandbox_… or pa_live_…',
        description:
          'An API key of the organization; the key decides the environment (sandbox or production).',
      },
    },
    schemas,
    parameters,
    headers,
    responses: {
      Unauthorized: genericError('unauthorized'),
      NotFound: genericError('not_found'),
      MethodNotAllowed: genericError('method_not_allowed'),
    },
  },
};
