import type { TenantScope } from '@prior-auth/domain';

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
