/*
 * Requests at an even rate whatever the answers' pace (an open loop). Request i is due at start + i / rate, and
 * its latency counts from then: time it waited for a free connection, or for this process's timer, counts too.
 * autocannon's `overallRate` cannot measure latency below saturation: each of its connections sends its share
 * of a second back to back from the second's start, then waits for the next second (decision 0058). An
 * optional lead-in at the same rate comes first, so that what is measured is that rate, not the change to it
 * (decision 0062).
 */
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface PacedRequest {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string;
}

export interface PacedLoadOptions {
  /** `http://host:port` */
  origin: string;
  /** Requests a second. */
  rate: number;
  /** The measured part's length; the lead-in comes before it. */
  durationS: number;
  /**
   * Seconds sent at the same rate before the measured part, whose latencies are not counted (default 0): the
   * connections, the service's and the database's, are open and busy at this rate when measuring starts.
   * Their errors still count.
   */
  leadInS?: number;
  /** Keep-alive connections at most; a request due while all are busy waits for one, and the wait counts. */
  connections: number;
  /** The next request to send, called once per request when it is due. */
  next: () => PacedRequest;
  /** A request that has not answered by then counts as an error (default 10 s). */
  timeoutMs?: number;
}

export interface PacedLoadResult {
  sent: number;
  /** Answers a second, from the first request's due time to the last answer. */
  requestsPerSecond: number;
  /** Latency percentiles (ms) over every request after the lead-in, answered or not. */
  p50: number;
  p99: number;
  max: number;
  /** Requests without a 2xx answer (another status, a connection error, a timeout), the lead-in's too. */
  errors: number;
  /** Answers by status; 0 for a request that got none. */
  statuses: Map<number, number>;
  /** The requests that got no answer, by why: the connection's error code, or `timeout`. */
  failures: Map<string, number>;
  /**
   * Each request's latency (ms) in the order they were due, request i due i / rate seconds after the start;
   * the first `leadIn` are the lead-in's.
   */
  byDue: Float64Array;
  /**
   * How late this process sent each request (ms), in the same order as `byDue`: where a request's latency was
   * the load generator's own, and where it was the service's.
   */
  lateByDue: Float64Array;
  /** How many requests the lead-in sent. */
  leadIn: number;
  /**
   * How late this process sent the requests after the lead-in (ms, 99th percentile): the part of the latencies
   * that is the load generator's own, on a machine it shares with the service.
   */
  lateP99: number;
  /** The longest this process kept a request after it was due (ms): its worst stall while sending. */
  lateMax: number;
  /**
   * When the first request was due, as a wall-clock time (ms since the epoch), to line the pass up with what
   * others logged; in a thread of its own that is after the thread has loaded, not when it was asked for.
   */
  startedAt: number;
}

/**
 * What a pass sends, as data a worker thread can take: the paths in turn, and optionally a header whose value
 * no other request of the pass has (`<prefix>-<n>`), such as an idempotency key.
 */
export interface PacedRequestPlan {
  method: string;
  paths: string[];
  headers?: Record<string, string>;
  body?: string;
  uniqueHeader?: { name: string; prefix: string };
}

/** The requests of `plan`, one per call. */
export function planned(plan: PacedRequestPlan): () => PacedRequest {
  let count = 0;
  return () => {
    const n = count;
    count += 1;
    const headers = plan.uniqueHeader
      ? Object.assign({}, plan.headers, { [plan.uniqueHeader.name]: `${plan.uniqueHeader.prefix}-${n}` })
      : plan.headers;
    return { method: plan.method, path: plan.paths[n % plan.paths.length]!, headers, body: plan.body };
  };
}

/**
 * `pacedLoad` in a worker thread of its own, its requests made there from `plan`. The thread has its own heap:
 * what the calling thread keeps (the database client, autocannon's results, earlier passes' objects) is not in
 * its collections, so none of the caller's collector pauses holds a request or its answer (decision 0064).
 */
