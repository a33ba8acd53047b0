import 'reflect-metadata';
import type { BlobStorage } from '@prior-auth/blob-storage';
import {
  AttachFileUseCase,
  CancelAuthorizationUseCase,
  CompleteFileUseCase,
  CompleteManualHandoffUseCase,
  ConfirmAuthorizationUseCase,
  CreateLiveSessionGrantUseCase,
  CreateManualHandoffAccessGrantUseCase,
  CreateManualHandoffUseCase,
  CreateAuthorizationUseCase,
  CreateFileUseCase,
  DetachAttachmentUseCase,
  GetAuthorizationUseCase,
  GetFileUseCase,
  GetLiveSessionUseCase,
  GetManualHandoffUseCase,
  ListAuthorizationsUseCase,
  ListEventsUseCase,
  WebhookEndpointUseCases,
  type AccessGrantLedger,
  type HostResolver,
  ListFilesUseCase,
  ListManualHandoffsUseCase,
  PatchAnswersUseCase,
  ResolveGrantTargetUseCase,
  RevokeManualHandoffUseCase,
  UnableToCompleteManualHandoffUseCase,
  type Clock,
  type Environment,
  type OrganizationDirectory,
  ResolvePayerRequestUseCase,
  EnsureSubmissionPreviewUseCase,
} from '@prior-auth/domain';
import { PdfSubmissionPreviewRenderer } from './authorization/legacy/pdf-submission-preview.renderer';
import {
  LegacyWorkflowController,
  type LegacyWorkflowUseCases,
} from './authorization/legacy/legacy-workflow.controller';
import { AccessGrantGate, SignedAccessGrants } from '@prior-auth/grants';
import { SandboxRuntimeSessions, SandboxSessionPage } from '@prior-auth/payer-portal';
import {
  AesGcmWebhookSecretVault,
  DnsHostResolver,
  publicBaseUrl,
  RandomIdGenerator,
  TokenSigner,
  type AppConfig,
  type Logger,
} from '@prior-auth/platform';
import {
  KeysetCursors,
  PostgresWebhookDeliveries,
  PostgresIdempotencyStore,
  TypeOrmAccessGrantStore,
  TypeOrmOrganizationDirectory,
  TypeOrmPayerCatalog,
  TypeOrmPortalAccess,
  TypeOrmProviderRegistry,
  TypeOrmReadUnitOfWork,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
  TypeOrmTransactions,
  TypeOrmUnitOfWork,
  type JobBoss,
  type PostgresTransaction,
} from '@prior-auth/persistence-postgres';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { API_KEY_CACHE_TTL_MS, ApiKeyAuthenticator } from './auth/api-key-authenticator';
import {
  AuthorizationController,
  type AuthorizationUseCases,
} from './authorization/authorization.controller';
import { CachedPayerCatalog, CachedProviderRegistry } from './catalog/cached-payer-catalog';
import { CatalogController } from './catalog/catalog.controller';
import { SandboxController } from './sandbox/sandbox.controller';
import { openBlobStorage } from './files/blob-storage';
import { FileController, type FileUseCases } from './files/file.controller';
import { EventController } from './events/event.controller';
import { WebhookEndpointController } from './webhooks/webhook-endpoint.controller';
import { HealthController } from './health/health.controller';
import { CommandRunner } from './http/command-runner';
import { transactionBound } from './http/transaction-bound';
import {
  ManualHandoffController,
  type ManualHandoffUseCases,
} from './manual-handoff/manual-handoff.controller';
import { ReadAuditRecorder } from './audit/read-audit.recorder';
import { ApiRateLimits } from './http/rate-limits.middleware';
import { LiveFrameHub } from './live-view/live-frame-hub';
import { LiveViewAccess } from './live-view/live-view-access';
import { LiveViewRuntimeSessions } from './live-view/live-view-runtime-sessions';
import { TOKENS } from './tokens';

export interface ApiDependencies {
  config: AppConfig;
  logger: Logger;
  dataSource: DataSource;
  servedEnvironments?: readonly Environment[];
  /**
   * The file bytes' store; opened from BLOB_STORAGE_URL when not given. Whoever opens it closes it at shutdown
   * (`main` passes its own; otherwise close `container.get(TOKENS.BlobStorage)`).
   */
  blobStorage?: BlobStorage;
  /** The clock of use cases and grants; the system clock when absent (tests move it to see grants expire). */
  clock?: Clock;
  /**
   * How long a key found active is trusted without a lookup (API_KEY_CACHE_TTL_MS when absent): the bound on
   * how late a revocation takes effect. Tests shorten it.
   */
  apiKeyCacheTtlMs?: number;
  /** The job queue commands enqueue into, in their transaction (startJobBoss as a producer; decision 0016). */
  jobBoss: JobBoss;
  /** Resolves webhook hosts for the address rule (docs/decisions/0031-events-and-webhooks.md); DNS when absent. */
  hostResolver?: HostResolver;
}

