import {
  EndAbandonedLiveSessionsUseCase,
  type BlobStore,
  type Clock,
  type HostResolver,
  type IdGenerator,
  type LiveSessionFrames,
  type LiveSessionInputs,
  type RuntimeSessionLedger,
  type RuntimeSessions,
  type UnitOfWork,
  type WebhookSecretVault,
} from '@prior-auth/domain';
import { ADAPTER_TOKENS, type HandoffSessionsOn } from '@prior-auth/composition';
import {
  END_ABANDONED_LIVE_SESSIONS_QUEUE,
  PostgresEventRetention,
  PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
  PURGE_REPLAY_SEGMENTS_QUEUE,
  PURGE_EVENTS_QUEUE,
  PURGE_IDEMPOTENCY_QUEUE,
  type JobBoss,
  type PostgresIdempotencyStore,
} from '@prior-auth/persistence-postgres';
import { ContainerModule, type ResolutionContext } from 'inversify';
import type { DataSource } from 'typeorm';
import { createGiveUpRouter, createJobHandlers, type JobHandlers } from './job-handlers';
import { webhookDeliveryConsumer } from './webhooks/webhook-delivery.consumer';
import { type QueueConsumer, type ScheduledTask, Worker } from './worker';
import type { WorkerCompositionOptions } from './composition';

/** Inversify identifiers of what the worker's own module binds. */

/** A store whose rows expire, purged on the worker's schedule. */
interface ExpiringStore {
  purgeExpired(now: Date): Promise<unknown>;
}

export const WORKER_TOKENS = {
  RuntimeSessions: Symbol.for('WorkerRuntimeSessions'),
  JobHandlers: Symbol.for('WorkerJobHandlers'),
  GiveUp: Symbol.for('WorkerGiveUp'),
  ScheduledTasks: Symbol.for('WorkerScheduledTasks'),
  QueueConsumers: Symbol.for('WorkerQueueConsumers'),
  EndAbandonedLiveSessions: Symbol.for('EndAbandonedLiveSessions'),
  Worker: Symbol.for('Worker'),
} as const;

/**
 * Expired idempotency records (kept ≥ 24 h, decision 0023) are purged every 10 minutes, by one worker of the
 * cluster (a pg-boss schedule). Finished jobs are deleted by pg-boss itself after their queue's retention.
 */
export const PURGE_CRON = '*/10 * * * *';
/**
 * Live sessions left by a process that died are ended every minute (decision 0039): within about two minutes
 * of the death (LIVE_SESSION_ABANDONED_AFTER_MS without a beat, then the next run).
 */
export const END_ABANDONED_LIVE_SESSIONS_CRON = '* * * * *';

/** The ports every pipeline use case takes, from the shared adapters module. */
function pipelinePorts(context: ResolutionContext) {
  return {
    unitOfWork: context.get<UnitOfWork>(ADAPTER_TOKENS.UnitOfWork),
    clock: context.get<Clock>(ADAPTER_TOKENS.Clock),
    ids: context.get<IdGenerator>(ADAPTER_TOKENS.Ids),
  };
}

/**
 * The worker's own bindings, on top of the shared adapters module: the domain's pipeline use cases behind the
 * job handlers, the scheduled tasks, the webhook deliveries' consumer and the worker itself.
 */
