import { randomUUID } from 'node:crypto';
import { WORKER_JOB_TYPES } from '@prior-auth/domain';
import {
  JOB_QUEUE_SCHEMA,
  openTestDataSource,
  startJobBoss,
  TypeOrmOrganizationDirectory,
  type JobBoss,
} from '@prior-auth/persistence-postgres';
import { buildCli } from '../src/cli';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

/** docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: `jobs list|retry|cancel` and `cases stuck`. */
describe('admin CLI: job queue tools', () => {
  let dataSource: DataSource;
  let boss: JobBoss;
  beforeAll(async () => {
    dataSource = await openTestDataSource(2);
    boss = await startJobBoss({ connectionString: process.env.DATABASE_URL!, role: 'producer', poolSize: 1 });
  });
  afterAll(async () => {
    await boss.stop({ graceful: false });
    await dataSource.destroy();
  });

  async function run(...args: string[]): Promise<string> {
    const out: string[] = [];
    const directory = new TypeOrmOrganizationDirectory(dataSource);
    await buildCli(
      async () => directory,
      { out: (s) => out.push(s), err: () => undefined },
      undefined,
      undefined,
      async () => ({ dataSource, jobBoss: async () => boss }),
    ).parseAsync(args, { from: 'user' });
    return out.join('\n');
  }

  const jobOf = async (authorizationId: string) => {
    const [job] = JSON.parse(await run('jobs', 'list', '--authorization', authorizationId, '--json'));
    return job as { id: string; type: string; state: string; attempts: number; authorizationId: string };
  };

  it('lists, cancels and retries a job', async () => {
    // A job of a case that does not exist: no worker runs in this test, so it stays where it is put.
    const authorizationId = `auth_${randomUUID().replace(/-/g, '')}`;
    const id = await boss.send(
      WORKER_JOB_TYPES.process,
      {
        type: WORKER_JOB_TYPES.process,
        authorizationId,
        organizationId: 'org_x',
        environment: 'sandbox',
        payload: {},
      },
      { startAfter: 3600 },
    );
    expect(await jobOf(authorizationId)).toMatchObject({
      id,
      type: WORKER_JOB_TYPES.process,
      state: 'created',
      attempts: 0,
      authorizationId,
    });
    const human = await run('jobs', 'list', '--authorization', authorizationId);
    expect(human).toMatch(
      new RegExp(
        `^${id}\\t${WORKER_JOB_TYPES.process}\\tcreated\\tattempts 0/10\\t${authorizationId}\\tcreated `,
      ),
    );

    expect(await run('jobs', 'cancel', id!)).toBe(`job ${id} (${WORKER_JOB_TYPES.process}) cancelled`);
    expect((await jobOf(authorizationId)).state).toBe('cancelled');
    await expect(run('jobs', 'cancel', id!)).rejects.toThrow(/is cancelled/);
    expect(await run('jobs', 'retry', id!)).toMatch(/queued again/);
    expect((await jobOf(authorizationId)).state).toBe('created');

    // Attempts ran out: failed, and retried from there.
    await dataSource.query(
      `UPDATE ${JOB_QUEUE_SCHEMA}.job SET state = 'failed', retry_count = retry_limit WHERE id = $1`,
      [id],
    );
    const failed = JSON.parse(
      await run('jobs', 'list', '--state', 'failed', '--type', WORKER_JOB_TYPES.process, '--json'),
    );
    expect(failed.map((job: { id: string }) => job.id)).toContain(id);
    await run('jobs', 'retry', id!);
    expect(['created', 'retry']).toContain((await jobOf(authorizationId)).state);
    await expect(run('jobs', 'retry', id!)).rejects.toThrow(/only failed or cancelled/);
    await run('jobs', 'cancel', id!);
  });

  it('refuses unknown jobs and states', async () => {
    await expect(run('jobs', 'retry', randomUUID())).rejects.toThrow(/no job/);
    await expect(run('jobs', 'cancel', 'not-a-job')).rejects.toThrow(/no job/);
    await expect(run('jobs', 'list', '--state', 'stuck')).rejects.toThrow();
  });

  it('lists stuck cases, one line each', async () => {
    const out = await run('cases', 'stuck', '--older-than', '1h');
    for (const line of out === '(none)' ? [] : out.split('\n'))
      expect(line).toMatch(
        /^auth_\w+\torg_\w+\t(sandbox|production)\t\w+\tsince \S+Z\t(jobs_exhausted|processing_too_long)/,
      );
    expect(Array.isArray(JSON.parse(await run('cases', 'stuck', '--json')))).toBe(true);
  });
});
