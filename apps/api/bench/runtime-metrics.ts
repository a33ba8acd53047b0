/*
 * What the API's own metrics (`GET /metrics`, docs/decisions/0034-operability.md) say of its runtime during a
 * pass: garbage-collection pauses by kind, and the event loop's longest delay. Read before and after a pass,
 * they tell whether a pass's slow requests waited on the process itself (docs/performance.md, twentieth round).
 */
import { API_METRICS_PREFIX } from '../src/http/http-metrics';

/** A point in time of the process's counters. */
export interface RuntimeReading {
  /** Pauses so far by collector kind (`minor`, `major`, `incremental`, `weakcb`). */
  gc: Map<string, GcCount>;
  /** Pauses so far of 10 ms or less, by kind (the histogram's `le="0.01"` bucket). */
  gcAtMost10Ms: Map<string, number>;
  /** The longest event-loop delay since the previous reading (ms); prom-client resets it on every scrape. */
  loopDelayMaxMs: number;
}

export interface GcCount {
  count: number;
  seconds: number;
}

/** Pauses of one kind within a pass. */
export interface GcPauses {
  kind: string;
  count: number;
  totalMs: number;
  /** How many of them took longer than 10 ms. */
  over10Ms: number;
}

/** What one pass did to the process. */
export interface RuntimePass {
  pauses: GcPauses[];
  loopDelayMaxMs: number;
}

const GC = `${API_METRICS_PREFIX}nodejs_gc_duration_seconds`;
const LOOP_DELAY_MAX = `${API_METRICS_PREFIX}nodejs_eventloop_lag_max_seconds`;

/** The runtime's counters in a Prometheus text answer; null when it carries none (another service). */
export function parseRuntimeMetrics(text: string): RuntimeReading | null {
  const gc = new Map<string, GcCount>();
  const gcAtMost10Ms = new Map<string, number>();
  let loopDelayMaxMs: number | null = null;
  for (const line of text.split('\n')) {
    const sample = /^([a-z_:]+)(?:\{([^}]*)\})? ([^ ]+)$/.exec(line);
    if (!sample) continue;
    const [, name, labels = '', raw] = sample;
    const value = Number(raw);
    const kind = /(?:^|,)kind="([^"]+)"/.exec(labels)?.[1];
    if (name === LOOP_DELAY_MAX) loopDelayMaxMs = value * 1000;
    if (kind === undefined) continue;
    const counted = gc.get(kind) ?? { count: 0, seconds: 0 };
    if (name === `${GC}_count`) gc.set(kind, { ...counted, count: value });
    else if (name === `${GC}_sum`) gc.set(kind, { ...counted, seconds: value });
    else if (name === `${GC}_bucket` && /(?:^|,)le="0\.01"/.test(labels)) gcAtMost10Ms.set(kind, value);
  }
  return loopDelayMaxMs === null && gc.size === 0
    ? null
    : { gc, gcAtMost10Ms, loopDelayMaxMs: loopDelayMaxMs ?? NaN };
}

/** The pauses between two readings, by kind, kinds without a pause left out. */
export function runtimeBetween(before: RuntimeReading, after: RuntimeReading): RuntimePass {
  const pauses: GcPauses[] = [];
  for (const [kind, end] of after.gc) {
    const start = before.gc.get(kind) ?? { count: 0, seconds: 0 };
    const count = end.count - start.count;
    if (count <= 0) continue;
    const short = (after.gcAtMost10Ms.get(kind) ?? 0) - (before.gcAtMost10Ms.get(kind) ?? 0);
    pauses.push({ kind, count, totalMs: (end.seconds - start.seconds) * 1000, over10Ms: count - short });
  }
  return { pauses, loopDelayMaxMs: after.loopDelayMaxMs };
}

/** The service's runtime counters now; null when it has no such metrics (the floor) or cannot answer. */
export async function readRuntime(origin: string): Promise<RuntimeReading | null> {
  try {
    const answer = await fetch(`${origin}/metrics`);
    return answer.ok ? parseRuntimeMetrics(await answer.text()) : null;
  } catch {
    return null;
  }
}

const COLLECTORS: Record<string, string> = {
  minor: 'scavenges',
  major: 'mark-compacts',
  incremental: 'incremental marking steps',
  weakcb: 'weak callbacks',
};

/** `create: 20 scavenges, 260 ms in all, 7 over 10 ms; …; event loop delayed at most 62 ms` */
export function describeRuntime(pass: RuntimePass): string {
  const pauses = pass.pauses.map(
    (p) =>
      `${p.count} ${COLLECTORS[p.kind] ?? p.kind}, ${p.totalMs.toFixed(0)} ms in all` +
      (p.over10Ms > 0 ? `, ${p.over10Ms} over 10 ms` : ''),
  );
  const loop = Number.isNaN(pass.loopDelayMaxMs)
    ? []
    : [`event loop delayed at most ${pass.loopDelayMaxMs.toFixed(0)} ms`];
  return [...(pauses.length > 0 ? pauses : ['no collector pause']), ...loop].join(', ');
}
