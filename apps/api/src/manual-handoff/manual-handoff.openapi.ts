import { header, headers, ref } from '../openapi/openapi.components';
import {
  COMMAND_CONFLICTS,
  jsonBody,
  jsonResponse,
  type Headers,
  type OperationDoc,
} from '../openapi/openapi.operations';
import type { RequestClass } from '../openapi/request-schema';
import { string } from '../openapi/schema-builders';
import {
  CompleteManualHandoffRequest,
  RevokeManualHandoffRequest,
  UnableToCompleteManualHandoffRequest,
} from './manual-handoff.request';

/*
 * What the OpenAPI document says of each manual-handoff and live-session operation beyond its route (decision
 * 0014; the route table is `manual-handoff.routes.ts`): prose, responses and error codes.
 */

const handoff = (description: string, extra: Headers = {}) =>
  jsonResponse(description, ref('ManualHandoff'), { ETag: header('HandoffETag'), ...extra });
const replayable = { 'Idempotent-Replayed': header('IdempotentReplayed') };

/** A command on one handoff: its version in If-Match, a key, a body of its own class. */
const handoffCommand = (
  operationId: string,
  summary: string,
  description: string,
  body: RequestClass,
): OperationDoc => ({
  operationId,
  summary,
  description,
  ifMatch: 'required',
  idempotencyKey: 'required',
  requestBody: jsonBody(body, true),
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
});

export const MANUAL_HANDOFF_OPERATIONS = {
  create: {
    operationId: 'createManualHandoff',
    summary: 'Create a manual handoff',
    description:
      'Hands the open payer interaction to a human. Allowed only while `nextAction.type` is ' +
      '`complete_payer_interaction` with `resolution.kind = manual_handoff`, and once per interaction ' +
      '(`details.manualHandoffId` names the open one). If-Match is the **authorization’s** version; the ' +
      'answer’s ETag is the handoff’s. The handoff is `active` at once: its runtime session is provisioned ' +
      'in the same transaction. From then on automation never resumes for that interaction.',
    ifMatch: 'required',
    idempotencyKey: 'required',
    requestBody: jsonBody('EmptyBody', false),
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
  },
  list: {
    operationId: 'listManualHandoffs',
    summary: 'List an authorization’s manual handoffs',
    responses: { 200: jsonResponse('The handoffs, newest first.', ref('ManualHandoffList')) },
    errors: ['authorization_not_found', 'request_validation_failed', 'template_invalid'],
  },
  retrieve: {
    operationId: 'getManualHandoff',
    summary: 'Retrieve a manual handoff',
    responses: { 200: handoff('The handoff.') },
    errors: ['authorization_not_found', 'manual_handoff_not_found', 'template_invalid'],
  },
  complete: handoffCommand(
    'completeManualHandoff',
    'Complete a manual handoff',
    'Records the operator’s claim; the handoff moves to `closing` with reconciliation `pending` and the ' +
      'authorization returns to `processing`. The worker then looks the reported submission up at the payer: ' +
      'found → receipt, `waiting_on_payer`; not found → back to `requires_action`. Never sets ' +
      '`waiting_on_payer` or `completed` directly. Revokes the handoff’s grants.',
    CompleteManualHandoffRequest,
  ),
  unableToComplete: handoffCommand(
    'unableToCompleteManualHandoff',
    'Report a manual handoff as not completed',
    'Closes the handoff (`unable_to_complete`) and returns the authorization to `processing`; the pipeline ' +
      'checks the payer first and opens a new interaction if a human is still needed. Revokes the grants.',
    UnableToCompleteManualHandoffRequest,
  ),
  revoke: handoffCommand(
    'revokeManualHandoff',
    'Revoke a manual handoff',
    'Closes the handoff (`revoked`) and revokes its grants at once; the authorization stays in ' +
      '`requires_action`. If the operator could have submitted, reconciliation runs before any payer truth ' +
      'is projected.',
    RevokeManualHandoffRequest,
  ),
  createAccessGrant: {
    operationId: 'createManualHandoffAccessGrant',
    summary: 'Create an interactive access grant',
    description: 'Requires the handoff to be `active`. No If-Match.',
    idempotencyKey: 'required',
    requestBody: jsonBody('EmptyBody', false),
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
  },
  getLiveSession: {
    operationId: 'getLiveSession',
    summary: 'Read the live session',
    description: 'Side-effect free; mints no capability.',
    responses: { 200: jsonResponse('The live session, if any.', ref('LiveSession')) },
    errors: ['authorization_not_found', 'request_validation_failed', 'template_invalid'],
  },
  createLiveSessionGrant: {
    operationId: 'createLiveSessionAccessGrant',
    summary: 'Create a read-only live-session grant',
    description: 'A short-lived, read-only view of the current live session; never interactive.',
    idempotencyKey: 'required',
    requestBody: jsonBody('EmptyBody', false),
    responses: { 201: jsonResponse('The grant.', ref('LiveSessionAccessGrant'), replayable) },
    errors: [
      'request_validation_failed',
      'authorization_not_found',
      'live_session_not_available',
      'template_invalid',
      ...COMMAND_CONFLICTS,
    ],
  },
} satisfies Record<string, OperationDoc>;