export function pacedLoadApart(
  options: Omit<PacedLoadOptions, 'next'> & { plan: PacedRequestPlan },
): Promise<PacedLoadResult> {
  const worker = new Worker(join(__dirname, 'paced-load.worker.ts'), {
    workerData: options,
    // The thread loads TypeScript as this file is loaded, whatever loaded the caller (tsx, or Jest's transform).
    execArgv: ['--require', require.resolve('tsx/cjs')],
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: PacedLoadResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the paced load's thread exited with ${code}`)));
  });
}

/** The nearest-rank percentile of ascending `sorted` (q in 0..1). */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const { hostname, port } = new URL(options.origin);
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Node 20's agent closes an idle connection a second before the server's `Keep-Alive: timeout` hint says the
  // server will, but only when the agent has a timeout of its own. Without one it may send on a connection the
  // server is closing at that moment, and the request gets no answer (ECONNRESET): the bench's error, not the
  // service's.
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, timeout: timeoutMs });
  const leadIn = Math.round(options.rate * (options.leadInS ?? 0));
  const total = leadIn + Math.max(1, Math.round(options.rate * options.durationS));
  const interval = 1000 / options.rate;
  const latencies = new Float64Array(total);
  const late = new Float64Array(total);
  const statuses = new Map<number, number>();
  const failures = new Map<string, number>();
  let sent = 0;
  let answered = 0;
  let errors = 0;
  const started = performance.now();
  const startedAt = Date.now();

  return new Promise((resolve) => {
    const finish = (index: number, due: number, status: number): void => {
      latencies[index] = performance.now() - due;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status < 200 || status > 299) errors += 1;
      answered += 1;
      if (answered < total) return;
      const elapsedS = (performance.now() - started) / 1000;
      agent.destroy();
      const measured = latencies.slice(leadIn).sort();
      const lateAfterLeadIn = late.slice(leadIn).sort();
      resolve({
        sent,
        requestsPerSecond: answered / elapsedS,
        p50: percentile(measured, 0.5),
        p99: percentile(measured, 0.99),
        max: measured[measured.length - 1]!,
        errors,
        statuses,
        failures,
        byDue: latencies,
        lateByDue: late,
        leadIn,
        lateP99: percentile(lateAfterLeadIn, 0.99),
        lateMax: lateAfterLeadIn[lateAfterLeadIn.length - 1] ?? NaN,
        startedAt,
      });
    };

    const send = (index: number, due: number): void => {
      late[index] = performance.now() - due;
      const { method, path, headers = {}, body } = options.next();
      let settled = false;
      const settle = (status: number, failure?: string): void => {
        if (settled) return;
        settled = true;
        if (failure !== undefined) failures.set(failure, (failures.get(failure) ?? 0) + 1);
        finish(index, due, status);
      };
      const outgoing = request(
        {
          hostname,
          port,
          method,
          path,
          agent,
          headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (incoming) => {
          incoming.resume();
          incoming.once('end', () => settle(incoming.statusCode ?? 0));
          incoming.once('error', (error: NodeJS.ErrnoException) => settle(0, error.code ?? error.message));
        },
      );
      outgoing.setTimeout(timeoutMs, () =>
        outgoing.destroy(Object.assign(new Error('timed out'), { code: 'timeout' })),
      );
      outgoing.once('error', (error: NodeJS.ErrnoException) => settle(0, error.code ?? error.message));
      outgoing.end(body);
    };

    // Sends every request that is due, then sleeps until the next one is. A late timer sends what it owes at
    // once, and those requests' latencies count from when they were due.
    const tick = (): void => {
      const now = performance.now();
      while (sent < total && started + sent * interval <= now) {
        send(sent, started + sent * interval);
        sent += 1;
      }
      if (sent < total) setTimeout(tick, started + sent * interval - performance.now());
    };
    tick();
  });
}
