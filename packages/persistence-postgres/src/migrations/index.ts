import { TenancyAndCatalog1763740800000 } from './1763740800000-tenancy-and-catalog';
import { AuthorizationSchema1763741000000 } from './1763741000000-authorization-schema';
import { AccessGrantOpeningAudit1763742000000 } from './1763742000000-access-grant-opening-audit';
import { RuntimeSessions1763743000000 } from './1763743000000-runtime-sessions';
import { FinishedJobsRetention1763744000000 } from './1763744000000-finished-jobs-retention';
import { DropHandWrittenJobQueue1763745000000 } from './1763745000000-drop-hand-written-job-queue';
import { ApiKeyVersion1763748000000 } from './1763748000000-api-key-version';

/** Every committed migration, oldest first. Listed explicitly so builds never depend on file globbing. */
export const MIGRATIONS = [
  TenancyAndCatalog1763740800000,
  AuthorizationSchema1763741000000,
  AccessGrantOpeningAudit1763742000000,
  RuntimeSessions1763743000000,
  FinishedJobsRetention1763744000000,
  DropHandWrittenJobQueue1763745000000,
  ApiKeyVersion1763748000000,
];
