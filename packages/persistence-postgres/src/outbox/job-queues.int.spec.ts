import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { GIVEN_UP_JOBS_QUEUE, JOB_QUEUE_SETTINGS, jobQueueDefinitions, startJobBoss } from './job-queues';

/** A database of its own, so pg-boss installs its schema here from nothing. */
async function withFreshDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `prior_auth_jobs_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base.toString());
    url.pathname = `/${name}`;
    await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

describe('startJobBoss', () => {
  it('installs pg-boss and its queues once when several processes start at the same moment', async () => {
    await withFreshDatabase(async (url) => {
      const bosses = await Promise.all([
        startJobBoss({ connectionString: url, role: 'worker', poolSize: 2 }),
        startJobBoss({ connectionString: url, role: 'producer', poolSize: 1 }),
        startJobBoss({ connectionString: url, role: 'producer', poolSize: 1 }),
      ]);
      try {
        // pg-boss keeps internal queues of its own (`__pgboss__…`) beside ours.
        const queues = (await bosses[0]!.getQueues()).filter((q) => !q.name.startsWith('__pgboss__'));
        expect(queues.map((q) => q.name).sort()).toEqual(
          jobQueueDefinitions()
            .map((q) => q.name)
            .sort(),
        );
        expect(await bosses[1]!.getQueue('process')).toMatchObject({
          ...JOB_QUEUE_SETTINGS.process,
          deadLetter: GIVEN_UP_JOBS_QUEUE,
        });
      } finally {
        await Promise.all(bosses.map((boss) => boss.stop({ graceful: false })));
      }
    });
  });
});
