import { z } from 'zod';
import { CredentialsCipher, parseCredentialsKeys, type CredentialsKey } from './credentials-cipher';

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
  // How long a request's body may take to arrive once its headers are in, file-byte uploads aside: 408 beyond.
  REQUEST_BODY_TIMEOUT_MS: integer(1_000, 600_000).default('30000'),
  // How long a file-byte upload (`PUT /blobs/upload/:token`, up to 25 MiB) may take to arrive in full.
  UPLOAD_REQUEST_TIMEOUT_MS: integer(30_000, 3_600_000).default('300000'),
  SANDBOX_DECISION_DELAY_SECONDS: integer(0, 3600).default('2'),
  // A system Chromium for the payer-portal browser; unset → the one packaged with the adapter.
  BROWSER_EXECUTABLE_PATH: z
    .string()
    .trim()
    .refine((value) => value.startsWith('/'), 'must be an absolute path')
    .optional(),
  PAYER_SANDBOX_PORT: integer(0, 65535).default('3100'),
  // Whether the simulated payer website takes each one-time code once per user (decision 0043) or again.
  PAYER_SANDBOX_ONE_TIME_CODES: z.enum(['once', 'reusable']).default('reusable'),
  // Where the worker's sandbox portal runs reach the simulated payer website; unset → payerSandboxUrl's default.
  PAYER_SANDBOX_URL: z.string().trim().url('must be an absolute http(s) URL').optional(),
  // Seals payer portal credentials at rest (decision 0021): comma-separated keys, the first seals.
  CREDENTIALS_KEY: z
    .string()
    .transform((value, ctx): CredentialsKey[] => {
      const keys = parseCredentialsKeys(value);
      if (typeof keys === 'string') {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: keys });
        return z.NEVER;
      }
      return keys;
    })
    .optional(),
  // Per-API-key budget (decision 0035): requests per second and the burst a key may reach; 0 turns it off.
  RATE_LIMIT_PER_SECOND: integer(0, 1_000_000).default('100'),
  RATE_LIMIT_BURST: integer(1, 10_000_000).default('200'),
  // Requests refused for a missing or bad API key that one client address may make per minute (decision 0035).
  AUTH_FAILURES_PER_MINUTE: integer(1, 1_000_000).default('30'),
  // Browser origins allowed to call the API (comma-separated, exact `scheme://host[:port]`); unset → none.
  CORS_ALLOWED_ORIGINS: z
    .string()
    .transform((value, ctx): string[] => {
      const origins = value
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== '');
      for (const origin of origins) {
        let parsed: URL | undefined;
        try {
          parsed = new URL(origin);
        } catch {
          parsed = undefined;
        }
        if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: `${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path or trailing slash)`,
          });
          return z.NEVER;
        }
      }
      return origins;
    })
    .default(''),
  WORKER_CONCURRENCY: integer(1, 64).default('4'),
  WORKER_POLL_INTERVAL_MS: integer(10, 60_000).default('500'),
  // The worker's probes and metrics (docs/decisions/0034-operability.md): unset → no HTTP port; 0 → any free one.
  WORKER_HTTP_PORT: integer(0, 65535).optional(),
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

/** The cipher of the configured `CREDENTIALS_KEY`; a ConfigError naming it when it is not set. */
export function credentialsCipher(config: Pick<AppConfig, 'CREDENTIALS_KEY'>): CredentialsCipher {
  if (config.CREDENTIALS_KEY === undefined) {
    throw new ConfigError([
      'CREDENTIALS_KEY is required to store or read payer portal credentials (32 bytes, base64 or hex)',
    ]);
  }
  return new CredentialsCipher(config.CREDENTIALS_KEY);
}

/**
 * Where the worker reaches the simulated payer website the sandbox submits to (decision 0022):
 * `PAYER_SANDBOX_URL`, or the website `pnpm start` serves on this machine at `PAYER_SANDBOX_PORT`.
 */
export const payerSandboxUrl = (config: AppConfig): string =>
  config.PAYER_SANDBOX_URL ?? `http://127.0.0.1:${config.PAYER_SANDBOX_PORT}`;
