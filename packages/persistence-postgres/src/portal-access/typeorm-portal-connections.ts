import type { DataSource } from 'typeorm';
import { PortalConnectionEntity } from './portal-access.entity';
import { toPortalConnection, type PortalConnection } from './portal-access.mapper';

/** Payers' portal connections, managed by the admin CLI and read by the worker (decision 0021). */
export class TypeOrmPortalConnections {
  constructor(private readonly dataSource: DataSource) {}

  private get rows() {
    return this.dataSource.getRepository(PortalConnectionEntity);
  }

  async set(input: { payerId: string; baseUrl: string; pageScript: string }): Promise<PortalConnection> {
    await this.rows
      .createQueryBuilder()
      .insert()
      .values({ payer_id: input.payerId, base_url: input.baseUrl, page_script: input.pageScript })
      .orUpdate(['base_url', 'page_script', 'updated_at'], ['payer_id'])
      .execute();
    return (await this.find(input.payerId))!;
  }

  async find(payerId: string): Promise<PortalConnection | null> {
    const row = await this.rows.findOneBy({ payer_id: payerId });
    return row ? toPortalConnection(row) : null;
  }

  async list(): Promise<PortalConnection[]> {
    return (await this.rows.find({ order: { payer_id: 'ASC' } })).map(toPortalConnection);
  }

  async remove(payerId: string): Promise<boolean> {
    return ((await this.rows.delete({ payer_id: payerId })).affected ?? 0) > 0;
  }
}
