import type { TenantScope } from '@prior-auth/domain';
import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { runSql } from './sql';

/**
 * Refuses to write an aggregate of another tenant through a repository bound to `scope`. A programming error
 * (the use case loaded it elsewhere), never a client error, hence a plain Error.
 */
export function assertSameTenant(
  scope: TenantScope,
  aggregate: { id: string; organizationId: string; environment: string },
  kind: string,
): void {
  if (aggregate.organizationId !== scope.organizationId || aggregate.environment !== scope.environment) {
    throw new Error(`${kind} ${aggregate.id} belongs to another tenant than this repository's scope`);
  }
}

/** Parameters `$1`, `$2` of every tenant-scoped statement: organization, then environment. */
export const tenantParameters = (scope: TenantScope): [string, string] => [
  scope.organizationId,
  scope.environment,
];

/** A query builder over one entity already restricted to the tenant: every read starts from here. */
export function tenantQuery<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  alias: string,
  scope: TenantScope,
): SelectQueryBuilder<T> {
  return manager
    .createQueryBuilder(entity, alias)
    .where(`${alias}.organization_id = :organizationId AND ${alias}.environment = :environment`, {
      organizationId: scope.organizationId,
      environment: scope.environment,
    });
}

/** The stored version of a tenant's row for a version-conflict report; 0 when the row is gone or foreign. */
export async function storedVersion(
  manager: EntityManager,
  table: string,
  scope: TenantScope,
  id: string,
): Promise<number> {
  const { rows } = await runSql<{ version: number }>(
    manager,
    `SELECT version FROM ${table} WHERE organization_id = $1 AND environment = $2 AND id = $3`,
    [...tenantParameters(scope), id],
  );
  return rows[0]?.version ?? 0;
}
