import {
  ALLOWED_FILE_CONTENT_TYPES,
  AUTHORIZATION_STATUSES,
  FILE_PURPOSES,
  MAX_FILE_SIZE_BYTES,
  REQUIREMENT_ISSUE_CODES,
  type AnswerType,
  type ComparisonOperator,
  type FileStatus,
  type IssueSeverity,
  type NextActionOwner,
  type NextActionType,
  type Outcome,
  type QuestionnaireItemTemplate,
  type ReconciliationState,
  type ReviewSnapshotStatus,
  type ValueType,
  MANUAL_HANDOFF_RESULTS,
  MANUAL_HANDOFF_STATES,
  REPORTED_OUTCOMES,
  UNABLE_TO_COMPLETE_REASONS,
} from '@prior-auth/domain';
import {
  API_VERSION_HEADER,
  API_VERSIONS,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
} from '@prior-auth/platform';
import type { oas31 } from 'openapi3-ts';
import {
  ANSWER_VALUE_FIELDS,
  FINAL_SUBMISSION_POLICIES,
  MAX_ANSWER_STRING_LENGTH,
  MAX_ANSWERS_PER_ITEM,
  MAX_DESCRIPTION_LENGTH,
  MAX_DOCUMENT_TYPES,
  MAX_ID_LENGTH,
  MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH,
  MAX_LINK_ID_LENGTH,
  MAX_RESPONSE_ITEMS,
  PORTAL_AUTH_MODES,
  SERVICE_CODE_SYSTEMS,
  SERVICE_TYPES,
} from '../authorization/authorization.request';
import { LEGACY_STATUSES } from '../authorization/legacy/legacy-authorization.presenter';
import {
  MAX_OPERATOR_NOTES_LENGTH,
  MAX_REFERENCE_NUMBER_LENGTH,
  MAX_REVOKE_REASON_LENGTH,
} from '../manual-handoff/manual-handoff.request';
import { MAX_CONTENT_TYPE_LENGTH, MAX_FILE_NAME_LENGTH, MAX_PURPOSE_LENGTH } from '../files/file.request';
import { DOMAIN_ERROR_HTTP_STATUS } from '../http/error-mapping';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../http/pagination';
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

/** Every member of a string union, checked complete by the compiler. */
const membersOf = <T extends string>(members: Record<T, true>): T[] => Object.keys(members) as T[];

const OUTCOMES = membersOf<Outcome>({
  approved: true,
  denied: true,
  modified: true,
  not_required: true,
  failed: true,
});
const NEXT_ACTION_TYPES = membersOf<NextActionType>({
  provide_requirements: true,
  advance_case: true,
  approve_submission: true,
  complete_payer_interaction: true,
});
const NEXT_ACTION_OWNERS = membersOf<NextActionOwner>({ customer: true, operator: true });
const REVIEW_SNAPSHOT_STATUSES = membersOf<ReviewSnapshotStatus>({
  current: true,
  stale: true,
  approved: true,
});
const ANSWER_TYPES = membersOf<AnswerType>({
  string: true,
  date: true,
  boolean: true,
  decimal: true,
  coding: true,
});
const VALUE_TYPES = membersOf<ValueType>({ integer: true, quantity: true, time: true, dateTime: true });
const ISSUE_SEVERITIES = membersOf<IssueSeverity>({ error: true, warning: true, info: true });
const COMPARISON_OPERATORS = membersOf<ComparisonOperator>({
  '=': true,
  '!=': true,
  '>': true,
  '<': true,
  '>=': true,
  '<=': true,
});
const RECONCILIATION_STATES = membersOf<ReconciliationState>({
  pending: true,
  confirmed: true,
  not_found: true,
});
const FILE_STATUSES = membersOf<FileStatus>({ pending_upload: true, ready: true });
const ANSWER_CONSTRAINTS = membersOf<NonNullable<QuestionnaireItemTemplate['answerConstraint']>>({
  optionsOnly: true,
  optionsOrString: true,
});

// ---- component names -----------------------------------------------------------------------------------

type SchemaName =
  | 'Authorization'
  | 'AuthorizationList'
  | 'LegacyAuthorization'
  | 'LegacyAuthorizationList'
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
  | 'PayerId'
  | 'FileId'
  | 'BlobToken'
  | 'ManualHandoffId'
  | 'GrantToken'
  | 'SandboxSessionToken'
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
  | 'WWWAuthenticate';

