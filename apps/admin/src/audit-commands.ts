import { TypeOrmAuditTrail, type AuditTrailEntry } from '@prior-auth/persistence-postgres';
import { ProvisioningError } from '@prior-auth/platform';
import { InvalidArgumentError, type Command } from 'commander';
import type { CatalogDatabase as DataSource } from './catalog-commands';
import type { CliIo } from './cli';

const DURATION = /^(\d+)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO 8601 time, or a duration back from now (`30m`, `24h`, `7d`). */
export const sinceOption = (value: string): Date => {
  const duration = DURATION.exec(value.trim());
  if (duration)
    return new Date(Date.now() - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  const time = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? new Date(value.trim()) : new Date(NaN);
  if (Number.isNaN(time.getTime()))
    throw new InvalidArgumentError(
      'must be an ISO 8601 time (2026-01-31T12:00:00Z) or a duration (30m, 24h, 7d)',
    );
  return time;
};

const limitOption = (value: string): number => {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > 100_000)
    throw new InvalidArgumentError('must be a whole number from 1 to 100000');
  return limit;
};

const line = (entry: AuditTrailEntry) =>
  [
    entry.occurredAt.toISOString(),
    entry.environment,
    entry.actor,
    entry.action,
    `${entry.subjectType}:${entry.subjectId}`,
    entry.requestId ?? '-',
    Object.keys(entry.details).length ? JSON.stringify(entry.details) : '',
  ]
    .join('\t')
    .trimEnd();

/** `audit` (decision 0035): who read or changed what, and which grant URLs were opened, oldest first. */
export function addAuditCommands(program: Command, database: () => Promise<DataSource>, io: CliIo): void {
  program
    .command('audit')
    .description("print an organization's audit trail: reads, changes and grants opened, oldest first")
    .requiredOption('--org <organizationId>', 'the organization')
    .option('--authorization <authorizationId>', 'only what concerns this case')
    .option('--since <time>', 'from this ISO 8601 time or this long ago (30m, 24h, 7d)', sinceOption)
    .option('--limit <n>', 'at most this many lines (default 1000)', limitOption, 1000)
    .option('--json', 'print JSON only')
    .action(
      async (options: {
        org: string;
        authorization?: string;
        since?: Date;
        limit: number;
        json?: boolean;
      }) => {
        const dataSource = await database();
        const [found] = await dataSource.query('SELECT 1 FROM organizations WHERE id = $1', [options.org]);
        if (!found) throw new ProvisioningError(`organization ${options.org} does not exist`);
        const entries = await new TypeOrmAuditTrail(dataSource).list({
          organizationId: options.org,
          ...(options.authorization ? { authorizationId: options.authorization } : {}),
          ...(options.since ? { since: options.since } : {}),
          limit: options.limit,
        });
        io.out(options.json ? JSON.stringify(entries) : entries.map(line).join('\n') || '(none)');
      },
    );
}
