import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authorizations with their attachments and review snapshots, files, manual handoffs, access grants, the
 * append-only audit log, idempotency records, the domain-event outbox and the worker's job table.
 * Tenant tables key on (organization_id, environment, id): every lookup carries the tenant anyway, and
 * composite foreign keys then make a cross-tenant reference (an attachment of another tenant's file)
 * impossible rather than merely unlikely. See docs/decisions/0010-persistence-schema.md.
 */
export class AuthorizationSchema1763741000000 implements MigrationInterface {
  name = 'AuthorizationSchema1763741000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        organization_id text NOT NULL REFERENCES organizations(id),
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        status text NOT NULL CHECK (status IN ('pending_upload', 'ready')),
        file_name text NOT NULL,
        content_type text NOT NULL,
        purpose text NOT NULL,
        size_bytes integer NOT NULL CHECK (size_bytes > 0),
        checksum_sha256 text CHECK (checksum_sha256 ~ '^[0-9a-f]{64}$'),
        storage_key text NOT NULL,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        upload_expires_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, id),
        CHECK ((status = 'ready') = (completed_at IS NOT NULL AND checksum_sha256 IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX files_list_idx ON files (organization_id, environment, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE authorizations (
        organization_id text NOT NULL REFERENCES organizations(id),
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        status text NOT NULL CHECK (status IN ('requires_input', 'requires_confirmation', 'processing',
          'requires_action', 'waiting_on_payer', 'completed', 'canceled')),
        outcome text CHECK (outcome IN ('approved', 'denied', 'modified', 'not_required', 'failed')),
        provider_npi char(10) NOT NULL,
        payer_id text NOT NULL,
        route_id text NOT NULL,
        portal_auth_mode text NOT NULL CHECK (portal_auth_mode IN ('automated', 'customer_login')),
        policy jsonb NOT NULL,
        payer jsonb NOT NULL,
        template_selection jsonb NOT NULL,
        questionnaire jsonb NOT NULL,
        document_requirements jsonb NOT NULL,
        portal_issues jsonb NOT NULL DEFAULT '[]',
        questionnaire_response jsonb NOT NULL,
        questionnaire_response_version integer NOT NULL CHECK (questionnaire_response_version >= 1),
        attachment_version integer NOT NULL CHECK (attachment_version >= 1),
        requirements jsonb NOT NULL,
        next_action jsonb,
        submission jsonb NOT NULL,
        review_snapshot_id text,
        failure jsonb,
        final_boundary_crossed_at timestamptz,
        decision_due_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        canceled_at timestamptz,
        PRIMARY KEY (organization_id, environment, id),
        CHECK ((status = 'completed') = (outcome IS NOT NULL AND completed_at IS NOT NULL)),
        CHECK ((status = 'canceled') = (canceled_at IS NOT NULL)),
        CHECK ((outcome IS NOT DISTINCT FROM 'failed') = (failure IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX authorizations_list_idx ON authorizations (organization_id, environment, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX authorizations_status_list_idx
      ON authorizations (organization_id, environment, status, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE review_snapshots (
        organization_id text NOT NULL,
        environment text NOT NULL,
        id text NOT NULL,
        authorization_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('current', 'stale', 'approved')),
        kind text NOT NULL CHECK (kind IN ('final_submission')),
        generated_at timestamptz NOT NULL,
        covers_authorization_version integer NOT NULL,
        covers_requirements_version integer NOT NULL,
        covers_questionnaire_response_version integer NOT NULL,
        covers_attachment_version integer NOT NULL,
        summary jsonb NOT NULL,
        questionnaire_response jsonb NOT NULL,
        attachments jsonb NOT NULL,
        warnings text[] NOT NULL,
        live_view_url text,
        next_action_id text NOT NULL,
        PRIMARY KEY (organization_id, environment, id),
        FOREIGN KEY (organization_id, environment, authorization_id)
          REFERENCES authorizations (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX review_snapshots_authorization_idx
      ON review_snapshots (organization_id, environment, authorization_id, generated_at)`);
    // Deferred: a new aggregate is inserted before its snapshot, and the snapshot references the aggregate.
    await q.query(`
      ALTER TABLE authorizations ADD CONSTRAINT authorizations_review_snapshot_fk
        FOREIGN KEY (organization_id, environment, review_snapshot_id)
        REFERENCES review_snapshots (organization_id, environment, id) DEFERRABLE INITIALLY DEFERRED`);

    await q.query(`
      CREATE TABLE authorization_attachments (
        organization_id text NOT NULL,
        environment text NOT NULL,
        authorization_id text NOT NULL,
        id text NOT NULL,
        position integer NOT NULL,
        file_id text NOT NULL,
        document_types text[] NOT NULL,
        label text NOT NULL,
        description text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, authorization_id, id),
        UNIQUE (organization_id, environment, authorization_id, position),
        FOREIGN KEY (organization_id, environment, authorization_id)
          REFERENCES authorizations (organization_id, environment, id) ON DELETE CASCADE,
        FOREIGN KEY (organization_id, environment, file_id) REFERENCES files (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX authorization_attachments_file_idx
      ON authorization_attachments (organization_id, environment, file_id)`);

    await q.query(`
      CREATE TABLE manual_handoffs (
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        authorization_id text NOT NULL,
        interaction_action_id text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        state text NOT NULL CHECK (state IN ('offered', 'active', 'closing', 'closed')),
        result text CHECK (result IN ('completed_reported', 'unable_to_complete', 'expired', 'revoked',
          'interaction_lost_unrecoverable', 'canceled')),
        runtime_session_id text,
        reported_outcome text CHECK (reported_outcome IN ('submitted', 'decision_observed',
          'not_required_observed', 'follow_up_required_observed')),
        observed_reference_number text,
        operator_notes text,
        unable_reason text CHECK (unable_reason IN ('channel_blocked', 'missing_information',
          'credential_or_mfa_issue', 'channel_outage', 'operator_abandoned_case', 'wrong_route', 'other')),
        revoke_reason text,
        revoke_notes text,
        reconciliation_id text,
        reconciliation_state text CHECK (reconciliation_state IN ('pending', 'confirmed', 'not_found')),
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        activated_at timestamptz,
        closed_at timestamptz,
        PRIMARY KEY (organization_id, environment, id),
        FOREIGN KEY (organization_id, environment, authorization_id)
          REFERENCES authorizations (organization_id, environment, id),
        CHECK ((reconciliation_id IS NULL) = (reconciliation_state IS NULL)),
        CHECK ((state = 'closed') = (result IS NOT NULL AND closed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX manual_handoffs_authorization_idx
      ON manual_handoffs (organization_id, environment, authorization_id, created_at, id)`);
    // "At most one handoff owns an interaction lineage" (ManualHandoffRepository.findOpenByInteraction),
    // enforced here because two concurrent creates both pass the use case's check.
    await q.query(`CREATE UNIQUE INDEX manual_handoffs_lineage_owner_idx
      ON manual_handoffs (organization_id, environment, authorization_id, interaction_action_id)
      WHERE state <> 'closed' OR reconciliation_state = 'pending'`);

    await q.query(`
      CREATE TABLE access_grants (
        organization_id text NOT NULL REFERENCES organizations(id),
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('manual_handoff', 'live_session')),
        subject_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX access_grants_subject_idx
      ON access_grants (organization_id, environment, subject_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE access_grant_openings (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id text NOT NULL,
        environment text NOT NULL,
        grant_id text NOT NULL,
        opened_at timestamptz NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('redirected', 'expired', 'revoked', 'subject_inactive')),
        FOREIGN KEY (organization_id, environment, grant_id)
          REFERENCES access_grants (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX access_grant_openings_grant_idx
      ON access_grant_openings (organization_id, environment, grant_id, opened_at)`);

    await q.query(`
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        actor text NOT NULL,
        action text NOT NULL,
        subject_type text NOT NULL,
        subject_id text NOT NULL,
        request_id text,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX audit_log_subject_idx
      ON audit_log (organization_id, environment, subject_type, subject_id, id)`);
    await q.query(`
      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`CREATE TRIGGER audit_log_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`);
    await q.query(`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`);

    await q.query(`
      CREATE TABLE idempotency_records (
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
        lock_token uuid,
        locked_at timestamptz,
        response_status integer,
        response_headers jsonb,
        response_body text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, key),
        CHECK ((state = 'in_flight') = (lock_token IS NOT NULL AND locked_at IS NOT NULL)),
        CHECK ((state = 'completed') = (response_status IS NOT NULL AND response_body IS NOT NULL
          AND response_headers IS NOT NULL AND completed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_records_expiry_idx ON idempotency_records (expires_at)`);

    await q.query(`
      CREATE TABLE outbox_events (
        sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        aggregate_type text NOT NULL CHECK (aggregate_type IN ('authorization', 'file', 'manual_handoff')),
        aggregate_id text NOT NULL,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_events_aggregate_idx
      ON outbox_events (organization_id, environment, aggregate_type, aggregate_id, sequence)`);
    await q.query(
      `CREATE INDEX outbox_events_unpublished_idx ON outbox_events (sequence) WHERE published_at IS NULL`,
    );

    await q.query(`
      CREATE TABLE jobs (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type text NOT NULL,
        authorization_id text NOT NULL,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        run_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        max_attempts integer NOT NULL CHECK (max_attempts >= 1),
        locked_by text,
        locked_until timestamptz,
        last_error text,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        done_at timestamptz,
        failed_at timestamptz
      )`);
    // Only unfinished jobs are ever polled; the partial index stays small however many jobs are done.
    await q.query(
      `CREATE INDEX jobs_ready_idx ON jobs (run_at, id) WHERE done_at IS NULL AND failed_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX jobs_authorization_idx ON jobs (organization_id, environment, authorization_id, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE jobs');
    await q.query('DROP TABLE outbox_events');
    await q.query('DROP TABLE idempotency_records');
    await q.query('DROP TABLE audit_log');
    await q.query('DROP FUNCTION audit_log_append_only()');
    await q.query('DROP TABLE access_grant_openings');
    await q.query('DROP TABLE access_grants');
    await q.query('DROP TABLE manual_handoffs');
    await q.query('DROP TABLE authorization_attachments');
    await q.query('ALTER TABLE authorizations DROP CONSTRAINT authorizations_review_snapshot_fk');
    await q.query('DROP TABLE review_snapshots');
    await q.query('DROP TABLE authorizations');
    await q.query('DROP TABLE files');
  }
}
