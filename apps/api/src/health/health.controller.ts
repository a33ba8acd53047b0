import { pingDatabase } from '@prior-auth/persistence-postgres';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS } from '../tokens';

/** Public liveness and database reachability; answers 503 when the database cannot be reached. */
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
}
