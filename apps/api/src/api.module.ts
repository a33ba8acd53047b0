import type { BlobStorage } from '@prior-auth/blob-storage';
import { bindOnDataSource, type GrantsOn, type HandoffSessionsOn } from '@prior-auth/composition';
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
  DetachAttachmentUseCase,
  EnsureSubmissionPreviewUseCase,
  GetAuthorizationUseCase,
  GetFileUseCase,
  GetLiveSessionUseCase,
  GetManualHandoffUseCase,
  ListAuthorizationsUseCase,
  ListEventsUseCase,
  ListFilesUseCase,
  ListManualHandoffsUseCase,
  PatchAnswersUseCase,
  ResolveGrantTargetUseCase,
  ResolvePayerRequestUseCase,
  RevokeManualHandoffUseCase,
  UnableToCompleteManualHandoffUseCase,
  WebhookEndpointUseCases,
  type BlobStore,
  type Clock,
  type Environment,
  type HostResolver,
  type IdGenerator,
  type OrganizationDirectory,
  type WebhookSecretVault,
} from '@prior-auth/domain';
import { AccessGrantGate } from '@prior-auth/grants';
import { SandboxSessionPage } from '@prior-auth/payer-portal';
import { type AppConfig, type Logger, type TokenSigner } from '@prior-auth/platform';
import {
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  PostgresWebhookDeliveries,
  TypeOrmAccessGrantStore,
  TypeOrmOrganizationDirectory,
  TypeOrmPayerCatalog,
  TypeOrmPortalAccess,
  TypeOrmProviderRegistry,
  TypeOrmReadUnitOfWork,
  TypeOrmRuntimeSessionLedger,
  TypeOrmTransactions,
  TypeOrmUnitOfWork,
  type JobBoss,
  type KeysetCursors,
  type PostgresTransaction,
} from '@prior-auth/persistence-postgres';
import { ContainerModule, type ResolutionContext } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { ReadAuditRecorder } from './audit/read-audit.recorder';
import {
  AuthorizationController,
  type AuthorizationUseCases,
} from './authorization/authorization.controller';
import {
  LegacyWorkflowController,
  type LegacyWorkflowUseCases,
} from './authorization/legacy/legacy-workflow.controller';
import { PdfSubmissionPreviewRenderer } from './authorization/legacy/pdf-submission-preview.renderer';
import { CachedPayerCatalog, CachedProviderRegistry } from './catalog/cached-payer-catalog';
import { CatalogController } from './catalog/catalog.controller';
import { EventController } from './events/event.controller';
import { FileController, type FileUseCases } from './files/file.controller';
import { HealthController } from './health/health.controller';
import { CommandRunner } from './http/command-runner';
import { AuthorizationRepresentations } from './authorization/authorization-representations';
import { ApiRateLimits } from './http/rate-limits.middleware';
import { transactionBound } from './http/transaction-bound';
import { LiveFrameHub } from './live-view/live-frame-hub';
import { LiveViewAccess } from './live-view/live-view-access';
import { LiveViewRuntimeSessions } from './live-view/live-view-runtime-sessions';
import type { LiveViewRouterDeps } from './live-view/live-view.routes';
import {
  ManualHandoffController,
  type ManualHandoffUseCases,
} from './manual-handoff/manual-handoff.controller';
import { SandboxController } from './sandbox/sandbox.controller';
import { TOKENS } from './tokens';
import { WebhookEndpointController } from './webhooks/webhook-endpoint.controller';

export interface ApiModuleOptions {
  config: AppConfig;
  logger: Logger;
  blobStorage: BlobStorage;
  servedEnvironments: readonly Environment[];
  apiKeyCacheTtlMs: number;
}

/**
 * The use cases' ports: on the pool, or (`tx`) all bound to a command's transaction, its units of work joining
 * it directly (docs/performance.md) and every adapter reading on its connection.
 */