const ref = (name: SchemaName): Schema => ({ $ref: `#/components/schemas/${name}` });
const param = (name: ParameterName): oas31.ReferenceObject => ({ $ref: `#/components/parameters/${name}` });
const header = (name: HeaderName): oas31.ReferenceObject => ({ $ref: `#/components/headers/${name}` });

// ---- shared schema pieces ------------------------------------------------------------------------------

const id = (prefix: string, description: string) =>
  string({ pattern: `^${prefix}_[A-Za-z0-9]+$`, description });
const STATE = string({ pattern: '^[A-Z]{2}$', description: 'Two-letter US state code.' });
const SERVICE_TYPE = enumOf(SERVICE_TYPES);

const templateSelection = (input: boolean): SchemaObject =>
  object(
    {
      payerId: string({
        minLength: 1,
        ...(input ? { maxLength: MAX_ID_LENGTH } : {}),
        description: 'Canonical payer ID.',
      }),
      insuranceState: input
        ? string({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter state code (stored upper-case).' })
        : STATE,
      serviceType: SERVICE_TYPE,
      serviceCode: string({
        minLength: 1,
        ...(input ? { maxLength: 50 } : {}),
        description: 'A HCPCS, CPT or NDC code.',
      }),
      serviceCodeSystem: enumOf(SERVICE_CODE_SYSTEMS),
    },
    { description: 'The pinned route: payer, state, service type and service code.' },
  );

/** An answer holds exactly one value field. */
const answer = (input: boolean): SchemaObject => ({
  ...object(
    {
      valueString: string(input ? { maxLength: MAX_ANSWER_STRING_LENGTH } : {}),
      valueBoolean: boolean(),
      valueDate: string({
        ...(input ? { maxLength: 32 } : {}),
        description: 'A calendar date `YYYY-MM-DD`; an invalid date is a requirement issue, not a 422.',
      }),
      valueDecimal: number(),
      valueCoding: input
        ? object({ code: string({ minLength: 1, maxLength: MAX_LINK_ID_LENGTH }) })
        : ref('Coding'),
      valueInteger: integer({ description: 'A whole number, for `decimal` items of `valueType` `integer`.' }),
      valueQuantity: object(
        {
          value: number(),
          unit: string({ minLength: 1, ...(input ? { maxLength: MAX_LINK_ID_LENGTH } : {}) }),
          system: string({ minLength: 1, ...(input ? { maxLength: MAX_ANSWER_STRING_LENGTH } : {}) }),
          code: string({ minLength: 1, ...(input ? { maxLength: MAX_LINK_ID_LENGTH } : {}) }),
        },
        {
          optional: ['unit', 'system', 'code'],
          description:
            'For `decimal` items of `valueType` `quantity`; the unit must be among the item’s `units`.',
        },
      ),
      valueTime: string({
        ...(input ? { maxLength: 32 } : {}),
        description: '`hh:mm[:ss]`, for `string` items of `valueType` `time`.',
      }),
      valueDateTime: string({
        ...(input ? { maxLength: 64 } : {}),
        description: 'ISO 8601 date-time, for `date` items of `valueType` `dateTime`.',
      }),
    },
    {
      optional: [...ANSWER_VALUE_FIELDS],
      description: `Exactly one of ${ANSWER_VALUE_FIELDS.map((field) => `\`${field}\``).join(', ')}.`,
    },
  ),
  minProperties: 1,
  maxProperties: 1,
});

const questionnaireResponse = (input: boolean): SchemaObject =>
  object(
    {
      item: arrayOf(
        object({
          linkId: string({ minLength: 1, ...(input ? { maxLength: MAX_LINK_ID_LENGTH } : {}) }),
          answer: arrayOf(
            ref(input ? 'AnswerInput' : 'Answer'),
            input ? { maxItems: MAX_ANSWERS_PER_ITEM } : {},
          ),
        }),
        input ? { maxItems: MAX_RESPONSE_ITEMS } : {},
      ),
    },
    {
      description: input
        ? 'Answers by linkId. On patch, each item sent replaces that item’s answers; an empty `answer` clears it.'
        : 'The current normalized answer set.',
    },
  );

const list = (item: SchemaName, description: string): SchemaObject =>
  object({ data: arrayOf(ref(item)), pagination: ref('Pagination') }, { description });

const condition = (properties: Record<string, Schema>, required: string[]): SchemaObject => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

// ---- component schemas ---------------------------------------------------------------------------------

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
            details: openObject('Channel-specific details.'),
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
  TemplateSelection: templateSelection(false),
  Route: object(
    {
      templateSelection: ref('TemplateSelection'),
      portalAuthModes: arrayOf(enumOf(PORTAL_AUTH_MODES), { minItems: 1 }),
      questionnaire: arrayOf(ref('QuestionnaireGroup')),
      documentRequirements: arrayOf(ref('DocumentRequirement')),
    },
    { description: 'A serviceable route: what to collect before creating an authorization on it.' },
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
  QuestionnaireGroup: object({
    id: string({ description: 'Stable group ID.' }),
    title: string(),
    items: arrayOf(ref('QuestionnaireItem')),
  }),
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
    },
    {
      optional: [
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
  Answer: answer(false),
  QuestionnaireResponse: questionnaireResponse(false),
  Requirements: object(
    {
      version: integer({ minimum: 1, description: 'Checked against nextAction.requirementsVersion.' }),
      questions: arrayOf(object({ linkId: string(), message: string() })),
      documents: arrayOf(object({ type: string(), message: string() })),
      issues: arrayOf(ref('Issue')),
    },
    { description: 'The current unresolved blockers; the status stays requires_input while any remain.' },
  ),
  Issue: object({
    code: string({
      description: `Stable code; the requirements engine's are ${REQUIREMENT_ISSUE_CODES.map((c) => `\`${c}\``).join(', ')}.`,
    }),
    message: string(),
    field: string({ description: 'The linkId or field path.' }),
    severity: enumOf(ISSUE_SEVERITIES),
  }),
  Submission: object({
    reviewSnapshot: nullable(ref('ReviewSnapshot')),
    payerReceipt: nullable(ref('PayerReceipt')),
    decision: nullable(ref('Decision')),
  }),
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
      details: openObject('Channel-specific details.'),
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
      details: openObject('Payer-specific details.'),
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
      contentType: enumOf(ALLOWED_FILE_CONTENT_TYPES),
      purpose: enumOf(FILE_PURPOSES),
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
  BlobUploadResult: object({ sizeBytes: integer({ minimum: 0, description: 'Bytes stored.' }) }),

  CreateAuthorizationRequest: object(
    {
      providerNpi: string({
        pattern: '^[0-9]{10}$',
        description: 'A provider NPI registered to the organization.',
      }),
      templateSelection: ref('TemplateSelectionInput'),
      policy: describe(ref('PolicyInput'), 'Required; missing → 400 final_submission_policy_required.'),
      portalAuthMode: enumOf(PORTAL_AUTH_MODES, { description: 'For routes that support several modes.' }),
      questionnaireResponse: describe(
        ref('QuestionnaireResponseInput'),
        'Initial answers, merged before the case is created.',
      ),
    },
    { optional: ['portalAuthMode', 'questionnaireResponse'] },
  ),
  TemplateSelectionInput: templateSelection(true),
  LegacyCreateAuthorizationRequest: object(
    {
      providerNpi: string({ pattern: '^[0-9]{10}$' }),
      templateSelection: ref('LegacyTemplateSelectionInput'),
      policy: describe(openObject('Ignored: the case gets policy `automatic`.'), 'Ignored.'),
      portalAuthMode: enumOf(PORTAL_AUTH_MODES),
      questionnaireResponse: ref('QuestionnaireResponseInput'),
    },
    {
      optional: ['policy', 'portalAuthMode', 'questionnaireResponse'],
      description: `Create under ${LEGACY_API_VERSION}: no policy, Idempotency-Key optional.`,
    },
  ),
  LegacyTemplateSelectionInput: {
    ...templateSelection(true),
    properties: {
      ...templateSelection(true).properties,
      serviceCodeSystem: string({
        minLength: 1,
        maxLength: MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH,
        description: `Matched case-insensitively to ${SERVICE_CODE_SYSTEMS.join(', ')}; anything else → 409 unsupported_template_selection.`,
      }),
    },
  },
  PolicyInput: object({ finalSubmission: enumOf(FINAL_SUBMISSION_POLICIES) }),
  QuestionnaireResponseInput: questionnaireResponse(true),
  AnswerInput: answer(true),
  PatchAnswersRequest: object({ questionnaireResponse: ref('QuestionnaireResponseInput') }),
  AttachFileRequest: object(
    {
      fileId: string({
        minLength: 1,
        maxLength: MAX_ID_LENGTH,
        description: 'A ready file of the organization.',
      }),
      documentTypes: arrayOf(string({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: MAX_DOCUMENT_TYPES,
        description: 'Every requirement type the file satisfies.',
      }),
      description: nullable(string({ maxLength: MAX_DESCRIPTION_LENGTH })),
    },
    { optional: ['description'] },
  ),
  ConfirmRequest: object(
    {
      nextActionId: nullable(
        string({
          maxLength: MAX_ID_LENGTH,
          description: 'The current confirmable nextAction.id; missing → 409 next_action_required.',
        }),
      ),
    },
    { optional: ['nextActionId'] },
  ),
  CreateFileRequest: object({
    fileName: string({
      maxLength: MAX_FILE_NAME_LENGTH,
      description: 'Not blank; becomes the attachment label.',
    }),
    contentType: string({
      maxLength: MAX_CONTENT_TYPE_LENGTH,
      description: `One of ${ALLOWED_FILE_CONTENT_TYPES.join(', ')}; checked against the bytes at completion.`,
    }),
    sizeBytes: number({ description: `The exact size in bytes, 1 to ${MAX_FILE_SIZE_BYTES} (25 MiB).` }),
    purpose: string({ maxLength: MAX_PURPOSE_LENGTH, description: `One of ${FILE_PURPOSES.join(', ')}.` }),
  }),
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
  CompleteManualHandoffRequest: object(
    {
      reportedOutcome: enumOf(REPORTED_OUTCOMES),
      observedReferenceNumber: nullable(
        string({
          maxLength: MAX_REFERENCE_NUMBER_LENGTH,
          description:
            'The payer’s reference as the operator saw it; reconciliation looks it up at the payer.',
        }),
      ),
      operatorNotes: nullable(string({ maxLength: MAX_OPERATOR_NOTES_LENGTH })),
    },
    { optional: ['observedReferenceNumber', 'operatorNotes'] },
  ),
  UnableToCompleteManualHandoffRequest: object(
    {
      reason: enumOf(UNABLE_TO_COMPLETE_REASONS),
      operatorNotes: nullable(string({ maxLength: MAX_OPERATOR_NOTES_LENGTH })),
    },
    { optional: ['operatorNotes'] },
  ),
  RevokeManualHandoffRequest: object(
    {
      reason: string({ minLength: 1, maxLength: MAX_REVOKE_REASON_LENGTH }),
      notes: nullable(string({ maxLength: MAX_OPERATOR_NOTES_LENGTH })),
    },
    { optional: ['notes'] },
  ),
  EmptyBody: object({}, { description: 'This operation takes no body; an empty object is accepted.' }),
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
  schema: string({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$' }),
});

const parameters: Record<ParameterName, oas31.ParameterObject> = {
  AuthorizationId: pathParameter('authorizationId', 'The authorization ID (`auth_…`).'),
  AttachmentId: pathParameter('attachmentId', 'The attachment ID (`att_…`).'),
  PayerId: pathParameter('payerId', 'The canonical payer ID.'),
  FileId: pathParameter('fileId', 'The file ID (`file_…`).'),
  BlobToken: pathParameter('token', 'The signed, expiring capability from an upload or download URL.'),
  ManualHandoffId: pathParameter('manualHandoffId', 'The manual handoff ID (`mh_…`).'),
  GrantToken: pathParameter('token', 'The signed capability of an access-grant URL.'),
  SandboxSessionToken: pathParameter('token', 'The signed, expiring capability a grant redirected to.'),
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
    schema: string({ maxLength: 2048 }),
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
    description: 'Identifies this request in logs and support requests.',
    required: true,
    schema: string({ pattern: '^req_[A-Za-z0-9]+$' }),
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
    if (group.includes('service_unavailable') || group.includes('idempotency_key_in_use'))
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
  ],
  // Behind the JSON body checks, no key.
  public: ['bad_request', 'not_found', 'payload_too_large', 'request_validation_failed', 'internal_error'],
  // Blob routes: mounted before the body checks; the token is the credential.
  capability: ['not_found', 'request_validation_failed', 'internal_error'],
};

