import { ApiClient } from './support/api-client';
import { CaseJourney, expectSandboxReceipt } from './support/case-helpers';
import { StackHarness } from './support/stack-harness';
import { testTenant } from './support/test-tenant';

/*
 * Probes and metrics as an operator scrapes them (docs/decisions/0034-operability.md): the API's on its own
 * port, the worker's on WORKER_HTTP_PORT (here any free one, which its ready line names), after a sandbox case
 * went from creation to its decision.
 */

const tenant = testTenant();
const stack = new StackHarness();
let api: ApiClient;
let workerUrl: string;

beforeAll(async () => {
  await stack.start({ workers: 1, workerEnv: { WORKER_HTTP_PORT: '0' } });
  api = new ApiClient(stack.baseUrl, tenant.sandboxApiKey);
  const ready = stack.workers[0]!.records.find((record) => record.msg === 'worker ready');
  expect(ready?.httpPort).toEqual(expect.any(Number));
  workerUrl = `http://127.0.0.1:${String(ready!.httpPort)}`;
}, 90_000);

afterAll(() => stack.stop(), 30_000);

/** The samples of one metric, by their label text (`{a="b"}`, or '' without labels). */
async function scrape(url: string): Promise<((name: string) => Map<string, number>) & { text: string }> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  const samples = (name: string) => {
    const found = new Map<string, number>();
    for (const line of text.split('\n')) {
      const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (match && match[1] === name) found.set(match[2] ?? '', Number(match[3]));
    }
    return found;
  };
  return Object.assign(samples, { text });
}

const getJson = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

it('both processes are live and ready', async () => {
  expect(await getJson(`${stack.baseUrl}/livez`)).toEqual({ status: 200, body: { status: 'ok' } });
  expect(await getJson(`${stack.baseUrl}/readyz`)).toEqual({
    status: 200,
    body: { status: 'ready', checks: { database: 'up', migrations: 'current' } },
  });
  expect(await getJson(`${workerUrl}/livez`)).toEqual({ status: 200, body: { status: 'ok' } });
  expect(await getJson(`${workerUrl}/readyz`)).toEqual({
    status: 200,
    body: {
      status: 'ready',
      checks: { database: 'up', migrations: 'current', browser: 'available', accepting: true },
    },
  });
  expect((await getJson(`${workerUrl}/health`)).status).toBe(200);
  expect((await getJson(`${workerUrl}/nothing`)).body).toMatchObject({ error: { code: 'not_found' } });
});

it('after a sandbox case reaches its decision, both /metrics report it', async () => {
  const memberId = (await api.sandboxScenarios()).find((s) => s.scenario === 'approved')!.memberId;
  const journey = await CaseJourney.open(api, stack, {
    providerNpi: tenant.providerNpi,
    memberId,
    policy: 'automatic',
  });
  await journey.confirm('advance_case');
  const done = await journey.waitForStatus('completed');
  expect(done.outcome).toBe('approved');
  expectSandboxReceipt(done.submission.payerReceipt);

  const apiMetric = await scrape(stack.baseUrl);
  const requests = apiMetric('prior_auth_http_request_duration_seconds_count');
  const count = (labels: string) => requests.get(labels) ?? 0;
  expect(count('{method="POST",route="/v1/prior-auth/authorizations",status="201"}')).toBeGreaterThanOrEqual(
    1,
  );
  expect(
    count('{method="GET",route="/v1/prior-auth/authorizations/:authorizationId",status="200"}'),
  ).toBeGreaterThanOrEqual(1);
  expect([...requests.keys()].some((labels) => labels.includes(journey.id))).toBe(false);

  const worker = await scrape(workerUrl);
  expect(worker('prior_auth_operational_metrics_up').get('')).toBe(1);
  expect(worker('prior_auth_cases').get('{environment="sandbox",status="completed"}')).toBeGreaterThanOrEqual(
    1,
  );
  // Every job of the case ran: the process queue has rows, none of them due any more than briefly.
  const queueJobs = worker('prior_auth_queue_jobs');
  expect(queueJobs.has('{queue="process",state="due"}')).toBe(true);
  for (const [labels, value] of queueJobs)
    expect({ labels, value: value >= 0 }).toEqual({ labels, value: true });
  for (const [labels, age] of worker('prior_auth_queue_oldest_due_job_age_seconds')) {
    expect({ labels, sane: age >= 0 && age < 3600 }).toEqual({ labels, sane: true });
  }
  const submits = worker('prior_auth_portal_run_duration_seconds_count').get(
    '{environment="sandbox",operation="submit",outcome="ok"}',
  );
  expect(submits).toBeGreaterThanOrEqual(1);
  const submitSeconds = worker('prior_auth_portal_run_duration_seconds_sum').get(
    '{environment="sandbox",operation="submit",outcome="ok"}',
  );
  expect(submitSeconds).toBeGreaterThan(0);
  expect(submitSeconds).toBeLessThan(600);
  // Series that may have no sample on this database are still declared, and none is negative.
  for (const name of [
    'prior_auth_queue_failed_jobs',
    'prior_auth_decisions_overdue',
    'prior_auth_manual_handoffs_open',
    'prior_auth_webhook_deliveries',
    'prior_auth_live_session_pages',
    'prior_auth_live_session_screencasts',
  ]) {
    expect(worker.text).toContain(`# TYPE ${name} gauge`);
    for (const [labels, value] of worker(name))
      expect({ name, labels, value: value >= 0 }).toEqual({ name, labels, value: true });
  }
  // A page is screencast only while it is a live session (decision 0033).
  expect(worker('prior_auth_live_session_screencasts').get('')).toBeLessThanOrEqual(
    worker('prior_auth_live_session_pages').get('')!,
  );
});
