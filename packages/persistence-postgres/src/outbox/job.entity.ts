import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `jobs`: work for the worker, written in the transaction of the change that calls for it. */
export interface JobRow {
  /** bigint identity, as a string (node-postgres does not narrow int8 to number). */
  id: string;
  type: string;
  authorization_id: string;
  organization_id: string;
  environment: Environment;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
  done_at: Date | null;
  failed_at: Date | null;
}

export const JobEntity = new EntitySchema<JobRow>({
  name: 'job',
  tableName: 'jobs',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    type: { type: 'text' },
    authorization_id: { type: 'text' },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    run_at: { type: 'timestamptz' },
    attempts: { type: 'integer' },
    max_attempts: { type: 'integer' },
    locked_by: { type: 'text', nullable: true },
    locked_until: { type: 'timestamptz', nullable: true },
    last_error: { type: 'text', nullable: true },
    payload: { type: 'jsonb' },
    created_at: { type: 'timestamptz' },
    done_at: { type: 'timestamptz', nullable: true },
    failed_at: { type: 'timestamptz', nullable: true },
  },
});
