import { TenancyAndCatalog1763740800000 } from './1763740800000-tenancy-and-catalog';
import { AuthorizationSchema1763741000000 } from './1763741000000-authorization-schema';
import { AccessGrantOpeningAudit1763742000000 } from './1763742000000-access-grant-opening-audit';
import { RuntimeSessions1763743000000 } from './1763743000000-runtime-sessions';
import { FinishedJobsRetention1763744000000 } from './1763744000000-finished-jobs-retention';
import { DropHandWrittenJobQueue1763745000000 } from './1763745000000-drop-hand-written-job-queue';
import { ApiKeyVersion1763748000000 } from './1763748000000-api-key-version';
import { PortalConnectionsAndCredentials1763749000000 } from './1763749000000-portal-connections-and-credentials';
import { PayerEvidence1763750000000 } from './1763750000000-payer-evidence';
import { ResourceEvents1763751000000 } from './1763751000000-resource-events';
import { WebhookEndpoints1763752000000 } from './1763752000000-webhook-endpoints';
import { WebhookDeliveries1763754000000 } from './1763754000000-webhook-deliveries';
import { LiveSessionFrames1763755000000 } from './1763755000000-live-session-frames';
import { RateLimitsReadAuditAndKeyRotation1763757000000 } from './1763757000000-rate-limits-read-audit-and-key-rotation';
import { WebhookVersionsAndSingleAttempts1763759000000 } from './1763759000000-webhook-versions-and-single-attempts';
import { LiveSessionInputs1763760000000 } from './1763760000000-live-session-inputs';
import { LiveSessionHeartbeats1763761000000 } from './1763761000000-live-session-heartbeats';
import { CustomerPortalSessions1763766000000 } from './1763766000000-customer-portal-sessions';
import { ReplaySegments1763767000000 } from './1763767000000-replay-segments';
import { SharedEventSnapshots1763768000000 } from './1763768000000-shared-event-snapshots';
import { DomainEventsInAuditLog1763769000000 } from './1763769000000-domain-events-in-audit-log';
import { UncompressedCaseDocuments1763770000000 } from './1763770000000-uncompressed-case-documents';
import { CaseDocumentsAsJson1763771000000 } from './1763771000000-case-documents-as-json';
import { RefuseCommitFunction1763772000000 } from './1763772000000-refuse-commit-function';
import { SharedQuestionnaires1763773000000 } from './1763773000000-shared-questionnaires';
import { SnapshotQuestionnaireReferences1763774000000 } from './1763774000000-snapshot-questionnaire-references';
import { QuestionnaireDocumentsKept1763775000000 } from './1763775000000-questionnaire-documents-kept';

/** Every committed migration, oldest first. Listed explicitly so builds never depend on file globbing. */
export const MIGRATIONS = [
  TenancyAndCatalog1763740800000,
  AuthorizationSchema1763741000000,
  AccessGrantOpeningAudit1763742000000,
  RuntimeSessions1763743000000,
  FinishedJobsRetention1763744000000,
  DropHandWrittenJobQueue1763745000000,
  ApiKeyVersion1763748000000,
  PortalConnectionsAndCredentials1763749000000,
  PayerEvidence1763750000000,
  ResourceEvents1763751000000,
  WebhookEndpoints1763752000000,
  WebhookDeliveries1763754000000,
  LiveSessionFrames1763755000000,
  RateLimitsReadAuditAndKeyRotation1763757000000,
  WebhookVersionsAndSingleAttempts1763759000000,
  LiveSessionInputs1763760000000,
  LiveSessionHeartbeats1763761000000,
  CustomerPortalSessions1763766000000,
  ReplaySegments1763767000000,
  SharedEventSnapshots1763768000000,
  DomainEventsInAuditLog1763769000000,
  UncompressedCaseDocuments1763770000000,
  CaseDocumentsAsJson1763771000000,
  RefuseCommitFunction1763772000000,
  SharedQuestionnaires1763773000000,
  SnapshotQuestionnaireReferences1763774000000,
  QuestionnaireDocumentsKept1763775000000,
];
