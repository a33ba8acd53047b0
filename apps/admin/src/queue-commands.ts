import {
  JobQueueInspector,
  QUEUED_JOB_STATES,
  type JobBoss,
  type QueuedJobState,
  type QueuedJobSummary,
} from '@prior-auth/persistence-postgres';
import { ProvisioningError } from '@prior-auth/platform';
import { InvalidArgumentError, type Command } from 'commander';
import type { CatalogDatabase as DataSource } from './catalog-commands';
import type { CliIo } from './cli';

/** What the queue commands work on: the database, and the job queue client for changes (started on demand). */
export interface QueueDatabase {
  dataSource: DataSource;
  jobBoss: () => Promise<JobBoss>;
}

const stateOption = (value: string): QueuedJobState => {
  if (!(QUEUED_JOB_STATES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${QUEUED_JOB_STATES.join(', ')}`);
  return value as QueuedJobState;
};

const limitOption = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000)
    throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  return Number(value);
};

const DURATION = /^(\d+)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const durationOption = (value: string): number => {
  const match = DURATION.exec(value.trim());
  if (!match || Number(match[1]) === 0)
    throw new InvalidArgumentError('must be a duration such as 30m, 2h or 1d');
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
};

const jobLine = (job: QueuedJobSummary) =>
  [
    job.id,
    job.type,
    job.state,
    `attempts ${job.attempts}/${job.retryLimit + 1}`,
    job.authorizationId ?? '-',
    `created ${job.createdAt.toISOString()}`,
  ].join('\t');

/**
 * `jobs list|retry|cancel` and `cases stuck` (docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md): the
 * job queue (decision 0016) and the cases it drives, without SQL. Retry and cancel go through pg-boss.
 */
export function addQueueCommands(program: Command, database: () => Promise<QueueDatabase>, io: CliIo): void {
  const jobs = program.command('jobs').description("the worker's job queue");
  jobs
    .command('list')
    .description('list jobs, newest first (state, type, case)')
    .option('--state <state>', QUEUED_JOB_STATES.join(', '), stateOption)
    .option('--type <type>', 'only jobs of this type (queue name)')
    .option('--authorization <authorizationId>', 'only the jobs of this case')
    .option('--limit <n>', 'at most this many (default 50)', limitOption, 50)
    .option('--json', 'print JSON only')
    .action(
      async (options: {
        state?: QueuedJobState;
        type?: string;
        authorization?: string;
        limit: number;
        json?: boolean;
      }) => {
        const list = await new JobQueueInspector((await database()).dataSource).listJobs({
          ...(options.state ? { state: options.state } : {}),
          ...(options.type ? { type: options.type } : {}),
          ...(options.authorization ? { authorizationId: options.authorization } : {}),
          limit: options.limit,
        });
        io.out(options.json ? JSON.stringify(list) : list.map(jobLine).join('\n') || '(none)');
      },
    );
  jobs
    .command('retry')
    .description('run a failed or cancelled job again')
    .argument('<jobId>')
    .action(async (jobId: string) => {
      const db = await database();
      const job = await new JobQueueInspector(db.dataSource).findJob(jobId);
      if (!job) throw new ProvisioningError(`no job ${jobId}`);
      if (job.state !== 'failed' && job.state !== 'cancelled')
        throw new ProvisioningError(
          `job ${jobId} is ${job.state}: only failed or cancelled jobs can be retried`,
        );
      const boss = await db.jobBoss();
      if (job.state === 'failed') await boss.retry(job.type, jobId);
      else await boss.resume(job.type, jobId);
      io.out(`job ${jobId} (${job.type}) queued again`);
    });
  jobs
    .command('cancel')
    .description('cancel a job that has not finished')
    .argument('<jobId>')
    .action(async (jobId: string) => {
      const db = await database();
      const job = await new JobQueueInspector(db.dataSource).findJob(jobId);
      if (!job) throw new ProvisioningError(`no job ${jobId}`);
      if (!['created', 'retry', 'active'].includes(job.state))
        throw new ProvisioningError(
          `job ${jobId} is ${job.state}: only waiting or running jobs can be cancelled`,
        );
      await (await db.jobBoss()).cancel(job.type, jobId);
      io.out(`job ${jobId} (${job.type}) cancelled`);
    });

  const cases = program.command('cases').description('prior-authorization cases');
  cases
    .command('stuck')
    .description('list cases whose jobs ran out of attempts or that sit in processing too long')
    .option(
      '--older-than <duration>',
      'how long in processing counts as stuck (default 1h)',
      durationOption,
      3_600_000,
    )
    .option('--limit <n>', 'at most this many (default 100)', limitOption, 100)
    .option('--json', 'print JSON only')
    .action(async (options: { olderThan: number; limit: number; json?: boolean }) => {
      const stuck = await new JobQueueInspector((await database()).dataSource).stuckCases(
        options.olderThan,
        options.limit,
      );
      io.out(
        options.json
          ? JSON.stringify(stuck)
          : stuck
              .map((c) =>
                [
                  c.authorizationId,
                  c.organizationId,
                  c.environment,
                  c.status,
                  `since ${c.updatedAt.toISOString()}`,
                  c.reason,
                  c.failedJobIds.join(','),
                ]
                  .join('\t')
                  .trimEnd(),
              )
              .join('\n') || '(none)',
      );
    });
}
