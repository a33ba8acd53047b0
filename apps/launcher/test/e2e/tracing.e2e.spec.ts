import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './support/api-client';
import { CaseJourney } from './support/case-helpers';
import { StackHarness } from './support/stack-harness';
import { testTenant } from './support/test-tenant';

/*
 * Tracing on through the standard OTEL_* variables (docs/decisions/0034-operability.md): the API and the worker
 * export their spans as OTLP/JSON to a collector this test runs in memory. A confirm sent with a `traceparent`
 * continues that trace in the API, and the job it enqueues carries it into the worker.
 */

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Array<Omit<ReceivedSpan, 'service'>> }>;
  }>;
}

const spans: ReceivedSpan[] = [];
let collector: Server;
const tenant = testTenant();
const stack = new StackHarness();

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const exported = JSON.parse(body) as OtlpExport;
        for (const resource of exported.resourceSpans ?? []) {
          const service =
            resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) spans.push({ ...span, service });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => collector.listen(0, '127.0.0.1', () => done()));
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  await stack.start({ workers: 1, apiEnv: otel, workerEnv: otel });
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await new Promise<void>((done) => collector.close(() => done()));
}, 30_000);

async function waitForSpans(predicate: (found: ReceivedSpan[]) => boolean, description: string) {
  const deadline = Date.now() + 60_000;
  while (!predicate(spans)) {
    stack.assertRunning();
    if (Date.now() > deadline) throw new Error(`no ${description} among ${spans.length} spans`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

it('one trace follows a case from the request that confirms it through the worker', async () => {
  const api = new ApiClient(stack.baseUrl, tenant.sandboxApiKey);
  const memberId = (await api.sandboxScenarios()).find((s) => s.scenario === 'approved')!.memberId;
  const journey = await CaseJourney.open(api, stack, {
    providerNpi: tenant.providerNpi,
    memberId,
    policy: 'automatic',
  });
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  const traced = new ApiClient(stack.baseUrl, tenant.sandboxApiKey, {
    traceparent: `00-${traceId}-${callerSpanId}-01`,
  });
  const action = journey.current.nextAction!;
  expect(action.type).toBe('advance_case');
  const confirmed = await traced.confirm(journey.id, journey.current.version, action.id!);
  expect(confirmed.status).toBe(200);
  await journey.waitForStatus('completed');

  const inTrace = (found: ReceivedSpan[]) => found.filter((span) => span.traceId === traceId);
  // The API's server span is the caller's child.
  await waitForSpans(
    (found) => inTrace(found).some((s) => s.service === 'prior-auth-api' && s.parentSpanId === callerSpanId),
    'API span under the caller',
  );
  // The worker processed the case's job in the same trace, and its database work is part of it.
  await waitForSpans(
    (found) => inTrace(found).some((s) => s.service === 'prior-auth-worker'),
    'worker span in the trace',
  );
  // One tree: every span has its parent in the trace, but the API's first, whose parent is the caller's span.
  // (Waited for: a span still open when its children were exported arrives later.)
  const rootsOf = (found: ReceivedSpan[]) => {
    const trace = inTrace(found);
    const ids = new Set(trace.map((s) => s.spanId));
    return new Set(trace.filter((s) => !ids.has(s.parentSpanId)).map((s) => s.parentSpanId));
  };
  await waitForSpans((found) => {
    const roots = rootsOf(found);
    return roots.size === 1 && roots.has(callerSpanId);
  }, 'single tree');
  expect(new Set(inTrace(spans).map((s) => s.service))).toEqual(
    new Set(['prior-auth-api', 'prior-auth-worker']),
  );
  // A different trace never leaks in: other requests of this test (creation, polling) have traces of their own.
  expect(spans.some((s) => s.traceId !== traceId)).toBe(true);
});