function portsOnFrom(context: ResolutionContext) {
  const clock = context.get<Clock>(TOKENS.Clock);
  const ids = context.get<IdGenerator>(TOKENS.Ids);
  const signer = context.get<TokenSigner>(TOKENS.TokenSigner);
  const baseUrl = context.get<string>(TOKENS.BaseUrl);
  const blobStore = context.get<BlobStore>(TOKENS.BlobStore);
  const unitOfWork = context.get<TypeOrmUnitOfWork>(TOKENS.UnitOfWork);
  const providerRegistry = context.get<TypeOrmProviderRegistry>(TOKENS.ProviderRegistry);
  const payerCatalog = context.get<TypeOrmPayerCatalog>(TOKENS.PayerCatalog);
  const portalAccess = context.get<TypeOrmPortalAccess>(TOKENS.PortalAccess);
  const grantLedger = context.get<TypeOrmAccessGrantStore>(TOKENS.AccessGrantLedger);
  const sessionLedger = context.get<TypeOrmRuntimeSessionLedger>(TOKENS.RuntimeSessionLedger);
  const liveInputs = context.get<PostgresLiveSessionInputs>(TOKENS.LiveInputs);
  const grantsOn = context.get<GrantsOn>(TOKENS.Grants);
  const handoffSessionsOn = context.get<HandoffSessionsOn>(TOKENS.HandoffSessions);
  // Reads of rarely changing data, remembered briefly (docs/performance.md); one cache for every command.
  const cachedRegistry = context.get(CachedProviderRegistry);
  const cachedCatalog = context.get(CachedPayerCatalog);
  return (tx?: PostgresTransaction) => {
    const sessions = tx ? sessionLedger.on(tx) : sessionLedger;
    return {
      unitOfWork: tx ? unitOfWork.within(tx) : unitOfWork,
      clock,
      ids,
      providerRegistry: tx ? cachedRegistry.through(providerRegistry.on(tx)) : cachedRegistry,
      payerCatalog: tx ? cachedCatalog.through(payerCatalog.on(tx)) : cachedCatalog,
      portalAccess: tx ? portalAccess.on(tx) : portalAccess,
      blobStore,
      grantIssuer: grantsOn(tx ? grantLedger.on(tx) : grantLedger),
      // Handoff sessions the API provisions, and the live browser sessions of workers' portal runs (0033).
      runtimeSessions: new LiveViewRuntimeSessions(handoffSessionsOn(sessions), {
        ledger: sessions,
        inputs: tx ? liveInputs.on(tx) : liveInputs,
        signer,
        baseUrl,
        clock,
      }),
    };
  };
}

export type PortsOn = ReturnType<typeof portsOnFrom>;
type Ports = ReturnType<PortsOn>;

/**
 * The API's own bindings, on top of the shared adapters module: its adapters, the domain's use cases (bound as
 * dynamic values: the domain has no decorators) and the controllers (`@injectable` classes).
 */
