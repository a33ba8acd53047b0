import { resolve } from 'node:path';

/** Local state (embedded database, stored files) lives under one git-ignored folder. */
export function dataDir(env: Record<string, string | undefined> = process.env): string {
  return resolve(env.PRIOR_AUTH_DATA_DIR ?? '.data');
}
