import { checkDatabaseReadiness, isDatabaseReady, pingDatabase } from '@prior-auth/persistence-postgres';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS } from '../tokens';

/**
 * Public probes. `/health`: database reachability (503 when it cannot be reached). `/livez`: the process
 * answers (never touches the database, so an outage does not get it restarted). `/readyz`: the database is
 * reachable and on this code's schema, so traffic may be sent (docs/decisions/0034-operability.md).
 */
@injectable()
export class HealthController {
  constructor(@inject(TOKENS.DataSource) private readonly dataSource: DataSource) {}

  async get(_req: Request, res: Response): Promise<void> {
    const databaseUp = await pingDatabase(this.dataSource);
    // Like every 503 of this API (docs/decisions/0012-http-details.md): the database may be back in a second.
    if (!databaseUp) res.setHeader('Retry-After', '1');
    res.status(databaseUp ? 200 : 503).json({
      status: databaseUp ? 'ok' : 'degraded',
      checks: { database: databaseUp ? 'up' : 'down' },
    });
  }

  live(_req: Request, res: Response): void {
    res.status(200).json({ status: 'ok' });
  }

  async ready(_req: Request, res: Response): Promise<void> {
    const checks = await checkDatabaseReadiness(this.dataSource);
    const ready = isDatabaseReady(checks);
    if (!ready) res.setHeader('Retry-After', '1');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  }
}
