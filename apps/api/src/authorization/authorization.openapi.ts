import { CURRENT_API_VERSION, LEGACY_API_VERSION } from '@prior-auth/platform';
import { AUTHORIZATION_PATH_FAMILIES } from '@prior-auth/presentation';
import type { oas31 } from 'openapi3-ts';
import type { Mount } from '../http/route-table';
import { header, headers, ref } from '../openapi/openapi.components';
import {
  COMMAND_CONFLICTS,
  JSON_MEDIA_TYPE,
  jsonBody,
  jsonResponse,
  type Headers,
  type OperationDoc,
} from '../openapi/openapi.operations';
import type { ErrorCode } from '../openapi/error-catalog';
import { string, type SchemaObject } from '../openapi/schema-builders';
import { AttachFileRequest, ConfirmRequest, ListAuthorizationsQuery } from './authorization.request';
import { ResolveActionRequest } from './legacy/legacy-workflow.request';

/*
 * Each authorization operation's entry in the OpenAPI document: its preconditions, query class and request
 * body, and the hand-written prose, examples, responses and error codes. The route table in
 * `authorization.routes.ts` adds the path and its parameters, under both path families.
 */

export { AUTHORIZATION_PATH_FAMILIES };

/** Each path family with the tag and operation-id suffix its copy of an operation gets in the document. */
export const authorizationMounts = (tags: { primary: string; alternate: string }): Mount[] => [
  { path: AUTHORIZATION_PATH_FAMILIES.primary, tag: tags.primary, operationIdSuffix: '' },
  { path: AUTHORIZATION_PATH_FAMILIES.alternate, tag: tags.alternate, operationIdSuffix: 'AltPath' },
];

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

const PATCH_ANSWERS_BODY: oas31.RequestBodyObject = {
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
};

/** An authorization in the request's API version: one document for both (docs/decisions). */
const AUTHORIZATION_BY_VERSION: SchemaObject = {
  oneOf: [ref('Authorization'), ref('LegacyAuthorization')],
  description: `\`Authorization\` under ${CURRENT_API_VERSION}, \`LegacyAuthorization\` under ${LEGACY_API_VERSION}.`,
};

const AUTHORIZATION_LOCATION = `^(${Object.values(AUTHORIZATION_PATH_FAMILIES).join('|')})/auth_[A-Za-z0-9]+$`;

const authorization = (description: string, extra: Headers = {}) =>
  jsonResponse(description, AUTHORIZATION_BY_VERSION, { ETag: header('ETag'), ...extra });
const command = (description: string) =>
  authorization(description, { 'Idempotent-Replayed': header('IdempotentReplayed') });

type CommandDoc = Omit<OperationDoc, 'idempotencyKey' | 'ifMatch'>;