export function workerModule(options: WorkerCompositionOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<RuntimeSessions>(WORKER_TOKENS.RuntimeSessions)
      .toDynamicValue(
        (context) =>
          options.runtimeSessions ??
          context.get<HandoffSessionsOn>(ADAPTER_TOKENS.HandoffSessions)(
            context.get<RuntimeSessionLedger>(ADAPTER_TOKENS.RuntimeSessionLedger),
          ),
      )
      .inSingletonScope();
    bind<JobHandlers>(WORKER_TOKENS.JobHandlers)
      .toDynamicValue((context) =>
        createJobHandlers({
          ...pipelinePorts(context),
          portals: options.portals,
          pipelineSettings: options.pipelineSettings,
          runtimeSessions: context.get<RuntimeSessions>(WORKER_TOKENS.RuntimeSessions),
          blobStore: context.get<BlobStore>(ADAPTER_TOKENS.BlobStore),
        }),
      )
      .inSingletonScope();
    bind(WORKER_TOKENS.GiveUp)
      .toDynamicValue((context) =>
        createGiveUpRouter({
          ...pipelinePorts(context),
          pipelineSettings: options.pipelineSettings,
        }),
      )
      .inSingletonScope();
    bind(WORKER_TOKENS.EndAbandonedLiveSessions)
      .toDynamicValue(
        (context) =>
          new EndAbandonedLiveSessionsUseCase({
            ...pipelinePorts(context),
            runtimeSessions: context.get<RuntimeSessions>(WORKER_TOKENS.RuntimeSessions),
            ledger: context.get<RuntimeSessionLedger>(ADAPTER_TOKENS.RuntimeSessionLedger),
            frames: context.get<LiveSessionFrames>(ADAPTER_TOKENS.LiveFrames),
            inputs: context.get<LiveSessionInputs>(ADAPTER_TOKENS.LiveInputs),
          }),
      )
      .inSingletonScope();
    bind<ScheduledTask[]>(WORKER_TOKENS.ScheduledTasks)
      .toDynamicValue((context) => {
        const clock = context.get<Clock>(ADAPTER_TOKENS.Clock);
        const tasks: ScheduledTask[] = [];
        if (options.purge ?? true) {
          // Everything past its retention, on one schedule, once per cluster: idempotency records, events
          // (docs/decisions/0031-events-and-webhooks.md), customers' portal sessions (decision 0044) and portal
          // run replays (decision 0045) when this process keeps them.
          const purges: Array<[queue: ScheduledTask['queue'], store: ExpiringStore | undefined]> = [
            [PURGE_IDEMPOTENCY_QUEUE, context.get<PostgresIdempotencyStore>(ADAPTER_TOKENS.IdempotencyStore)],
            [
              PURGE_EVENTS_QUEUE,
              new PostgresEventRetention(context.get<DataSource>(ADAPTER_TOKENS.DataSource)),
            ],
            [PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE, options.customerSessions],
            [PURGE_REPLAY_SEGMENTS_QUEUE, options.replaySegments],
          ];
          for (const [queue, store] of purges) {
            if (store !== undefined)
              tasks.push({ queue, cron: PURGE_CRON, run: () => store.purgeExpired(clock.now()) });
          }
        }
        const sweep = context.get<EndAbandonedLiveSessionsUseCase>(WORKER_TOKENS.EndAbandonedLiveSessions);
        tasks.push({
          queue: END_ABANDONED_LIVE_SESSIONS_QUEUE,
          cron: END_ABANDONED_LIVE_SESSIONS_CRON,
          run: async () => (await sweep.execute()).length,
        });
        return tasks;
      })
      .inSingletonScope();
    bind<QueueConsumer[]>(WORKER_TOKENS.QueueConsumers)
      .toDynamicValue((context) =>
        // Webhook deliveries only with the SIGNING_SECRET that sealed the endpoints' secrets.
        options.signingSecret === undefined
          ? []
          : [
              webhookDeliveryConsumer({
                dataSource: context.get<DataSource>(ADAPTER_TOKENS.DataSource),
                boss: context.get<JobBoss>(ADAPTER_TOKENS.JobBoss),
                clock: context.get<Clock>(ADAPTER_TOKENS.Clock),
                vault: context.get<WebhookSecretVault>(ADAPTER_TOKENS.WebhookSecretVault),
                resolver: context.get<HostResolver>(ADAPTER_TOKENS.HostResolver),
                ...(options.webhooks?.retry === undefined ? {} : { retry: options.webhooks.retry }),
              }),
            ],
      )
      .inSingletonScope();
    bind(WORKER_TOKENS.Worker)
      .toDynamicValue(
        (context) =>
          new Worker({
            boss: context.get<JobBoss>(ADAPTER_TOKENS.JobBoss),
            queueConsumers: context.get<QueueConsumer[]>(WORKER_TOKENS.QueueConsumers),
            handlers: context.get<JobHandlers>(WORKER_TOKENS.JobHandlers),
            giveUp: context.get<ReturnType<typeof createGiveUpRouter>>(WORKER_TOKENS.GiveUp),
            logger: options.logger,
            concurrency: options.concurrency,
            pollIntervalMs: options.pollIntervalMs,
            scheduledTasks: context.get<ScheduledTask[]>(WORKER_TOKENS.ScheduledTasks),
            ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
            ...(options.onJobSettled === undefined ? {} : { onJobSettled: options.onJobSettled }),
          }),
      )
      .inSingletonScope();
  });
}
