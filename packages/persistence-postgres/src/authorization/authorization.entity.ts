import type {
  Attachment,
  AuthorizationFailure,
  AuthorizationPolicy,
  DocumentRequirement,
  Environment,
  NextAction,
  Payer,
  PayerDecision,
  PayerReceipt,
  PayerRequest,
  QuestionnaireResponse,
  QuestionnaireTemplate,
  RequirementIssue,
  Requirements,
  SubmissionAttempt,
  TemplateSelection,
} from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/**
 * JSON as stored: dates inside JSONB documents come back as ISO strings, so the mapper revives them. Rows
 * are typed with the stored shape to make that step impossible to forget.
 */
export type Stored<T> = T extends Date
  ? string
  : T extends Array<infer E>
    ? Array<Stored<E>>
    : T extends object
      ? { [K in keyof T]: Stored<T[K]> }
      : T;

export interface StoredSubmission {
  payerReceipt: Stored<PayerReceipt> | null;
  decision: Stored<PayerDecision> | null;
  /** Absent on rows written before decision 0032: read as none. */
  payerRequests?: Array<Stored<PayerRequest>>;
  attempts?: Array<Stored<SubmissionAttempt>>;
}

/** A row of `authorizations` (migration 1763741000000). */
export interface AuthorizationRow {
  organization_id: string;
  environment: Environment;
  id: string;
  version: number;
  status: string;
  outcome: string | null;
  provider_npi: string;
  payer_id: string;
  route_id: string;
  portal_auth_mode: string;
  policy: AuthorizationPolicy;
  payer: Payer;
  template_selection: TemplateSelection;
  /** The case's own questionnaire; null when it is a shared catalog template (`questionnaire_id`). */
  questionnaire: QuestionnaireTemplate | null;
  /** The shared questionnaire's id in `questionnaire_documents` (decision 0059); null when the row has its own. */
  questionnaire_id: string | null;
  document_requirements: DocumentRequirement[];
  portal_issues: RequirementIssue[];
  questionnaire_response: QuestionnaireResponse;
  questionnaire_response_version: number;
  attachment_version: number;
  requirements: Requirements;
  next_action: Stored<NextAction> | null;
  submission: StoredSubmission;
  review_snapshot_id: string | null;
  failure: AuthorizationFailure | null;
  final_boundary_crossed_at: Date | null;
  decision_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  canceled_at: Date | null;
}

/** A row of `authorization_attachments`; `position` keeps the aggregate's order. */
export interface AttachmentRow {
  organization_id: string;
  environment: Environment;
  authorization_id: string;
  id: string;
  position: number;
  file_id: string;
  document_types: string[];
  label: string;
  description: string | null;
  created_at: Date;
}

/** A row of `review_snapshots`. Rows are kept after the aggregate moves on: approved ones are evidence. */
export interface ReviewSnapshotRow {
  organization_id: string;
  environment: Environment;
  id: string;
  authorization_id: string;
  status: string;
  kind: string;
  generated_at: Date;
  covers_authorization_version: number;
  covers_requirements_version: number;
  covers_questionnaire_response_version: number;
  covers_attachment_version: number;
  summary: Record<string, unknown>;
  questionnaire_response: QuestionnaireResponse;
  attachments: Array<Stored<Attachment>>;
  warnings: string[];
  live_view_url: string | null;
  next_action_id: string;
}

const tenantColumns = {
  organization_id: { type: 'text', primary: true },
  environment: { type: 'text', primary: true },
} as const;

export const AuthorizationEntity = new EntitySchema<AuthorizationRow>({
  name: 'authorization',
  tableName: 'authorizations',
  columns: {
    ...tenantColumns,
    id: { type: 'text', primary: true },
    version: { type: 'integer' },
    status: { type: 'text' },
    outcome: { type: 'text', nullable: true },
    provider_npi: { type: 'char', length: 10 },
    payer_id: { type: 'text' },
    route_id: { type: 'text' },
    portal_auth_mode: { type: 'text' },
    policy: { type: 'json' },
    payer: { type: 'json' },
    template_selection: { type: 'json' },
    questionnaire: { type: 'json', nullable: true },
    questionnaire_id: { type: 'text', nullable: true },
    document_requirements: { type: 'json' },
    portal_issues: { type: 'json' },
    questionnaire_response: { type: 'json' },
    questionnaire_response_version: { type: 'integer' },
    attachment_version: { type: 'integer' },
    requirements: { type: 'json' },
    next_action: { type: 'json', nullable: true },
    submission: { type: 'json' },
    review_snapshot_id: { type: 'text', nullable: true },
    failure: { type: 'json', nullable: true },
    final_boundary_crossed_at: { type: 'timestamptz', nullable: true },
    decision_due_at: { type: 'timestamptz', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    completed_at: { type: 'timestamptz', nullable: true },
    canceled_at: { type: 'timestamptz', nullable: true },
  },
});

export const AttachmentEntity = new EntitySchema<AttachmentRow>({
  name: 'authorization_attachment',
  tableName: 'authorization_attachments',
  columns: {
    ...tenantColumns,
    authorization_id: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    position: { type: 'integer' },
    file_id: { type: 'text' },
    document_types: { type: 'text', array: true },
    label: { type: 'text' },
    description: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
  },
});

export const ReviewSnapshotEntity = new EntitySchema<ReviewSnapshotRow>({
  name: 'review_snapshot',
  tableName: 'review_snapshots',
  columns: {
    ...tenantColumns,
    id: { type: 'text', primary: true },
    authorization_id: { type: 'text' },
    status: { type: 'text' },
    kind: { type: 'text' },
    generated_at: { type: 'timestamptz' },
    covers_authorization_version: { type: 'integer' },
    covers_requirements_version: { type: 'integer' },
    covers_questionnaire_response_version: { type: 'integer' },
    covers_attachment_version: { type: 'integer' },
    summary: { type: 'jsonb' },
    questionnaire_response: { type: 'jsonb' },
    attachments: { type: 'jsonb' },
    warnings: { type: 'text', array: true },
    live_view_url: { type: 'text', nullable: true },
    next_action_id: { type: 'text' },
  },
});

export const AUTHORIZATION_ENTITY_SCHEMAS = [AuthorizationEntity, AttachmentEntity, ReviewSnapshotEntity];