/** The API's composition root: adapters bound to ports, controllers bound as singletons. */
export function buildContainer(deps: ApiDependencies): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(deps.config);
  container.bind(TOKENS.Logger).toConstantValue(deps.logger);
  container.bind(TOKENS.DataSource).toConstantValue(deps.dataSource);
  container
    .bind(TOKENS.ServedEnvironments)
    .toConstantValue(deps.servedEnvironments ?? ['sandbox', 'production']);
  container
    .bind(TOKENS.ApiKeyCache)
    .toConstantValue({ ttlMs: deps.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS });
  container.bind(TOKENS.RateLimits).toConstantValue(
    new ApiRateLimits(
      deps.dataSource,
      {
        perSecond: deps.config.RATE_LIMIT_PER_SECOND,
        burst: deps.config.RATE_LIMIT_BURST,
        authFailuresPerMinute: deps.config.AUTH_FAILURES_PER_MINUTE,
      },
      deps.logger,
    ),
  );
  container.bind(TOKENS.ReadAudit).toConstantValue(new ReadAuditRecorder(deps.dataSource, deps.logger));
  container
    .bind<OrganizationDirectory>(TOKENS.OrganizationDirectory)
    .toConstantValue(new TypeOrmOrganizationDirectory(deps.dataSource));
  if (!deps.config.SIGNING_SECRET) throw new Error('SIGNING_SECRET is required to run the API');
  const signer = new TokenSigner(deps.config.SIGNING_SECRET);
  container.bind(TOKENS.TokenSigner).toConstantValue(signer);
  const payerCatalog = new TypeOrmPayerCatalog(deps.dataSource);
  container.bind(TOKENS.PayerCatalog).toConstantValue(payerCatalog);
  // Not cached: a portal connection or credentials set or removed with the admin CLI applies at once.
  const portalAccess = new TypeOrmPortalAccess(deps.dataSource);
  container.bind(TOKENS.PortalAccess).toConstantValue(portalAccess);
  const blobStorage = deps.blobStorage ?? openBlobStorage(deps.config);
  container.bind<BlobStorage>(TOKENS.BlobStorage).toConstantValue(blobStorage);

  // Commands: their transactions, idempotency records, and the use cases on their ports.
  container.bind(TOKENS.Transactions).toConstantValue(new TypeOrmTransactions(deps.dataSource));
  container.bind(TOKENS.IdempotencyStore).toConstantValue(new PostgresIdempotencyStore(deps.dataSource));
  const clock: Clock = deps.clock ?? { now: () => new Date() };
  const ids = new RandomIdGenerator();
  const baseUrl = publicBaseUrl(deps.config);
  const grantLedger = new TypeOrmAccessGrantStore(deps.dataSource);
  const sessionLedger = new TypeOrmRuntimeSessionLedger(deps.dataSource);
  const liveFrames = new PostgresLiveSessionFrames(deps.dataSource);
  const liveInputs = new PostgresLiveSessionInputs(deps.dataSource);
  const grantsOn = (ledger: AccessGrantLedger) =>
    new SignedAccessGrants({ ledger, signer, baseUrl, clock, ids });
  const unitOfWork = new TypeOrmUnitOfWork(deps.dataSource, {
    cursors: new KeysetCursors(signer),
    jobBoss: deps.jobBoss,
    grants: grantsOn,
  });
  const providerRegistry = new TypeOrmProviderRegistry(deps.dataSource);
  // Reads of rarely changing data, remembered briefly (docs/performance.md).
  const cachedRegistry = new CachedProviderRegistry(providerRegistry);
  const cachedCatalog = new CachedPayerCatalog(payerCatalog);
  /**
   * The use cases' ports: on the pool, or (`tx`) all bound to a command's transaction, its units of work
   * joining it directly (docs/performance.md) and every adapter reading on its connection.
   */
  const portsOn = (tx?: PostgresTransaction) => {
    const sessions = tx ? sessionLedger.on(tx) : sessionLedger;
    return {
      unitOfWork: tx ? unitOfWork.within(tx) : unitOfWork,
      clock,
      ids,
      providerRegistry: tx ? cachedRegistry.through(providerRegistry.on(tx)) : cachedRegistry,
      payerCatalog: tx ? cachedCatalog.through(payerCatalog.on(tx)) : cachedCatalog,
      portalAccess: tx ? portalAccess.on(tx) : portalAccess,
      blobStore: blobStorage.store,
      grantIssuer: grantsOn(tx ? grantLedger.on(tx) : grantLedger),
      // Handoff sessions the API provisions, and the live browser sessions of workers' portal runs (0033).
      runtimeSessions: new LiveViewRuntimeSessions(
        new SandboxRuntimeSessions({ ledger: sessions, signer, baseUrl, clock, ids }),
        { ledger: sessions, inputs: tx ? liveInputs.on(tx) : liveInputs, signer, baseUrl, clock },
      ),
    };
  };
  const poolPorts = portsOn();
  // Retrieve and list outside a command: no transaction, one statement each (docs/performance.md).
  const poolReads = { ...poolPorts, unitOfWork: new TypeOrmReadUnitOfWork(deps.dataSource, unitOfWork) };
  const resolveGrantTarget = new ResolveGrantTargetUseCase(poolPorts);
  container.bind(TOKENS.AccessGrantGate).toConstantValue(
    new AccessGrantGate({
      ledger: grantLedger,
      signer,
      clock,
      resolveSubject: (grant) => resolveGrantTarget.execute(grant),
    }),
  );
  container.bind(TOKENS.LiveView).toConstantValue({
    access: new LiveViewAccess({ grants: grantLedger, sessions: sessionLedger, signer, clock }),
    hub: new LiveFrameHub(liveFrames),
    frames: liveFrames,
    inputs: liveInputs,
    sessions: sessionLedger,
    logger: deps.logger,
  });
  container.bind(TOKENS.SandboxSessionPage).toConstantValue(
    new SandboxSessionPage({
      ledger: sessionLedger,
      signer,
      clock,
      onError: (error) => deps.logger.error({ err: error }, 'sandbox session page failed'),
    }),
  );
  const renderer = new PdfSubmissionPreviewRenderer();
  container.bind(TOKENS.AuthorizationUseCases).toConstantValue(
    transactionBound<AuthorizationUseCases>((tx) => {
      const ports = portsOn(tx);
      const reads = tx ? ports : poolReads;
      return {
        create: new CreateAuthorizationUseCase(ports),
        get: new GetAuthorizationUseCase(reads),
        list: new ListAuthorizationsUseCase(reads),
        patchAnswers: new PatchAnswersUseCase(ports),
        attachFile: new AttachFileUseCase(ports),
        detachAttachment: new DetachAttachmentUseCase(ports),
        confirm: new ConfirmAuthorizationUseCase(ports),
        cancel: new CancelAuthorizationUseCase(ports),
      };
    }),
  );
  container.bind(TOKENS.LegacyWorkflowUseCases).toConstantValue(
    transactionBound<LegacyWorkflowUseCases>((tx) => {
      const ports = portsOn(tx);
      return {
        get: new GetAuthorizationUseCase(tx ? ports : poolReads),
        patchAnswers: new PatchAnswersUseCase(ports),
        resolveAction: new ResolvePayerRequestUseCase(ports),
        preview: new EnsureSubmissionPreviewUseCase({ ...ports, renderer }),
      };
    }),
  );
  container.bind(TOKENS.ManualHandoffUseCases).toConstantValue(
    transactionBound<ManualHandoffUseCases>((tx) => {
      const ports = portsOn(tx);
      return {
        getAuthorization: new GetAuthorizationUseCase(ports),
        create: new CreateManualHandoffUseCase(ports),
        get: new GetManualHandoffUseCase(ports),
        list: new ListManualHandoffsUseCase(ports),
        complete: new CompleteManualHandoffUseCase(ports),
        unableToComplete: new UnableToCompleteManualHandoffUseCase(ports),
        revoke: new RevokeManualHandoffUseCase(ports),
        createAccessGrant: new CreateManualHandoffAccessGrantUseCase(ports),
        getLiveSession: new GetLiveSessionUseCase(ports),
        createLiveSessionGrant: new CreateLiveSessionGrantUseCase(ports),
      };
    }),
  );
  container.bind(TOKENS.FileUseCases).toConstantValue(
    transactionBound<FileUseCases>((tx) => {
      const ports = portsOn(tx);
      return {
        create: new CreateFileUseCase(ports),
        complete: new CompleteFileUseCase(ports),
        get: new GetFileUseCase(ports),
        list: new ListFilesUseCase(ports),
      };
    }),
  );

  container.bind(ApiKeyAuthenticator).toSelf();
  container.bind(CommandRunner).toSelf();
  container.bind(AuthorizationController).toSelf();
  container.bind(LegacyWorkflowController).toSelf();
  container.bind(ManualHandoffController).toSelf();
  container.bind(CatalogController).toSelf();
  container.bind(SandboxController).toSelf();
  container.bind(FileController).toSelf();
  container.bind(EventController).toConstantValue(new EventController(new ListEventsUseCase(poolReads)));
  container.bind(WebhookEndpointController).toConstantValue(
    new WebhookEndpointController(
      new WebhookEndpointUseCases({
        ...poolPorts,
        secrets: new AesGcmWebhookSecretVault(deps.config.SIGNING_SECRET),
        hostResolver: deps.hostResolver ?? new DnsHostResolver(),
        deliveries: new PostgresWebhookDeliveries(deps.dataSource, new KeysetCursors(signer), deps.jobBoss),
      }),
    ),
  );
  container.bind(HealthController).toSelf();
  return container;
}
