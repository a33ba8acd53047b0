import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AttachFileUseCase,
  CancelAuthorizationUseCase,
  CompleteFileUseCase,
  CompleteManualHandoffUseCase,
  ConfirmAuthorizationUseCase,
  CreateAuthorizationUseCase,
  CreateFileUseCase,
  CreateLiveSessionGrantUseCase,
  CreateManualHandoffAccessGrantUseCase,
  CreateManualHandoffUseCase,
  PatchAnswersUseCase,
  ResolveGrantTargetUseCase,
  type Authorization,
  type DomainPorts,
  type Environment,
  type File,
  type FinalSubmissionPolicy,
  type AccessGrantLedger,
  type GrantIssuer,
  type PayerEvidenceRecord,
  type PayerPortal,
  type PipelineSettings,
  type PortalAuthMode,
  type QuestionnaireResponseItem,
  type RuntimeSessions,
  type TemplateSelection,
  type TenantScope,
} from '@prior-auth/domain';
import {
  GIVEN_UP_JOBS_QUEUE,
  JOB_TABLE,
  KeysetCursors,
  openTestDataSource,
  startJobBoss,
  TypeOrmAccessGrantStore,
  TypeOrmOrganizationDirectory,
  TypeOrmPayerCatalog,
  TypeOrmPortalAccess,
  TypeOrmPortalConnections,
  TypeOrmPortalCredentials,
  TypeOrmProviderRegistry,
  TypeOrmRuntimeSessionLedger,
  TypeOrmUnitOfWork,
} from '@prior-auth/persistence-postgres';
import { FsBlobStore, SignedBlobUrls } from '@prior-auth/blob-storage';
import { AccessGrantGate, SignedAccessGrants } from '@prior-auth/grants';
import { SandboxRuntimeSessions } from '@prior-auth/payer-portal';
import {
  CredentialsCipher,
  parseCredentialsKeys,
  RandomIdGenerator,
  TokenSigner,
} from '@prior-auth/platform';
import { type PgBoss } from 'pg-boss';
import { type DataSource } from 'typeorm';
import { createWorker, type WorkerCompositionOptions } from '../../src/composition';
import { type SettledJob, type Worker } from '../../src/worker';
import { MemoryLogger, pdfBlobStore } from './fakes';

export const NPI = '1234567893';

/** CPAP device for UnitedHealthcare in California: questionnaire `tmpl_cpap_device`. */
export const CPAP_SELECTION: TemplateSelection = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'E0601',
  serviceCodeSystem: 'hcpcs',
};

/** The route's required documents, all satisfied by one attached file. */
export const CPAP_DOCUMENT_TYPES = ['clinical_notes', 'sleep_study_report'];

