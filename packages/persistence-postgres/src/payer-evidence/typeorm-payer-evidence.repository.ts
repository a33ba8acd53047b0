import type { PayerEvidenceRecord, PayerEvidenceRepository, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { insertStatement, rowTable, runSql } from '../unit-of-work/sql';
import { tenantQuery } from '../unit-of-work/tenant-bound';
import { PayerEvidenceEntity } from './payer-evidence.entity';
import { toPayerEvidenceRecord, toPayerEvidenceRow } from './payer-evidence.mapper';

const PAYER_EVIDENCE = rowTable(PayerEvidenceEntity);

/** Evidence rows of ONE tenant on one EntityManager; rows are only inserted, in the tenant's scope. */
export class TypeOrmPayerEvidenceRepository implements PayerEvidenceRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
  ) {}

  async add(records: readonly PayerEvidenceRecord[]): Promise<void> {
    if (records.length === 0) return;
    const insert = insertStatement(
      PAYER_EVIDENCE,
      records.map((record) => toPayerEvidenceRow(this.scope, record)),
    );
    await runSql(this.manager, insert.sql, insert.parameters);
  }

  async listByAuthorization(authorizationId: string): Promise<PayerEvidenceRecord[]> {
    const rows = await tenantQuery(this.manager, PayerEvidenceEntity, 'e', this.scope)
      .andWhere('e.authorization_id = :authorizationId', { authorizationId })
      .orderBy('e.captured_at', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .getMany();
    return rows.map(toPayerEvidenceRecord);
  }
}