export function apiModule(options: ApiModuleOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const dataSourceOf = (context: ResolutionContext) => context.get<DataSource>(TOKENS.DataSource);
    bind<AppConfig>(TOKENS.Config).toConstantValue(options.config);
    bind<Logger>(TOKENS.Logger).toConstantValue(options.logger);
    bind<BlobStorage>(TOKENS.BlobStorage).toConstantValue(options.blobStorage);
    bind(TOKENS.ServedEnvironments).toConstantValue(options.servedEnvironments);
    bind(TOKENS.ApiKeyCache).toConstantValue({ ttlMs: options.apiKeyCacheTtlMs });
    bind(TOKENS.RateLimits)
      .toDynamicValue(
        (context) =>
          new ApiRateLimits(
            dataSourceOf(context),
            {
              perSecond: options.config.RATE_LIMIT_PER_SECOND,
              burst: options.config.RATE_LIMIT_BURST,
              authFailuresPerMinute: options.config.AUTH_FAILURES_PER_MINUTE,
            },
            options.logger,
          ),
      )
      .inSingletonScope();
    bindOnDataSource(
      bind,
      TOKENS.ReadAudit,
      (dataSource) => new ReadAuditRecorder(dataSource, options.logger),
    );
    bindOnDataSource<OrganizationDirectory>(
      bind,
      TOKENS.OrganizationDirectory,
      (dataSource) => new TypeOrmOrganizationDirectory(dataSource),
    );
    // Not cached: a portal connection or credentials set or removed with the admin CLI applies at once.
    bindOnDataSource(bind, TOKENS.PortalAccess, (dataSource) => new TypeOrmPortalAccess(dataSource));
    bindOnDataSource(bind, TOKENS.ProviderRegistry, (dataSource) => new TypeOrmProviderRegistry(dataSource));
    bind(CachedProviderRegistry)
      .toDynamicValue(
        (context) =>
          new CachedProviderRegistry(context.get<TypeOrmProviderRegistry>(TOKENS.ProviderRegistry)),
      )
      .inSingletonScope();
    bind(CachedPayerCatalog)
      .toDynamicValue(
        (context) => new CachedPayerCatalog(context.get<TypeOrmPayerCatalog>(TOKENS.PayerCatalog)),
      )
      .inSingletonScope();
    // Commands: their transactions, idempotency records (the shared module's), and the use cases on their ports.
    bindOnDataSource(bind, TOKENS.Transactions, (dataSource) => new TypeOrmTransactions(dataSource));
    bind<PortsOn>(TOKENS.PortsOn).toDynamicValue(portsOnFrom).inSingletonScope();
    // Retrieve and list outside a command: no transaction, one statement each (docs/performance.md).
    bind<Ports>(TOKENS.PoolReads)
      .toDynamicValue((context) => ({
        ...context.get<PortsOn>(TOKENS.PortsOn)(),
        unitOfWork: new TypeOrmReadUnitOfWork(
          dataSourceOf(context),
          context.get<TypeOrmUnitOfWork>(TOKENS.UnitOfWork),
        ),
      }))
      .inSingletonScope();
    bind(TOKENS.AccessGrantGate)
      .toDynamicValue((context) => {
        const resolveGrantTarget = new ResolveGrantTargetUseCase(context.get<PortsOn>(TOKENS.PortsOn)());
        return new AccessGrantGate({
          ledger: context.get<TypeOrmAccessGrantStore>(TOKENS.AccessGrantLedger),
          signer: context.get<TokenSigner>(TOKENS.TokenSigner),
          clock: context.get<Clock>(TOKENS.Clock),
          resolveSubject: (grant) => resolveGrantTarget.execute(grant),
        });
      })
      .inSingletonScope();
    bind<LiveViewRouterDeps>(TOKENS.LiveView)
      .toDynamicValue((context) => {
        const sessions = context.get<TypeOrmRuntimeSessionLedger>(TOKENS.RuntimeSessionLedger);
        const frames = context.get<PostgresLiveSessionFrames>(TOKENS.LiveFrames);
        return {
          access: new LiveViewAccess({
            grants: context.get<TypeOrmAccessGrantStore>(TOKENS.AccessGrantLedger),
            sessions,
            signer: context.get<TokenSigner>(TOKENS.TokenSigner),
            clock: context.get<Clock>(TOKENS.Clock),
          }),
          hub: new LiveFrameHub(frames),
          frames,
          inputs: context.get<PostgresLiveSessionInputs>(TOKENS.LiveInputs),
          sessions,
          logger: options.logger,
        };
      })
      .inSingletonScope();
    bind(TOKENS.SandboxSessionPage)
      .toDynamicValue(
        (context) =>
          new SandboxSessionPage({
            ledger: context.get<TypeOrmRuntimeSessionLedger>(TOKENS.RuntimeSessionLedger),
            signer: context.get<TokenSigner>(TOKENS.TokenSigner),
            clock: context.get<Clock>(TOKENS.Clock),
            onError: (error) => options.logger.error({ err: error }, 'sandbox session page failed'),
          }),
      )
      .inSingletonScope();
    bind(PdfSubmissionPreviewRenderer)
      .toDynamicValue(() => new PdfSubmissionPreviewRenderer())
      .inSingletonScope();
    /** A transaction-bound use case set: its use cases on the pool's ports, and `within(tx)` on tx's. */
    const bindUseCases = <U extends object>(
      id: symbol,
      build: (context: ResolutionContext) => (ports: Ports, tx?: PostgresTransaction) => U,
    ) => {
      bind(id)
        .toDynamicValue((context) => {
          const portsOn = context.get<PortsOn>(TOKENS.PortsOn);
          const useCasesOn = build(context);
          return transactionBound<U>((tx) => useCasesOn(portsOn(tx), tx));
        })
        .inSingletonScope();
    };
    bindUseCases<AuthorizationUseCases>(TOKENS.AuthorizationUseCases, (context) => {
      const poolReads = context.get<Ports>(TOKENS.PoolReads);
      return (ports, tx) => {
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
      };
    });
    bindUseCases<LegacyWorkflowUseCases>(TOKENS.LegacyWorkflowUseCases, (context) => {
      const poolReads = context.get<Ports>(TOKENS.PoolReads);
      const renderer = context.get(PdfSubmissionPreviewRenderer);
      return (ports, tx) => ({
        get: new GetAuthorizationUseCase(tx ? ports : poolReads),
        patchAnswers: new PatchAnswersUseCase(ports),
        resolveAction: new ResolvePayerRequestUseCase(ports),
        preview: new EnsureSubmissionPreviewUseCase({ ...ports, renderer }),
      });
    });
    bindUseCases<ManualHandoffUseCases>(TOKENS.ManualHandoffUseCases, () => (ports) => ({
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
    }));
    bindUseCases<FileUseCases>(TOKENS.FileUseCases, () => (ports) => ({
      create: new CreateFileUseCase(ports),
      complete: new CompleteFileUseCase(ports),
      get: new GetFileUseCase(ports),
      list: new ListFilesUseCase(ports),
    }));

    bind(ApiKeyAuthenticator).toSelf().inSingletonScope();
    bind(CommandRunner).toSelf().inSingletonScope();
    bind(AuthorizationRepresentations).toSelf().inSingletonScope();
    bind(AuthorizationController).toSelf().inSingletonScope();
    bind(LegacyWorkflowController).toSelf().inSingletonScope();
    bind(ManualHandoffController).toSelf().inSingletonScope();
    bind(CatalogController).toSelf().inSingletonScope();
    bind(SandboxController).toSelf().inSingletonScope();
    bind(FileController).toSelf().inSingletonScope();
    bind(HealthController).toSelf().inSingletonScope();
    bind(EventController)
      .toDynamicValue(
        (context) => new EventController(new ListEventsUseCase(context.get<Ports>(TOKENS.PoolReads))),
      )
      .inSingletonScope();
    bind(WebhookEndpointController)
      .toDynamicValue(
        (context) =>
          new WebhookEndpointController(
            new WebhookEndpointUseCases({
              ...context.get<PortsOn>(TOKENS.PortsOn)(),
              secrets: context.get<WebhookSecretVault>(TOKENS.WebhookSecretVault),
              hostResolver: context.get<HostResolver>(TOKENS.HostResolver),
              deliveries: new PostgresWebhookDeliveries(
                dataSourceOf(context),
                context.get<KeysetCursors>(TOKENS.Cursors),
                context.get<JobBoss>(TOKENS.JobBoss),
              ),
            }),
          ),
      )
      .inSingletonScope();
  });
}
