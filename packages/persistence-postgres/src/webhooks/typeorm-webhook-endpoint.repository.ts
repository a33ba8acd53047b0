import {
  VersionConflictError,
  type Page,
  type TenantScope,
  type WebhookEndpoint,
  type WebhookEndpointRepository,
} from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import {
  assertPageLimit,
  keysetPage,
  type CursorBinding,
  type KeysetCursors,
} from '../pagination/keyset-cursor';
import { insertStatement, rowTable, runSql, versionedUpdateStatement } from '../unit-of-work/sql';
import { assertSameTenant, storedVersion, tenantParameters } from '../unit-of-work/tenant-bound';
import { WebhookEndpointEntity, type WebhookEndpointRow } from './webhook-endpoint.entity';
import { toWebhookEndpoint, toWebhookEndpointRow } from './webhook-endpoint.mapper';

const ENDPOINTS = rowTable(WebhookEndpointEntity);

/** Webhook endpoints of ONE tenant on one EntityManager; every statement filters on the tenant. */
export class TypeOrmWebhookEndpointRepository implements WebhookEndpointRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly cursors: KeysetCursors,
  ) {}

  async findById(id: string): Promise<WebhookEndpoint | null> {
    const { rows } = await runSql<WebhookEndpointRow>(
      this.manager,
      'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND environment = $2 AND id = $3',
      [...tenantParameters(this.scope), id],
    );
    const [row] = rows;
    return row === undefined ? null : toWebhookEndpoint(row);
  }

  async list(query: { limit: number; cursor?: string }): Promise<Page<WebhookEndpoint>> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = { resource: 'webhook_endpoints', scope: this.scope, filters: {} };
    const after = query.cursor === undefined ? null : this.cursors.decode(binding, query.cursor);
    const parameters: unknown[] = [...tenantParameters(this.scope)];
    let sql = 'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND environment = $2';
    if (after !== null) {
      parameters.push(after.createdAt, after.id);
      sql += ` AND (created_at, id) < ($3, $4)`;
    }
    parameters.push(query.limit + 1);
    sql += ` ORDER BY created_at DESC, id DESC LIMIT $${parameters.length}`;
    const { rows } = await runSql<WebhookEndpointRow>(this.manager, sql, parameters);
    const page = keysetPage(rows, query.limit, (position) => this.cursors.encode(binding, position));
    return { items: page.rows.map(toWebhookEndpoint), nextCursor: page.nextCursor };
  }

  async save(endpoint: WebhookEndpoint): Promise<void> {
    assertSameTenant(this.scope, endpoint, 'webhook endpoint');
    const row = toWebhookEndpointRow(endpoint.toState());
    const expected = endpoint.persistedVersion;
    if (expected === null) {
      const insert = insertStatement(ENDPOINTS, [row], 'ON CONFLICT DO NOTHING RETURNING version');
      const inserted = await runSql(this.manager, insert.sql, insert.parameters);
      if (inserted.rowCount === 0) throw new VersionConflictError(0, await this.storedVersion(endpoint.id));
    } else {
      const update = versionedUpdateStatement(
        ENDPOINTS,
        row,
        ['organization_id', 'environment', 'id'],
        ['created_at'],
        expected,
      );
      const updated = await runSql(this.manager, update.sql, update.parameters);
      if (updated.rowCount === 0)
        throw new VersionConflictError(expected, await this.storedVersion(endpoint.id));
    }
    endpoint.markPersisted();
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await runSql(
      this.manager,
      'DELETE FROM webhook_endpoints WHERE organization_id = $1 AND environment = $2 AND id = $3',
      [...tenantParameters(this.scope), id],
    );
    return rowCount > 0;
  }

  private storedVersion(id: string): Promise<number> {
    return storedVersion(this.manager, 'webhook_endpoints', this.scope, id);
  }
}
