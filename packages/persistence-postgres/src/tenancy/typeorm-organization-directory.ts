import type { ApiKeyRecord, NewApiKey, Organization, OrganizationDirectory } from '@prior-auth/domain';
import { IsNull, type DataSource } from 'typeorm';
import { ApiKeyEntity, OrganizationEntity, ProviderNpiEntity } from '../entities';
import { toApiKeyRecord, toOrganization } from './tenancy.mapper';

export class TypeOrmOrganizationDirectory implements OrganizationDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private get organizations() {
    return this.dataSource.getRepository(OrganizationEntity);
  }

  private get npis() {
    return this.dataSource.getRepository(ProviderNpiEntity);
  }

  private get keys() {
    return this.dataSource.getRepository(ApiKeyEntity);
  }

  async createOrganization(input: { id: string; name: string }): Promise<Organization> {
    const row = await this.organizations.save({ id: input.id, name: input.name });
    return toOrganization(row);
  }

  async findOrganization(id: string): Promise<Organization | null> {
    const row = await this.organizations.findOneBy({ id });
    return row ? toOrganization(row) : null;
  }

  async listOrganizations(): Promise<Organization[]> {
    return (await this.organizations.find({ order: { created_at: 'ASC', id: 'ASC' } })).map(toOrganization);
  }

  async registerProviderNpi(organizationId: string, npi: string): Promise<void> {
    await this.npis
      .createQueryBuilder()
      .insert()
      .values({ organization_id: organizationId, npi })
      .orIgnore()
      .execute();
  }

  async removeProviderNpi(organizationId: string, npi: string): Promise<boolean> {
    const result = await this.npis.delete({ organization_id: organizationId, npi });
    return (result.affected ?? 0) > 0;
  }

  async listProviderNpis(organizationId: string): Promise<string[]> {
    const rows = await this.npis.find({ where: { organization_id: organizationId }, order: { npi: 'ASC' } });
    return rows.map((row) => row.npi);
  }

  async isRegistered(organizationId: string, npi: string): Promise<boolean> {
    return this.npis.existsBy({ organization_id: organizationId, npi });
  }

  async createApiKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const row = await this.keys.save({
      id: input.id,
      organization_id: input.organizationId,
      environment: input.environment,
      key_hash: input.keyHash,
      display_prefix: input.displayPrefix,
      api_version: input.apiVersion ?? null,
      label: input.label ?? null,
      revoked_at: null,
    });
    return toApiKeyRecord(row);
  }

  async rotateApiKey(
    oldKeyId: string,
    replacement: NewApiKey,
    oldKeyExpiresAt: Date,
  ): Promise<{ replacement: ApiKeyRecord; oldKeyExpiresAt: Date } | null> {
    return this.dataSource.transaction(async (manager) => {
      const keys = manager.getRepository(ApiKeyEntity);
      // Locked, so two rotations of one key cannot both succeed.
      const old = await keys
        .createQueryBuilder('key')
        .setLock('pessimistic_write')
        .where(
          'key.id = :id AND key.revoked_at IS NULL AND (key.expires_at IS NULL OR key.expires_at > now())',
          {
            id: oldKeyId,
          },
        )
        .getOne();
      if (!old || old.replaced_by !== null || old.environment !== replacement.environment) return null;
      const row = await keys.save({
        id: replacement.id,
        organization_id: old.organization_id,
        environment: old.environment,
        key_hash: replacement.keyHash,
        display_prefix: replacement.displayPrefix,
        api_version: replacement.apiVersion === undefined ? old.api_version : replacement.apiVersion,
        label: replacement.label === undefined ? old.label : replacement.label,
        revoked_at: null,
      });
      const expiresAt =
        old.expires_at !== null && old.expires_at < oldKeyExpiresAt ? old.expires_at : oldKeyExpiresAt;
      await keys.update({ id: old.id }, { expires_at: expiresAt, replaced_by: row.id });
      return { replacement: toApiKeyRecord(row), oldKeyExpiresAt: expiresAt };
    });
  }

  async findApiKeyEnvironment(id: string): Promise<'sandbox' | 'production' | null> {
    const row = await this.keys
      .createQueryBuilder('key')
      .where('key.id = :id AND key.revoked_at IS NULL', { id })
      .andWhere('(key.expires_at IS NULL OR key.expires_at > now())')
      .getOne();
    return row?.environment ?? null;
  }

  async touchApiKeys(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE api_keys SET last_used_at = now()
       WHERE id = ANY($1) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [ids],
    );
  }

  async listApiKeys(organizationId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.keys.find({
      where: { organization_id: organizationId },
      order: { created_at: 'ASC' },
    });
    return rows.map(toApiKeyRecord);
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const result = await this.keys.update({ id, revoked_at: IsNull() }, { revoked_at: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  async findActiveApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { keyHash: string }) | null> {
    const row = await this.keys
      .createQueryBuilder('key')
      .where('key.key_hash = :keyHash AND key.revoked_at IS NULL', { keyHash })
      .andWhere('(key.expires_at IS NULL OR key.expires_at > now())')
      .getOne();
    return row ? { ...toApiKeyRecord(row), keyHash: row.key_hash } : null;
  }
}
