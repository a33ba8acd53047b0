import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0045: the replay segments of portal runs, internal evidence kept 30 days. The frames are in blob
 * storage (one object per segment, `blob_key`); a row says whose run, which part of it and until when. No
 * foreign key to the case: a segment goes with its expiry, its bytes first, never silently with a row.
 */
export class ReplaySegments1763767000000 implements MigrationInterface {
  name = 'ReplaySegments1763767000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE replay_segments (
      organization_id text NOT NULL,
      environment text NOT NULL,
      authorization_id text NOT NULL,
      runtime_session_id text NOT NULL,
      seq integer NOT NULL,
      blob_key text NOT NULL,
      starts_at timestamptz NOT NULL,
      first_frame_at timestamptz,
      last_frame_at timestamptz,
      frame_count integer NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, environment, authorization_id, runtime_session_id, seq)
    )`);
    await q.query('CREATE INDEX replay_segments_expiry_idx ON replay_segments (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE replay_segments');
  }
}
