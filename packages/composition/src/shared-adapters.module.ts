import 'reflect-metadata';
import type {
  AccessGrantLedger,
  BlobStore,
  Clock,
  GrantIssuer,
  HostResolver,
  RuntimeSessionLedger,
} from '@prior-auth/domain';
import { SignedAccessGrants } from '@prior-auth/grants';
import { SandboxRuntimeSessions } from '@prior-auth/payer-portal';
import {
  KeysetCursors,
  PostgresIdempotencyStore,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmAccessGrantStore,
  TypeOrmPayerCatalog,
  TypeOrmRuntimeSessionLedger,
  TypeOrmUnitOfWork,
  type JobBoss,
} from '@prior-auth/persistence-postgres';
import {
  AesGcmWebhookSecretVault,
  DnsHostResolver,
  RandomIdGenerator,
  TokenSigner,
} from '@prior-auth/platform';
import {
  ContainerModule,
  type ContainerModuleLoadOptions,
  type ResolutionContext,
  type ServiceIdentifier,
} from 'inversify';
import type { DataSource } from 'typeorm';
import { ADAPTER_TOKENS as T } from './adapter.tokens';

/** The grant service on a ledger (the pool's, or a transaction's so a close revokes its grants with it). */
export type GrantsOn = (ledger: AccessGrantLedger) => GrantIssuer;
/** The sandbox's handoff sessions on a ledger (the pool's, or a transaction's). */
export type HandoffSessionsOn = (ledger: RuntimeSessionLedger) => SandboxRuntimeSessions;

export interface SharedAdaptersOptions {
  dataSource: DataSource;
  /** The job queue commands enqueue into, in their transaction (decision 0016). */
  jobBoss: JobBoss;
  /** Signs list cursors, grants, session URLs and seals webhook secrets. */
  signingSecret: string;
  /** The public base URL grant and session links point to; needed unless `grants` is given. */
  baseUrl?: string;
  /** The process's blob store (uploaded documents, payer evidence). */
  blobStore: BlobStore;
  /** The system clock when absent (tests move it to see grants expire). */
  clock?: Clock;
  /** The grant service on a ledger; signed grants on this module's signer, clock and ids when absent. */
  grants?: GrantsOn;
  /** DNS when absent (docs/decisions/0031-events-and-webhooks.md). */
  hostResolver?: HostResolver;
  /** The unit of work's audit actor when a transaction names none (the worker's is `worker`). */
  defaultActor?: string;
}

/** Binds `id` to the singleton `build(dataSource)`: an adapter whose one dependency is the pool. */
export function bindOnDataSource<A>(
  bind: ContainerModuleLoadOptions['bind'],
  id: ServiceIdentifier<A>,
  build: (dataSource: DataSource) => A,
): void {
  bind<A>(id)
    .toDynamicValue((context) => build(context.get<DataSource>(T.DataSource)))
    .inSingletonScope();
}

/** What signs the links grants and handoff sessions hand out. */
function linkSigning(context: ResolutionContext) {
  return {
    signer: context.get<TokenSigner>(T.TokenSigner),
    baseUrl: context.get<string>(T.BaseUrl),
    clock: context.get<Clock>(T.Clock),
    ids: context.get<RandomIdGenerator>(T.Ids),
  };
}

/**
 * The adapters the API and the worker both build, bound once here so the two composition roots cannot drift
 * apart (docs/decisions/0041-explicit-transactions-and-container-modules.md). Every binding is a singleton of
 * the loading container; adapters are built on first use.
 */
export function sharedAdaptersModule(options: SharedAdaptersOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<DataSource>(T.DataSource).toConstantValue(options.dataSource);
    bind<JobBoss>(T.JobBoss).toConstantValue(options.jobBoss);
    bind<BlobStore>(T.BlobStore).toConstantValue(options.blobStore);
    bind<Clock>(T.Clock).toConstantValue(options.clock ?? { now: () => new Date() });
    bind(T.Ids)
      .toDynamicValue(() => new RandomIdGenerator())
      .inSingletonScope();
    bind(T.TokenSigner)
      .toDynamicValue(() => new TokenSigner(options.signingSecret))
      .inSingletonScope();
    bind(T.Cursors)
      .toDynamicValue((context) => new KeysetCursors(context.get<TokenSigner>(T.TokenSigner)))
      .inSingletonScope();
    bindOnDataSource(bind, T.AccessGrantLedger, (dataSource) => new TypeOrmAccessGrantStore(dataSource));
    bindOnDataSource(
      bind,
      T.RuntimeSessionLedger,
      (dataSource) => new TypeOrmRuntimeSessionLedger(dataSource),
    );
    bindOnDataSource(bind, T.LiveFrames, (dataSource) => new PostgresLiveSessionFrames(dataSource));
    bindOnDataSource(bind, T.LiveInputs, (dataSource) => new PostgresLiveSessionInputs(dataSource));
    bindOnDataSource(bind, T.IdempotencyStore, (dataSource) => new PostgresIdempotencyStore(dataSource));
    bindOnDataSource(bind, T.PayerCatalog, (dataSource) => new TypeOrmPayerCatalog(dataSource));
    bind(T.WebhookSecretVault)
      .toDynamicValue(() => new AesGcmWebhookSecretVault(options.signingSecret))
      .inSingletonScope();
    bind<HostResolver>(T.HostResolver)
      .toDynamicValue(() => options.hostResolver ?? new DnsHostResolver())
      .inSingletonScope();
    bind<string>(T.BaseUrl).toDynamicValue(() => {
      if (options.baseUrl === undefined) throw new Error('the shared adapters module was given no baseUrl');
      return options.baseUrl;
    });
    bind<GrantsOn>(T.Grants)
      .toDynamicValue((context): GrantsOn => {
        if (options.grants) return options.grants;
        const signing = linkSigning(context);
        return (ledger) => new SignedAccessGrants({ ledger, ...signing });
      })
      .inSingletonScope();
    bind<HandoffSessionsOn>(T.HandoffSessions)
      .toDynamicValue((context): HandoffSessionsOn => {
        const signing = linkSigning(context);
        return (ledger) => new SandboxRuntimeSessions({ ledger, ...signing });
      })
      .inSingletonScope();
    bind(T.UnitOfWork)
      .toDynamicValue(
        (context) =>
          new TypeOrmUnitOfWork(context.get<DataSource>(T.DataSource), {
            cursors: context.get<KeysetCursors>(T.Cursors),
            jobBoss: context.get<JobBoss>(T.JobBoss),
            grants: context.get<GrantsOn>(T.Grants),
            ...(options.defaultActor === undefined ? {} : { defaultActor: options.defaultActor }),
          }),
      )
      .inSingletonScope();
  });
}
