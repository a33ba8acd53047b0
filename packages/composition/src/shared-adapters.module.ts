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
import { ContainerModule } from 'inversify';
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
    bind(T.AccessGrantLedger)
      .toDynamicValue((context) => new TypeOrmAccessGrantStore(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
    bind(T.RuntimeSessionLedger)
      .toDynamicValue((context) => new TypeOrmRuntimeSessionLedger(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
    bind(T.LiveFrames)
      .toDynamicValue((context) => new PostgresLiveSessionFrames(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
    bind(T.LiveInputs)
      .toDynamicValue((context) => new PostgresLiveSessionInputs(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
    bind(T.IdempotencyStore)
      .toDynamicValue((context) => new PostgresIdempotencyStore(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
    bind(T.PayerCatalog)
      .toDynamicValue((context) => new TypeOrmPayerCatalog(context.get<DataSource>(T.DataSource)))
      .inSingletonScope();
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
        const signer = context.get<TokenSigner>(T.TokenSigner);
        const baseUrl = context.get<string>(T.BaseUrl);
        const clock = context.get<Clock>(T.Clock);
        const ids = context.get<RandomIdGenerator>(T.Ids);
        return (ledger) => new SignedAccessGrants({ ledger, signer, baseUrl, clock, ids });
      })
      .inSingletonScope();
    bind<HandoffSessionsOn>(T.HandoffSessions)
      .toDynamicValue((context): HandoffSessionsOn => {
        const signer = context.get<TokenSigner>(T.TokenSigner);
        const baseUrl = context.get<string>(T.BaseUrl);
        const clock = context.get<Clock>(T.Clock);
        const ids = context.get<RandomIdGenerator>(T.Ids);
        return (ledger) => new SandboxRuntimeSessions({ ledger, signer, baseUrl, clock, ids });
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
