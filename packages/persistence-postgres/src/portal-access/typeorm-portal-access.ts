import type { PortalAccess, PortalAccessFacts } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { toPortalAccessFacts } from './portal-access.mapper';

/** The domain's PortalAccess port: one statement, no secret read (decision 0021). */
export class TypeOrmPortalAccess implements PortalAccess {
  constructor(private readonly dataSource: DataSource) {}

  async describe(organizationId: string, payerId: string): Promise<PortalAccessFacts> {
    const [row] = (await this.dataSource.query(
      `SELECT
         EXISTS (SELECT 1 FROM payer_portal_connections WHERE payer_id = $2) AS connection,
         EXISTS (SELECT 1 FROM portal_credentials WHERE organization_id = $1 AND payer_id = $2) AS credentials`,
      [organizationId, payerId],
    )) as { connection: boolean; credentials: boolean }[];
    return toPortalAccessFacts(row ?? { connection: false, credentials: false });
  }
}