/** A command on one authorization under If-Match: its own errors among those every such command can meet. */
const mutation = (idempotencyKey: 'required' | 'optional', doc: CommandDoc): OperationDoc => ({
  ...doc,
  ifMatch: 'required',
  idempotencyKey,
  errors: [
    'precondition_required',
    'request_validation_failed',
    'version_conflict',
    'authorization_not_found',
    ...doc.errors,
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
const legacyWorkflowCommand = (doc: CommandDoc): OperationDoc => ({
  ...doc,
  ifMatch: 'optional',
  idempotencyKey: 'optional',
  errors: [
    'request_validation_failed',
    'version_conflict',
    'authorization_not_found',
    ...doc.errors,
    'template_invalid',
    ...COMMAND_CONFLICTS,
  ],
});

const CREATE_ERRORS: readonly ErrorCode[] = [
  'final_submission_policy_required',
  'provider_not_found',
  'payer_not_found',
  'unsupported_template_selection',
  'portal_auth_mode_unsupported',
  'request_validation_failed',
  'template_invalid',
  ...COMMAND_CONFLICTS,
];

export const AUTHORIZATION_OPERATIONS = {
  create: {
    operationId: 'createAuthorization',
    summary: 'Create an authorization',
    description:
      'Creates the case at version 1 with the route’s questionnaire and requirements; submits nothing to ' +
      'the payer. `Location` names the path family the request used (a replay answers the stored ' +
      '`Location`, of the family the original request used).',
    idempotencyKey: 'required',
    optionalInVersion: { [LEGACY_API_VERSION]: ['Idempotency-Key'] },
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
    responses: {
      201: authorization('The created authorization.', {
        Location: { ...headers.Location, schema: string({ pattern: AUTHORIZATION_LOCATION }) },
        'Idempotent-Replayed': header('IdempotentReplayed'),
      }),
    },
    errors: CREATE_ERRORS,
  },
  list: {
    operationId: 'listAuthorizations',
    summary: 'List authorizations',
    description: 'Newest first, keyset-paginated.',
    query: ListAuthorizationsQuery,
    responses: {
      200: jsonResponse('A page of authorizations.', {
        // anyOf: an empty page is both.
        anyOf: [ref('AuthorizationList'), ref('LegacyAuthorizationList')],
        description: `The shape of the request's API version (\`LegacyAuthorizationList\` under ${LEGACY_API_VERSION}).`,
      }),
    },
    errors: ['request_validation_failed', 'template_invalid'],
  },
  retrieve: {
    operationId: 'getAuthorization',
    summary: 'Retrieve an authorization',
    description: 'The returned version (also the ETag) is the value to send in If-Match.',
    responses: { 200: authorization('The authorization.') },
    errors: ['authorization_not_found', 'template_invalid'],
  },
  updateLegacy: legacyWorkflowCommand({
    operationId: 'updateAuthorizationLegacy',
    summary: 'Update answers (legacy)',
    description:
      'Merges answers like `PATCH …/answers` and answers the legacy workflow shape whatever the API version.',
    requestBody: PATCH_ANSWERS_BODY,
    responses: { 200: workflow('The updated authorization (legacy workflow shape).') },
    errors: ['authorization_not_mutable'],
  }),
  patchAnswers: mutation('optional', {
    operationId: 'patchAuthorizationAnswers',
    summary: 'Patch answers',
    description:
      'Merges by linkId (and `instance` for a question inside a repeating group): each item sent replaces ' +
      'that item’s answers, an empty `answer` clears it, items not sent are kept. Requirements are ' +
      'recomputed; a value the question refuses is a requirement issue.',
    requestBody: PATCH_ANSWERS_BODY,
    responses: { 200: command('The updated authorization.') },
    errors: ['authorization_not_mutable'],
  }),
  attachFile: mutation('required', {
    operationId: 'attachAuthorizationFile',
    summary: 'Attach a file',
    description:
      'Links a ready file (purpose authorization_attachment). When all blockers clear, the status becomes ' +
      'requires_confirmation with nextAction.type advance_case.',
    requestBody: jsonBody(AttachFileRequest, true),
    responses: { 200: command('The updated authorization.') },
    errors: ['authorization_not_mutable', 'file_not_found', 'file_not_ready', 'file_content_mismatch'],
  }),
  detachAttachment: mutation('optional', {
    operationId: 'deleteAuthorizationAttachment',
    summary: 'Delete an attachment',
    description: 'Unlinks the attachment (the file stays); requirements are recomputed.',
    requestBody: jsonBody('EmptyBody', false),
    responses: { 200: command('The updated authorization.') },
    errors: ['authorization_not_mutable', 'attachment_not_found'],
  }),
  confirm: mutation('required', {
    operationId: 'confirmAuthorization',
    summary: 'Confirm the next action',
    description:
      'advance_case moves the case to processing; approve_submission approves the current review snapshot ' +
      'and crosses the final submission boundary, irreversibly. Checks in order: version_conflict, ' +
      'next_action_required, status (next_action_not_confirmable / authorization_not_confirmable), the ' +
      'action id (review_stale / next_action_mismatch), requirements_not_satisfied, review_stale.',
    requestBody: jsonBody(ConfirmRequest, false),
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
  cancel: mutation('required', {
    operationId: 'cancelAuthorization',
    summary: 'Cancel an authorization',
    description:
      'Stops future processing and rejects later writes; does not reverse a submission the payer already ' +
      'received (payerReceipt and decision are kept). Not allowed from completed or canceled.',
    requestBody: jsonBody('EmptyBody', false),
    responses: { 200: command('The canceled authorization.') },
    errors: ['authorization_not_cancelable'],
  }),
  resolveActionLegacy: legacyWorkflowCommand({
    operationId: 'resolveAuthorizationAction',
    summary: 'Resolve an action item (legacy)',
    description:
      'Answers the payer’s request with attachments already on the case and moves the case on as a ' +
      'confirm of its current action would. Answers the legacy workflow shape whatever the API version.',
    requestBody: jsonBody(ResolveActionRequest, true),
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
} satisfies Record<string, OperationDoc>;
