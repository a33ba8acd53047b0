import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Environment, ReplaySegments } from '@prior-auth/domain';
import { TypeOrmAuditLog } from '@prior-auth/persistence-postgres';
import { ProvisioningError } from '@prior-auth/platform';
import type { Command } from 'commander';
import type { CatalogDatabase as DataSource } from './catalog-commands';
import type { CliIo } from './cli';
import { renderReplayExport, type ReplayExportRun } from './replay-export.page';

/** What the replay commands read: the database, and the replay segments (rows and their blob storage). */
export interface ReplayDatabase {
  dataSource: DataSource;
  segments: ReplaySegments;
}

/** Who ran the command, for the audit trail: the operator's account on the machine running the CLI. */
const operator = (): string => {
  try {
    return `admin_cli:${userInfo().username}`;
  } catch {
    return 'admin_cli:unknown';
  }
};

/**
 * `replay export` (docs/decisions/0045-portal-run-replays.md): a case's portal run replays, internal evidence
 * with no public API, as one self-contained HTML file. Reading them is audited like every read of case data
 * (decision 0035).
 */
export function addReplayCommands(
  program: Command,
  database: () => Promise<ReplayDatabase>,
  io: CliIo,
): void {
  const replay = program.command('replay').description("portal runs' replays (internal evidence, 30 days)");
  replay
    .command('export')
    .description("write a case's replay as one self-contained HTML file (frames, gap markers, a player)")
    .argument('<authorizationId>')
    .option('--out <file>', 'where to write it (default: replay-<authorizationId>.html here)')
    .action(async (authorizationId: string, options: { out?: string }) => {
      const { dataSource, segments } = await database();
      const [found] = (await dataSource.query(
        'SELECT organization_id, environment FROM authorizations WHERE id = $1 LIMIT 1',
        [authorizationId],
      )) as Array<{ organization_id: string; environment: Environment }>;
      if (!found) throw new ProvisioningError(`no case ${authorizationId}`);
      const scope = { organizationId: found.organization_id, environment: found.environment };
      const now = new Date();
      const stored = await segments.list(scope, authorizationId, now);
      const runs: ReplayExportRun[] = [];
      for (const segment of stored) {
        const entries = await segments.read(segment);
        const last = runs[runs.length - 1];
        if (last?.runtimeSessionId === segment.runtimeSessionId) last.entries.push(...entries);
        else runs.push({ runtimeSessionId: segment.runtimeSessionId, entries });
      }
      const all = runs.flatMap((run) => run.entries);
      const frames = all.filter((entry) => entry.kind === 'frame').length;
      const gaps = all.length - frames;
      if (all.length === 0) {
        throw new ProvisioningError(
          `case ${authorizationId} has no replay: no portal run of it was recorded in the last 30 days`,
        );
      }
      // Audited before the file exists: the replay was read.
      await new TypeOrmAuditLog(dataSource.manager).append([
        {
          scope,
          occurredAt: now,
          actor: operator(),
          action: 'replay.read',
          subjectType: 'authorization',
          subjectId: authorizationId,
          details: { via: 'admin_cli_export', runs: runs.length, frames, gaps },
        },
      ]);
      const out = resolve(options.out ?? `replay-${authorizationId}.html`);
      await writeFile(out, renderReplayExport(authorizationId, runs), 'utf8');
      io.out(
        `wrote ${out}: ${frames} frame${frames === 1 ? '' : 's'}, ${gaps} gap marker${gaps === 1 ? '' : 's'}, ` +
          `${runs.length} portal run${runs.length === 1 ? '' : 's'}`,
      );
    });
}
