import {
  VersionConflictError,
  type Authorization,
  type AuthorizationListQuery,
  type AuthorizationRepository,
  type Page,
  type TenantScope,
} from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import {
  applyKeysetPage,
  assertPageLimit,
  keysetPage,
  type CursorBinding,
  type KeysetCursors,
} from '../pagination/keyset-cursor';
import { insertStatement, rowTable, runSql, versionedUpdateStatement } from '../unit-of-work/sql';
import { assertSameTenant, storedVersion, tenantParameters, tenantQuery } from '../unit-of-work/tenant-bound';
import {
  AttachmentEntity,
  AuthorizationEntity,
  ReviewSnapshotEntity,
  type AttachmentRow,
  type AuthorizationRow,
  type ReviewSnapshotRow,
} from './authorization.entity';
import { toAuthorization, toAuthorizationRows } from './authorization.mapper';

const AUTHORIZATIONS = rowTable(AuthorizationEntity);
const ATTACHMENTS = rowTable(AttachmentEntity);
const SNAPSHOTS = rowTable(ReviewSnapshotEntity);
const KEY_COLUMNS = ['organization_id', 'environment', 'id'] as const;

/**
 * Authorizations of ONE tenant on one EntityManager (normally the unit of work's transaction). Every
 * statement filters on organization_id and environment, so no call can reach another tenant's rows.
 */
export class TypeOrmAuthorizationRepository implements AuthorizationRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly cursors: KeysetCursors,
  ) {}

  async findById(id: string): Promise<Authorization | null> {
    const row = await this.rows().andWhere('a.id = :id', { id }).getOne();
    if (row === null) return null;
    const [loaded] = await this.withChildren([row]);
    return loaded ?? null;
  }

  async list(query: AuthorizationListQuery): Promise<Page<Authorization>> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = {
      resource: 'authorizations',
      scope: this.scope,
      filters: { status: query.status ?? null },
    };
    const after = query.cursor === undefined ? null : this.cursors.decode(binding, query.cursor);
    const select = this.rows();
    if (query.status !== undefined) select.andWhere('a.status = :status', { status: query.status });
    const rows = await applyKeysetPage(select, 'a', after, query.limit).getMany();
    const page = keysetPage(rows, query.limit, (position) => this.cursors.encode(binding, position));
    return { items: await this.withChildren(page.rows), nextCursor: page.nextCursor };
  }

  async save(authorization: Authorization): Promise<void> {
    assertSameTenant(this.scope, authorization, 'authorization');
    const rows = toAuthorizationRows(authorization.toState());
    const expected = authorization.persistedVersion;
    if (expected === null) {
      const insert = insertStatement(
        AUTHORIZATIONS,
        [rows.authorization],
        'ON CONFLICT DO NOTHING RETURNING version',
      );
      const inserted = await runSql(this.manager, insert.sql, insert.parameters);
      if (inserted.rowCount === 0)
        throw new VersionConflictError(0, await this.storedVersion(authorization.id));
    } else {
      const update = versionedUpdateStatement(
        AUTHORIZATIONS,
        rows.authorization,
        KEY_COLUMNS,
        ['created_at'],
        expected,
      );
      const updated = await runSql(this.manager, update.sql, update.parameters);
      if (updated.rowCount === 0)
        throw new VersionConflictError(expected, await this.storedVersion(authorization.id));
    }
    await this.writeReviewSnapshot(rows.reviewSnapshot);
    await this.writeAttachments(authorization.id, rows.attachments);
    authorization.markPersisted();
  }

  private rows() {
    return tenantQuery(this.manager, AuthorizationEntity, 'a', this.scope);
  }

  private storedVersion(id: string): Promise<number> {
    return storedVersion(this.manager, 'authorizations', this.scope, id);
  }

  /** Attachments and current snapshots of a page in two queries, whatever its size. */
  private async withChildren(rows: AuthorizationRow[]): Promise<Authorization[]> {
    if (rows.length === 0) return [];
    const tenant = { organizationId: this.scope.organizationId, environment: this.scope.environment };
    const ids = rows.map((row) => row.id);
    const snapshotIds = rows.flatMap((row) =>
      row.review_snapshot_id === null ? [] : [row.review_snapshot_id],
    );
    const attachments = await this.manager
      .createQueryBuilder(AttachmentEntity, 't')
      .where('t.organization_id = :organizationId AND t.environment = :environment', tenant)
      .andWhere('t.authorization_id IN (:...ids)', { ids })
      .orderBy('t.authorization_id')
      .addOrderBy('t.position')
      .getMany();
    const snapshots =
      snapshotIds.length === 0
        ? []
        : await this.manager
            .createQueryBuilder(ReviewSnapshotEntity, 's')
            .where('s.organization_id = :organizationId AND s.environment = :environment', tenant)
            .andWhere('s.id IN (:...snapshotIds)', { snapshotIds })
            .getMany();
    const attachmentsOf = new Map<string, AttachmentRow[]>();
    for (const attachment of attachments) {
      const list = attachmentsOf.get(attachment.authorization_id) ?? [];
      list.push(attachment);
      attachmentsOf.set(attachment.authorization_id, list);
    }
    const snapshotById = new Map<string, ReviewSnapshotRow>(
      snapshots.map((snapshot) => [snapshot.id, snapshot]),
    );
    return rows.map((row) =>
      toAuthorization({
        authorization: row,
        attachments: attachmentsOf.get(row.id) ?? [],
        reviewSnapshot:
          row.review_snapshot_id === null ? null : (snapshotById.get(row.review_snapshot_id) ?? null),
      }),
    );
  }

  /**
   * Snapshots are immutable except for their status; earlier ones stay (an approved snapshot is the evidence of
   * what the customer approved), so this is an upsert, never a delete.
   */
  private async writeReviewSnapshot(snapshot: ReviewSnapshotRow | null): Promise<void> {
    if (snapshot === null) return;
    const upsert = insertStatement(
      SNAPSHOTS,
      [snapshot],
      `ON CONFLICT (organization_id, environment, id) DO UPDATE SET status = EXCLUDED.status
        WHERE review_snapshots.authorization_id = EXCLUDED.authorization_id`,
    );
    await runSql(this.manager, upsert.sql, upsert.parameters);
  }

  /** The handful of attachment rows is rewritten with the aggregate, in the same transaction. */
  private async writeAttachments(authorizationId: string, attachments: AttachmentRow[]): Promise<void> {
    await runSql(
      this.manager,
      'DELETE FROM authorization_attachments WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3',
      [...tenantParameters(this.scope), authorizationId],
    );
    if (attachments.length === 0) return;
    const insert = insertStatement(ATTACHMENTS, attachments);
    await runSql(this.manager, insert.sql, insert.parameters);
  }
}
