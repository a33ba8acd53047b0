import type { PortalAccess, PortalAccessFacts } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { toPortalAccessFacts } from './portal-access.mapper';

/** The domain's PortalAccess port: one statement, no secret read (decision 0021). */
export class TypeOrmPortalAccess implements PortalAccess {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same reads on `tx`'s connection (a command's: no second connection while it holds one). */
  on(tx: PostgresTransaction): TypeOrmPortalAccess {
    return new TypeOrmPortalAccess(this.dataSource, tx);
  }

  async describe(organizationId: string, payerId: string): Promise<PortalAccessFacts> {
    const [row] = (await managerOf(this.dataSource, this.tx).query(
      `SELECT
         EXISTS (SELECT 1 FROM payer_portal_connections WHERE payer_id = $2) AS connection,
         EXISTS (SELECT 1 FROM portal_credentials WHERE organization_id = $1 AND payer_id = $2) AS credentials`,
      [organizationId, payerId],
    )) as { connection: boolean; credentials: boolean }[];
    return toPortalAccessFacts(row ?? { connection: false, credentials: false });
  }
}
