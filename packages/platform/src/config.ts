import { z } from 'zod';

/**
 * Process configuration, read once from the environment and validated at start-up so that a bad value stops
 * the process with a message naming the variable, instead of failing later inside a request.
 */
const databaseUrl = z
  .string()
  .trim()
  .refine((value) => /^postgres(ql)?:\/\//.test(value), 'must be a postgres:// or postgresql:// URL')
  .refine((value) => {
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid URL');

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

export const configSchema = z.object({
  DATABASE_URL: databaseUrl.optional(),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: integer(0, 65535).default('3000'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_POOL_SIZE: integer(1, 200).default('10'),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(100, 600_000).default('15000'),
  PRIOR_AUTH_DATA_DIR: z.string().trim().min(1).optional(),
  EMBEDDED_POSTGRES_PORT: integer(1024, 65535).default('54329'),
  PUBLIC_BASE_URL: z.string().trim().url('must be an absolute http(s) URL').optional(),
  SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  BLOB_STORAGE_URL: z
    .string()
    .trim()
    .refine((value) => /^(file|s3):\/\//.test(value), 'must start with file:// or s3://')
    .optional(),
  REQUEST_BODY_LIMIT_BYTES: integer(1024, 10 * 1024 * 1024).default('1048576'),
  SANDBOX_DECISION_DELAY_SECONDS: integer(0, 3600).default('2'),
  SANDBOX_PORTAL_LATENCY_MS: integer(0, 60_000).default('0'),
  // A system Chromium for the payer-portal browser; unset → the one packaged with the adapter.
  BROWSER_EXECUTABLE_PATH: z
    .string()
    .trim()
    .refine((value) => value.startsWith('/'), 'must be an absolute path')
    .optional(),
  PAYER_SANDBOX_PORT: integer(0, 65535).default('3100'),
  // Where the worker's sandbox portal runs reach the simulated payer website; unset → the stateless simulator.
  PAYER_SANDBOX_URL: z.string().trim().url('must be an absolute http(s) URL').optional(),
  WORKER_CONCURRENCY: integer(1, 64).default('4'),
  WORKER_POLL_INTERVAL_MS: integer(10, 60_000).default('500'),
  SHUTDOWN_GRACE_MS: integer(0, 120_000).default('10000'),
});

export type AppConfig = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; empty strings count as unset so `FOO=` falls back to the default. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') cleaned[key] = value;
  }
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'} ${issue.message}`),
    );
  }
  return parsed.data;
}

/**
 * Where clients reach the API: `PUBLIC_BASE_URL`, or the API's own address on this machine. Signed URLs the
 * service hands out (file bytes, access grants, sandbox sessions) start with it.
 */
export const publicBaseUrl = (config: AppConfig): string =>
  config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
