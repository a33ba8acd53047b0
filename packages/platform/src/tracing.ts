import { createRequire } from 'node:module';
import type * as ExpressModule from '@opentelemetry/instrumentation-express';
import type * as HttpModule from '@opentelemetry/instrumentation-http';
import type * as PgModule from '@opentelemetry/instrumentation-pg';
import type { NodeSDK } from '@opentelemetry/sdk-node';

type Env = Record<string, string | undefined>;

/** Probe and scrape paths: no trace for each of them. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/health', '/metrics']);

/**
 * Tracing is off unless the standard OpenTelemetry variables ask for it: an exporter
 * (`OTEL_TRACES_EXPORTER` other than `none`) or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` turns it off whatever else is set
 * (docs/decisions/0034-operability.md).
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

export interface RunningTracing {
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK with HTTP, Express and PostgreSQL instrumentation when the environment asks for
 * tracing; null otherwise. Call it before anything loads `http`, `express` or `pg` (each app's
 * `instrumentation.ts`, imported first by its `main.ts`): the instrumentations patch modules as they load.
 * The SDK is loaded only then, so processes without tracing never pay for it. Only traces are exported:
 * metrics and logs have their own channels here unless `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` say
 * otherwise. `traceparent` is honoured on incoming requests and sent on outgoing ones (W3C Trace Context).
 */
export function startTracing(serviceName: string, env: Env = process.env): RunningTracing | null {
  if (!tracingRequested(env)) return null;
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const load = createRequire(__filename);
  const sdkModule = load('@opentelemetry/sdk-node') as { NodeSDK: typeof NodeSDK };
  const { HttpInstrumentation } = load('@opentelemetry/instrumentation-http') as typeof HttpModule;
  const { ExpressInstrumentation } = load('@opentelemetry/instrumentation-express') as typeof ExpressModule;
  const { PgInstrumentation } = load('@opentelemetry/instrumentation-pg') as typeof PgModule;
  const sdk = new sdkModule.NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown().catch(() => undefined) };
}
