import { createHttpMetrics } from '../src/http/http-metrics';
import { describeRuntime, parseRuntimeMetrics, readRuntime, runtimeBetween } from './runtime-metrics';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const at = (gc: string, loopMaxSeconds: number) =>
  [
    '# HELP prior_auth_api_nodejs_eventloop_lag_max_seconds The maximum recorded event loop delay.',
    '# TYPE prior_auth_api_nodejs_eventloop_lag_max_seconds gauge',
    `prior_auth_api_nodejs_eventloop_lag_max_seconds ${loopMaxSeconds}`,
    gc,
    'prior_auth_http_request_duration_seconds_count{method="GET",route="/health",status="200"} 3',
  ].join('\n');

const gcLines = (minor: [number, number, number], major: [number, number, number]) =>
  (
    [
      ['minor', minor],
      ['major', major],
    ] as const
  )
    .flatMap(([kind, [atMost10Ms, count, seconds]]) => [
      `prior_auth_api_nodejs_gc_duration_seconds_bucket{le="0.001",kind="${kind}"} 0`,
      `prior_auth_api_nodejs_gc_duration_seconds_bucket{le="0.01",kind="${kind}"} ${atMost10Ms}`,
      `prior_auth_api_nodejs_gc_duration_seconds_bucket{le="+Inf",kind="${kind}"} ${count}`,
      `prior_auth_api_nodejs_gc_duration_seconds_sum{kind="${kind}"} ${seconds}`,
      `prior_auth_api_nodejs_gc_duration_seconds_count{kind="${kind}"} ${count}`,
    ])
    .join('\n');

describe('runtime metrics of a pass', () => {
  it('counts the pauses between two readings by kind, with those over 10 ms, and the loop delay after', () => {
    const before = parseRuntimeMetrics(at(gcLines([10, 12, 0.05], [1, 1, 0.004]), 0.02))!;
    const after = parseRuntimeMetrics(at(gcLines([25, 32, 0.31], [1, 1, 0.004]), 0.062))!;
    const pass = runtimeBetween(before, after);
    expect(pass.pauses).toEqual([{ kind: 'minor', count: 20, totalMs: expect.closeTo(260, 6), over10Ms: 5 }]);
    expect(pass.loopDelayMaxMs).toBeCloseTo(62, 6);
    expect(describeRuntime(pass)).toBe(
      '20 scavenges, 260 ms in all, 5 over 10 ms, event loop delayed at most 62 ms',
    );
    expect(describeRuntime(runtimeBetween(after, after))).toBe(
      'no collector pause, event loop delayed at most 62 ms',
    );
  });

  it('finds nothing in an answer without the runtime’s metrics (another service)', () => {
    expect(parseRuntimeMetrics('Cannot GET /metrics')).toBeNull();
    expect(parseRuntimeMetrics('other_metric{kind="x"} 1')).toBeNull();
  });

  it('reads the API’s own /metrics as prom-client writes them, and nothing from a service without them', async () => {
    const metrics = createHttpMetrics();
    const servers: Server[] = [
      createServer((req, res) => void metrics.registry.metrics().then((text) => res.end(text))),
      createServer((req, res) => {
        res.statusCode = 404;
        res.end('not here');
      }),
    ];
    try {
      const [api, other] = await Promise.all(
        servers.map(
          (server) =>
            new Promise<string>((resolve) =>
              server.listen(0, '127.0.0.1', () =>
                resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
              ),
            ),
        ),
      );
      const reading = await readRuntime(api!);
      expect(reading).not.toBeNull();
      expect(Number.isFinite(reading!.loopDelayMaxMs)).toBe(true);
      expect(await readRuntime(other!)).toBeNull();
      expect(await readRuntime('http://127.0.0.1:1')).toBeNull();
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