/** Every required answer of the CPAP questionnaire (no prior PAP use, AHI ≥ 15: nothing conditional). */
export const cpapAnswers = (memberId: string): QuestionnaireResponseItem[] => [
  { linkId: 'patient.memberId', answer: [{ valueString: memberId }] },
  { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
  { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
  { linkId: 'patient.birthDate', answer: [{ valueDate: '1961-05-14' }] },
  { linkId: 'request.diagnosisCode', answer: [{ valueString: 'G47.33' }] },
  { linkId: 'clinical.sleepStudyType', answer: [{ valueCoding: { code: 'psg' } }] },
  { linkId: 'clinical.sleepStudyDate', answer: [{ valueDate: '2026-01-10' }] },
  { linkId: 'clinical.apneaHypopneaIndex', answer: [{ valueDecimal: 22 }] },
  { linkId: 'clinical.faceToFaceDate', answer: [{ valueDate: '2026-01-05' }] },
  { linkId: 'clinical.priorPapUse', answer: [{ valueBoolean: false }] },
];

export const TEST_SIGNING_SECRET = 'worker-test-signing-secret-0123456789';

/** CREDENTIALS_KEY of the worker tests: what stores portal credentials and what the production portal opens. */
export const testCredentialsCipher = (): CredentialsCipher => {
  const keys = parseCredentialsKeys('d29ya2VyLXRlc3QtY3JlZGVudGlhbHMta2V5LTAwMDE=');
  if (typeof keys === 'string') throw new Error(keys);
  return new CredentialsCipher(keys);
};

/** Fast pipeline timing for tests. */
export const FAST_SETTINGS: Partial<PipelineSettings> = {
  decisionPollIntervalMs: 40,
  handoffReconcileRetryMs: 40,
  handoffReconcileMaxAttempts: 3,
  givenUpRetryMs: 40,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the API runs for a customer (and an operator), on the same ports. */
const customerUseCases = (ports: Omit<DomainPorts, 'payerPortal'>) => ({
  create: new CreateAuthorizationUseCase(ports),
  patch: new PatchAnswersUseCase(ports),
  confirm: new ConfirmAuthorizationUseCase(ports),
  cancel: new CancelAuthorizationUseCase(ports),
  attach: new AttachFileUseCase(ports),
  createFile: new CreateFileUseCase(ports),
  completeFile: new CompleteFileUseCase(ports),
  createHandoff: new CreateManualHandoffUseCase(ports),
  completeHandoff: new CompleteManualHandoffUseCase(ports),
  createHandoffGrant: new CreateManualHandoffAccessGrantUseCase(ports),
  createLiveSessionGrant: new CreateLiveSessionGrantUseCase(ports),
  resolveGrantTarget: new ResolveGrantTargetUseCase(ports),
});

export interface TestWorker {
  worker: Worker;
  boss: PgBoss;
  dataSource: DataSource;
  logger: MemoryLogger;
  settled: SettledJob[];
}

export type TestWorkerOptions = Partial<
  Omit<WorkerCompositionOptions, 'dataSource' | 'logger' | 'portals'>
> & {
  /** How often pg-boss looks for jobs whose heartbeat lapsed (seconds; 1 in tests). */
  superviseIntervalSeconds?: number;
  portal?: PayerPortal;
  portals?: WorkerCompositionOptions['portals'];
};

/** The grant service the API and the worker run, on `ledger`. */
const testGrants = (ledger: AccessGrantLedger): GrantIssuer =>
  new SignedAccessGrants({
    signer: new TokenSigner(TEST_SIGNING_SECRET),
    baseUrl: 'http://localhost:3000',
    clock: { now: () => new Date() },
    ids: new RandomIdGenerator(),
    ledger,
  });

/**
 * One organization with the test NPI, the domain's customer-side use cases on PostgreSQL (what the API runs),
 * and in-process workers, each on its own connection pool like a separate process.
 */
export class Harness {
  // The real adapters on the test database: grants and runtime sessions are rows any process can see.
  readonly grantIssuer: GrantIssuer;
  readonly runtimeSessions: RuntimeSessions;
  /** A real store in a folder of its own: what the workers keep as payer evidence, read back by tests. */
  readonly blobs: FsBlobStore;
  private readonly workers: TestWorker[] = [];
  private readonly useCases: ReturnType<typeof customerUseCases>;
  /** The route `readyCase` creates on (a test may pick another payer's). */
  templateSelection: TemplateSelection = CPAP_SELECTION;

  private constructor(
    readonly dataSource: DataSource,
    readonly organizationId: string,
    readonly scope: TenantScope,
    readonly unitOfWork: TypeOrmUnitOfWork,
    readonly boss: PgBoss,
  ) {
    const adapterOptions = {
      signer: new TokenSigner(TEST_SIGNING_SECRET),
      baseUrl: 'http://localhost:3000',
      clock: { now: () => new Date() },
      ids: new RandomIdGenerator(),
    };
    this.grantIssuer = testGrants(new TypeOrmAccessGrantStore(dataSource));
    this.runtimeSessions = new SandboxRuntimeSessions({
      ...adapterOptions,
      ledger: new TypeOrmRuntimeSessionLedger(dataSource),
    });
    this.blobs = new FsBlobStore({
      root: join(tmpdir(), `worker-test-blobs-${randomBytes(6).toString('hex')}`),
      urls: new SignedBlobUrls({
        publicBaseUrl: 'http://localhost:3000',
        signingSecret: TEST_SIGNING_SECRET,
      }),
    });
    this.useCases = customerUseCases({
      unitOfWork,
      clock: { now: () => new Date() },
      ids: new RandomIdGenerator(),
      providerRegistry: new TypeOrmProviderRegistry(dataSource),
      payerCatalog: new TypeOrmPayerCatalog(dataSource),
      portalAccess: new TypeOrmPortalAccess(dataSource),
      blobStore: pdfBlobStore,
      grantIssuer: this.grantIssuer,
      runtimeSessions: this.runtimeSessions,
    });
  }

  static async open(environment: Environment = 'sandbox'): Promise<Harness> {
    const dataSource = await openTestDataSource(4);
    const organizationId = `org_wt_${randomBytes(6).toString('hex')}`;
    const directory = new TypeOrmOrganizationDirectory(dataSource);
    await directory.createOrganization({ id: organizationId, name: 'Worker test clinic' });
    await directory.registerProviderNpi(organizationId, NPI);
    // What the API runs: enqueues only, in the command's transaction.
    const boss = await startJobBoss({ connectionString: databaseUrl(), role: 'producer', poolSize: 1 });
    const unitOfWork = new TypeOrmUnitOfWork(dataSource, {
      cursors: new KeysetCursors(new TokenSigner(TEST_SIGNING_SECRET)),
      jobBoss: boss,
      grants: testGrants,
      defaultActor: 'test',
    });
    return new Harness(dataSource, organizationId, { organizationId, environment }, unitOfWork, boss);
  }

  /** The same organization in the other environment (NPIs are per organization). */
  async inEnvironment(environment: Environment): Promise<Harness> {
    const dataSource = await openTestDataSource(4);
    const boss = await startJobBoss({ connectionString: databaseUrl(), role: 'producer', poolSize: 1 });
    return new Harness(
      dataSource,
      this.organizationId,
      { organizationId: this.organizationId, environment },
      new TypeOrmUnitOfWork(dataSource, {
        cursors: new KeysetCursors(new TokenSigner(TEST_SIGNING_SECRET)),
        jobBoss: boss,
        grants: testGrants,
        defaultActor: 'test',
      }),
      boss,
    );
  }

  /** A complete case: every answer and document, status requires_confirmation with advance_case. */
  async readyCase(
    memberId: string,
    policy: FinalSubmissionPolicy = 'automatic',
    portalAuthMode?: PortalAuthMode,
  ): Promise<Authorization> {
    const created = await this.useCases.create.execute(this.scope, {
      providerNpi: NPI,
      templateSelection: this.templateSelection,
      ...(portalAuthMode === undefined ? {} : { portalAuthMode }),
      policy: { finalSubmission: policy },
      questionnaireResponse: { item: cpapAnswers(memberId) },
    });
    const attached = await this.attach(created.id, CPAP_DOCUMENT_TYPES);
    if (attached.status !== 'requires_confirmation' || attached.nextAction?.type !== 'advance_case') {
      throw new Error(
        `case not ready: ${attached.status}, requirements ${JSON.stringify(attached.requirements)}`,
      );
    }
    return attached;
  }

  /**
   * What production needs to serve a payer's routes (decision 0021): the payer's portal connection (shared by
   * every organization: tests connect payers no other test file uses) and this organization's credentials.
   */
  async connectPayerPortal(
    payerId: string,
    connection: { baseUrl: string; pageScript: string },
    credentials: { username: string; password: string; totpSecret: string | null } | null,
  ): Promise<void> {
    await new TypeOrmPortalConnections(this.dataSource).set({ payerId, ...connection });
    const store = new TypeOrmPortalCredentials(this.dataSource, testCredentialsCipher);
    if (credentials === null) await store.remove(this.organizationId, payerId);
    else await store.set({ organizationId: this.organizationId, payerId, ...credentials });
  }

  /** Confirms the open next action (advance_case or approve_submission) at the current version. */
  async confirm(authorizationId: string, nextActionId?: string): Promise<Authorization> {
    const current = await this.get(authorizationId);
    return this.useCases.confirm.execute(this.scope, {
      authorizationId,
      expectedVersion: current.version,
      nextActionId: nextActionId ?? current.nextAction?.id,
    });
  }

  async patch(authorizationId: string, items: QuestionnaireResponseItem[]): Promise<Authorization> {
    const current = await this.get(authorizationId);
    return this.useCases.patch.execute(this.scope, {
      authorizationId,
      expectedVersion: current.version,
      items,
    });
  }

  async attach(authorizationId: string, documentTypes: string[]): Promise<Authorization> {
    const { file } = await this.useCases.createFile.execute(this.scope, {
      fileName: 'records.pdf',
      contentType: 'application/pdf',
      sizeBytes: 10,
      purpose: 'authorization_attachment',
    });
    await this.useCases.completeFile.execute(this.scope, { fileId: file.id });
    const current = await this.get(authorizationId);
    const { authorization } = await this.useCases.attach.execute(this.scope, {
      authorizationId,
      expectedVersion: current.version,
      fileId: file.id,
      documentTypes,
      description: null,
    });
    return authorization;
  }

  async cancel(authorizationId: string): Promise<Authorization> {
    const current = await this.get(authorizationId);
    return this.useCases.cancel.execute(this.scope, { authorizationId, expectedVersion: current.version });
  }

  /** An operator takes the payer interaction and reports it done. */
  async completeManualHandoff(authorizationId: string, observedReferenceNumber: string | null) {
    const current = await this.get(authorizationId);
    const { handoff } = await this.useCases.createHandoff.execute(this.scope, {
      authorizationId,
      expectedVersion: current.version,
    });
    return this.useCases.completeHandoff.execute(this.scope, {
      authorizationId,
      manualHandoffId: handoff.id,
      expectedVersion: handoff.version,
      reportedOutcome: 'submitted',
      observedReferenceNumber,
      operatorNotes: null,
    });
  }

  /** An operator takes the payer interaction (the handoff is active, its session provisioned). */
  async createManualHandoff(authorizationId: string) {
    const current = await this.get(authorizationId);
    const { handoff } = await this.useCases.createHandoff.execute(this.scope, {
      authorizationId,
      expectedVersion: current.version,
    });
    return handoff;
  }

  /** The operator's interactive access grant of a handoff (what `POST …/access-grants` issues). */
  handoffAccessGrant(authorizationId: string, manualHandoffId: string) {
    return this.useCases.createHandoffGrant.execute(this.scope, { authorizationId, manualHandoffId });
  }

  /** A read-only live-session grant of the case (what `POST …/live-session/access-grants` issues). */
  liveSessionGrant(authorizationId: string) {
    return this.useCases.createLiveSessionGrant.execute(this.scope, { authorizationId });
  }

  /** Where `GET /grants/{token}` goes on any API process: the gate, on this database, auditing every attempt. */
  grantGate(): AccessGrantGate {
    return new AccessGrantGate({
      ledger: new TypeOrmAccessGrantStore(this.dataSource),
      signer: new TokenSigner(TEST_SIGNING_SECRET),
      clock: { now: () => new Date() },
      resolveSubject: (grant) => this.useCases.resolveGrantTarget.execute(grant),
    });
  }

  /** The evidence rows the workers recorded for a case, oldest capture first. */
  evidence(authorizationId: string): Promise<PayerEvidenceRecord[]> {
    return this.unitOfWork.run(this.scope, (tx) => tx.payerEvidence.listByAuthorization(authorizationId));
  }

  async file(fileId: string): Promise<File> {
    const found = await this.unitOfWork.run(this.scope, (tx) => tx.files.findById(fileId));
    if (found === null) throw new Error(`file ${fileId} not found`);
    return found;
  }

  /** The stored bytes under a blob key (a file's content key). */
  async blobBytes(key: string): Promise<Buffer> {
    const stat = await this.blobs.stat(key);
    if (stat === null) throw new Error(`nothing stored under ${key}`);
    return Buffer.from(await this.blobs.readHead(key, stat.sizeBytes));
  }

  async get(authorizationId: string): Promise<Authorization> {
    const found = await this.unitOfWork.run(this.scope, (tx) => tx.authorizations.findById(authorizationId));
    if (found === null) throw new Error(`authorization ${authorizationId} not found`);
    return found;
  }

  /** Polls the stored case until `predicate` holds (portal runs go through a real browser: allow a minute). */
  async waitFor(
    authorizationId: string,
    predicate: (a: Authorization) => boolean,
    description: string,
    timeoutMs = 60_000,
  ): Promise<Authorization> {
    const deadline = Date.now() + timeoutMs;
    let last: Authorization | null = null;
    while (Date.now() < deadline) {
      last = await this.get(authorizationId);
      if (predicate(last)) return last;
      // Each poll reads the whole case: often enough to see a change quickly, seldom enough that several
      // cases waited on at once do not load the machine.
      await sleep(50);
    }
    throw new Error(
      `timed out waiting for ${authorizationId} to be ${description}; last status ${last?.status}, next action ${last?.nextAction?.type ?? 'none'} ${JSON.stringify(last?.nextAction?.resolution ?? null)}`,
    );
  }

  waitForStatus(authorizationId: string, status: Authorization['status'], timeoutMs?: number) {
    return this.waitFor(authorizationId, (a) => a.status === status, status, timeoutMs);
  }

  /** Waits for an open next action of `type`. */
  waitForAction(authorizationId: string, type: string, timeoutMs?: number) {
    return this.waitFor(authorizationId, (a) => a.nextAction?.type === type, `awaiting ${type}`, timeoutMs);
  }

  /** Starts an in-process worker with fast timing; stopped by `close`. */
  async startWorker(options: TestWorkerOptions = {}): Promise<TestWorker> {
    const dataSource = await openTestDataSource(6);
    const logger = new MemoryLogger();
    const settled: SettledJob[] = [];
    const { portal, portals, onJobSettled, superviseIntervalSeconds, ...rest } = options;
    const boss = await startJobBoss({
      connectionString: databaseUrl(),
      role: 'worker',
      superviseIntervalSeconds: superviseIntervalSeconds ?? 1,
      onError: (error) => logger.error({ error: error.message }, 'job queue error'),
    });
    const worker = createWorker({
      dataSource,
      boss,
      logger,
      concurrency: 4,
      pollIntervalMs: 500,
      grants: testGrants,
      runtimeSessions: this.runtimeSessions,
      signingSecret: TEST_SIGNING_SECRET,
      purge: false,
      pipelineSettings: { sandbox: FAST_SETTINGS, production: FAST_SETTINGS },
      blobStore: this.blobs,
      ...rest,
      portals: portals ?? (portal === undefined ? {} : { sandbox: portal }),
      onJobSettled: (job) => {
        settled.push(job);
        onJobSettled?.(job);
      },
    });
    await worker.start();
    const testWorker = { worker, boss, dataSource, logger, settled };
    this.workers.push(testWorker);
    return testWorker;
  }

  /** Stops a worker as its process would on SIGTERM: the worker, then its pg-boss. */
  static async stopWorker(testWorker: TestWorker, graceMs = 5_000): Promise<void> {
    await testWorker.worker.stop({ graceMs });
    await testWorker.boss.stop({ graceful: false });
  }

  /** This tenant's jobs (not the given-up queue's copies), oldest first, as pg-boss stores them. */
  async jobs(authorizationId?: string): Promise<JobRow[]> {
    return this.dataSource.query(
      `SELECT id, name AS type, data->>'authorizationId' AS authorization_id, state,
              CASE WHEN started_on IS NULL THEN 0 ELSE retry_count + 1 END AS attempts,
              retry_limit + 1 AS max_attempts, start_after, output, data->'payload' AS payload
       FROM ${JOB_TABLE}
       WHERE data->>'organizationId' = $1 AND data->>'environment' = $2 AND name <> $4
         AND ($3::text IS NULL OR data->>'authorizationId' = $3)
       ORDER BY created_on, id`,
      [this.organizationId, this.scope.environment, authorizationId ?? null, GIVEN_UP_JOBS_QUEUE],
    );
  }

  /**
   * The case's jobs once none is still running: a job's handler commits the case before pg-boss marks the job
   * completed, so a case seen settled may still have its last job `active` for a moment.
   */
  async settledJobs(authorizationId: string, timeoutMs = 20_000): Promise<JobRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const jobs = await this.jobs(authorizationId);
      if (jobs.every((job) => job.state !== 'active') || Date.now() > deadline) return jobs;
      await sleep(50);
    }
  }

  /** The given-up queue's jobs of this tenant: what pg-boss dead-lettered, with the source's last output. */
  async givenUp(authorizationId?: string): Promise<GivenUpRow[]> {
    return this.dataSource.query(
      `SELECT id, source_name, data->>'authorizationId' AS authorization_id, state, source_output, output
       FROM ${JOB_TABLE}
       WHERE name = $1 AND data->>'organizationId' = $2 AND ($3::text IS NULL OR data->>'authorizationId' = $3)
       ORDER BY created_on, id`,
      [GIVEN_UP_JOBS_QUEUE, this.organizationId, authorizationId ?? null],
    );
  }

  /**
   * The case's given-up jobs once each is marked done: the resolving handler commits the case before pg-boss
   * completes its job, so a case seen settled may still have its given-up job unfinished for a moment.
   */
  async settledGivenUp(authorizationId: string, timeoutMs = 20_000): Promise<GivenUpRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await this.givenUp(authorizationId);
      const done = rows.length > 0 && rows.every((row) => row.state === 'completed' && row.output !== null);
      if (done || Date.now() > deadline) return rows;
      await sleep(50);
    }
  }

  /** Types of the domain events recorded for an authorization, in order. */
  async eventTypes(authorizationId: string): Promise<string[]> {
    const rows: Array<{ type: string }> = await this.dataSource.query(
      `SELECT action AS type FROM audit_log WHERE organization_id = $1 AND subject_id = $2 AND details ? 'eventId'
        ORDER BY id`,
      [this.organizationId, authorizationId],
    );
    return rows.map((row) => row.type);
  }

  /**
   * Stops the workers, then deletes this tenant's unfinished jobs (a `pending` case polls forever) so the
   * next test's workers never run them.
   */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => Harness.stopWorker(w)));
    await this.dataSource.query(
      `DELETE FROM ${JOB_TABLE} WHERE data->>'organizationId' = $1 AND state < 'completed'`,
      [this.organizationId],
    );
    await Promise.all(this.workers.map((w) => w.dataSource.destroy()));
    this.workers.length = 0;
    await this.boss.stop({ graceful: false });
    await this.dataSource.destroy();
    // A step a stopped worker released may still be writing its evidence here: rm retries until it is done.
    await rm(this.blobs.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

const databaseUrl = (): string => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: is the Jest global setup configured?');
  return url;
};

export interface JobRow {
  id: string;
  type: string;
  authorization_id: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  /** Attempts started so far. */
  attempts: number;
  max_attempts: number;
  start_after: Date;
  /** The outcome of a completed job, or the error of a failed attempt. */
  output: { outcome?: string; error?: string; permanent?: boolean; message?: string } | null;
  payload: Record<string, unknown>;
}

export interface GivenUpRow {
  id: string;
  source_name: string;
  authorization_id: string;
  state: JobRow['state'];
  source_output: JobRow['output'];
  output: { consequence?: string } | null;
}
