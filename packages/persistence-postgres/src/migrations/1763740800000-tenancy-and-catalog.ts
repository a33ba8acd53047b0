import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations, their provider NPIs and API keys (hashes only), and the payer/route catalog. */
export class TenancyAndCatalog1763740800000 implements MigrationInterface {
  name = 'TenancyAndCatalog1763740800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id text PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE provider_npis (
        organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        npi char(10) NOT NULL CHECK (npi ~ '^[0-9]{10}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, npi)
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        key_hash char(64) NOT NULL UNIQUE,
        display_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at)`);
    await q.query(`
      CREATE TABLE payers (
        id text PRIMARY KEY,
        display_name text NOT NULL,
        supported_states text[] NOT NULL,
        supported_service_types text[] NOT NULL,
        aliases text[] NOT NULL DEFAULT '{}',
        status text NOT NULL,
        brand text,
        line_of_business text,
        catalog_version text NOT NULL,
        search_text text NOT NULL
      )`);
    await q.query(`
      CREATE TABLE routes (
        id text PRIMARY KEY,
        payer_id text NOT NULL REFERENCES payers(id),
        insurance_state char(2) NOT NULL,
        service_type text NOT NULL CHECK (service_type IN ('inpatient', 'outpatient', 'drug')),
        service_code text NOT NULL,
        service_code_system text NOT NULL CHECK (service_code_system IN ('hcpcs', 'cpt', 'ndc')),
        portal_auth_modes text[] NOT NULL,
        questionnaire jsonb NOT NULL,
        document_requirements jsonb NOT NULL,
        catalog_version text NOT NULL,
        UNIQUE (payer_id, insurance_state, service_type, service_code_system, service_code)
      )`);
    await q.query(
      `CREATE INDEX routes_lookup_idx ON routes (payer_id, insurance_state, service_type, service_code)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE routes');
    await q.query('DROP TABLE payers');
    await q.query('DROP TABLE api_keys');
    await q.query('DROP TABLE provider_npis');
    await q.query('DROP TABLE organizations');
  }
}
