import {
  DomainError,
  VersionConflictError,
  type ManualHandoff,
  type ManualHandoffRepository,
  type TenantScope,
} from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { insertStatement, rowTable, runSql, versionedUpdateStatement } from '../unit-of-work/sql';
import { assertSameTenant, storedVersion, tenantQuery } from '../unit-of-work/tenant-bound';
import { ManualHandoffEntity } from './manual-handoff.entity';
import { toManualHandoff, toManualHandoffRow } from './manual-handoff.mapper';

const HANDOFFS = rowTable(ManualHandoffEntity);
/** Same predicate as the partial unique index `manual_handoffs_lineage_owner_idx` and `ownsInteraction`. */
const OWNS_INTERACTION = `(h.state <> 'closed' OR h.reconciliation_state = 'pending')`;

/** Manual handoffs of ONE tenant on one EntityManager; every statement filters on the tenant. */
export class TypeOrmManualHandoffRepository implements ManualHandoffRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
  ) {}

  async findById(id: string): Promise<ManualHandoff | null> {
    const row = await this.rows().andWhere('h.id = :id', { id }).getOne();
    return row === null ? null : toManualHandoff(row);
  }

  async listByAuthorization(authorizationId: string): Promise<ManualHandoff[]> {
    const rows = await this.rows()
      .andWhere('h.authorization_id = :authorizationId', { authorizationId })
      .orderBy('h.created_at', 'DESC')
      .addOrderBy('h.id', 'DESC')
      .getMany();
    return rows.map(toManualHandoff);
  }

  async findOpenByInteraction(
    authorizationId: string,
    interactionActionId: string,
  ): Promise<ManualHandoff | null> {
    const row = await this.rows()
      .andWhere('h.authorization_id = :authorizationId AND h.interaction_action_id = :interactionActionId', {
        authorizationId,
        interactionActionId,
      })
      .andWhere(OWNS_INTERACTION)
      .getOne();
    return row === null ? null : toManualHandoff(row);
  }

  async save(handoff: ManualHandoff): Promise<void> {
    assertSameTenant(this.scope, handoff, 'manual handoff');
    const row = toManualHandoffRow(handoff.toState());
    const expected = handoff.persistedVersion;
    if (expected === null) {
      // DO NOTHING covers both the primary key and the one-owner-per-lineage index without aborting the
      // transaction; which of the two refused is told apart below.
      const insert = insertStatement(HANDOFFS, [row], 'ON CONFLICT DO NOTHING RETURNING version');
      const inserted = await runSql(this.manager, insert.sql, insert.parameters);
      if (inserted.rowCount === 0) {
        const stored = await this.storedVersion(handoff.id);
        if (stored > 0) throw new VersionConflictError(0, stored);
        const owner = await this.findOpenByInteraction(handoff.authorizationId, handoff.interactionActionId);
        throw new DomainError(
          'manual_handoff_not_allowed',
          'A manual handoff already owns this payer interaction.',
          {
            manualHandoffId: owner?.id ?? null,
          },
        );
      }
    } else {
      const update = versionedUpdateStatement(
        HANDOFFS,
        row,
        ['organization_id', 'environment', 'id'],
        ['authorization_id', 'interaction_action_id', 'created_at'],
        expected,
      );
      const updated = await runSql(this.manager, update.sql, update.parameters);
      if (updated.rowCount === 0)
        throw new VersionConflictError(expected, await this.storedVersion(handoff.id));
    }
    handoff.markPersisted();
  }

  private rows() {
    return tenantQuery(this.manager, ManualHandoffEntity, 'h', this.scope);
  }

  private storedVersion(id: string): Promise<number> {
    return storedVersion(this.manager, 'manual_handoffs', this.scope, id);
  }
}
