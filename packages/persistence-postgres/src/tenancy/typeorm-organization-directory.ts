import type { ApiKeyRecord, Environment, Organization, OrganizationDirectory } from '@prior-auth/domain';
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

  async createApiKey(input: {
    id: string;
    organizationId: string;
    environment: Environment;
    keyHash: string;
    displayPrefix: string;
    apiVersion?: string | null;
  }): Promise<ApiKeyRecord> {
    const row = await this.keys.save({
      id: input.id,
      organization_id: input.organizationId,
      environment: input.environment,
      key_hash: input.keyHash,
      display_prefix: input.displayPrefix,
      api_version: input.apiVersion ?? null,
      revoked_at: null,
    });
    return toApiKeyRecord(row);
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
    const row = await this.keys.findOneBy({ key_hash: keyHash, revoked_at: IsNull() });
    return row ? { ...toApiKeyRecord(row), keyHash: row.key_hash } : null;
  }
}