/** Every `/v1` operation takes the version header and answers it (decision 17), errors included. */
const withApiVersion = (responses: Record<string, Response>): Record<string, Response> =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...response.headers, [API_VERSION_HEADER]: header('ApiVersion') } },
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
    },
    [`${one}/answers`]: {
      parameters: [param('AuthorizationId')],
      patch: op({
        operationId: 'patchAuthorizationAnswers',
        summary: 'Patch answers',
        description:
          'Merges by linkId: each item sent replaces that item’s answers, an empty `answer` clears it, items ' +
          'not sent are kept. Requirements are recomputed; a value the question refuses is a requirement issue.',
        parameters: [param('IfMatch'), param('IdempotencyKeyOptional')],
        requestBody: jsonBody('PatchAnswersRequest', true),
        command: true,
        responses: { 200: command('The updated authorization.') },
        errors: [
          ...precondition,
          'authorization_not_found',
          'authorization_not_mutable',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
    [`${one}/attachments`]: {
      parameters: [param('AuthorizationId')],
      post: op({
        operationId: 'attachAuthorizationFile',
        summary: 'Attach a file',
        description:
          'Links a ready file (purpose authorization_attachment). When all blockers clear, the status becomes ' +
          'requires_confirmation with nextAction.type advance_case.',
        parameters: [param('IfMatch'), param('IdempotencyKeyRequired')],
        requestBody: jsonBody('AttachFileRequest', true),
        command: true,
        responses: { 200: command('The updated authorization.') },
        errors: [
          ...precondition,
          'authorization_not_found',
          'authorization_not_mutable',
          'file_not_found',
          'file_not_ready',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
    [`${one}/attachments/{attachmentId}`]: {
      parameters: [param('AuthorizationId'), param('AttachmentId')],
      delete: op({
        operationId: 'deleteAuthorizationAttachment',
        summary: 'Delete an attachment',
        description: 'Unlinks the attachment (the file stays); requirements are recomputed.',
        parameters: [param('IfMatch'), param('IdempotencyKeyOptional')],
        requestBody: jsonBody('EmptyBody', false),
        command: true,
        responses: { 200: command('The updated authorization.') },
        errors: [
          ...precondition,
          'authorization_not_found',
          'authorization_not_mutable',
          'attachment_not_found',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
    [`${one}/confirm`]: {
      parameters: [param('AuthorizationId')],
      post: op({
        operationId: 'confirmAuthorization',
        summary: 'Confirm the next action',
        description:
          'advance_case moves the case to processing; approve_submission approves the current review snapshot ' +
          'and crosses the final submission boundary, irreversibly. Checks in order: version_conflict, ' +
          'next_action_required, status (next_action_not_confirmable / authorization_not_confirmable), the ' +
          'action id (review_stale / next_action_mismatch), requirements_not_satisfied, review_stale.',
        parameters: [param('IfMatch'), param('IdempotencyKeyRequired')],
        requestBody: jsonBody('ConfirmRequest', false),
        command: true,
        responses: { 200: command('The confirmed authorization.') },
        errors: [
          ...precondition,
          'authorization_not_found',
          'next_action_required',
          'authorization_not_confirmable',
          'next_action_not_confirmable',
          'next_action_mismatch',
          'review_stale',
          'requirements_not_satisfied',
          'template_invalid',
          ...COMMAND_CONFLICTS,
        ],
      }),
    },
    [`${one}/cancel`]: {
      parameters: [param('AuthorizationId')],
      post: op({
        operationId: 'cancelAuthorization',
        summary: 'Cancel an authorization',
        description:
          'Stops future processing and rejects later writes; does not reverse a submission the payer already ' +
          'received (payerReceipt and decision are kept). Not allowed from completed or canceled.',
        parameters: [param('IfMatch'), param('IdempotencyKeyRequired')],
        requestBody: jsonBody('EmptyBody', false),
        command: true,
        responses: { 200: command('The canceled authorization.') },
        errors: [
          ...precondition,
          'authorization_not_found',
          'authorization_not_cancelable',
          'template_invalid',
          ...COMMAND_CONFLICTS,
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
  '/v1/payers': {
    get: operation({
      operationId: 'listPayers',
      summary: 'List payers',
      tag: TAGS.catalog,
      access: 'api_key',
      parameters: [
        queryParameter('q', string({ maxLength: 100 }), 'Matches the display name or an alias.'),
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
        queryParameter('payerId', string({ maxLength: 100 }), 'Only routes of this payer.'),
        queryParameter('insuranceState', string({ pattern: '^[A-Za-z]{2}$' }), 'Only routes for this state.'),
        queryParameter('serviceType', SERVICE_TYPE, 'Only routes for this service type.'),
        queryParameter('serviceCode', string({ maxLength: 50 }), 'Only routes for this service code.'),
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
in the other. Another organization's or environment's objects answer 404. \`/health\`, this document at
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
    { name: TAGS.health, description: 'Public liveness.' },
    { name: TAGS.catalog, description: 'The payer catalog and the serviceable routes.' },
    { name: TAGS.authorizations, description: 'Prior-authorization cases.' },
    {
      name: TAGS.authorizationsAlt,
      description:
        'The same operations and responses under the second path family the spec names; `Location` on create ' +
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
