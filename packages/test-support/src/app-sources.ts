import { fork, spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository's root (from this package's `src` or `dist`). */
const REPO_DIR = resolve(__dirname, '../../..');

/** How the apps a test spawns compile: workspace packages from their sources (tsconfig.sources.json). */
const SOURCES_TSCONFIG = resolve(__dirname, '..', 'tsconfig.sources.json');

/**
 * Starts an app from its TypeScript source as `pnpm start` runs it, with exactly `env` (and the sources'
 * compiler settings), its output piped to the test.
 */
export function spawnApp(app: 'api' | 'worker' | 'payer-sandbox', env: NodeJS.ProcessEnv): ChildProcess {
  const cwd = join(REPO_DIR, 'apps', app);
  return spawn(process.execPath, ['--import', 'tsx', join(cwd, 'src', 'main.ts')], {
    cwd,
    env: { ...env, TSX_TSCONFIG_PATH: SOURCES_TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs a test's own TypeScript script as a child process with an IPC channel, compiled like the apps a test
 * spawns (workspace packages from their sources), for a process a test must be able to kill.
 */
export function forkScript(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return fork(script, args, {
    cwd: REPO_DIR,
    execArgv: ['--import', 'tsx'],
    env: { ...env, TSX_TSCONFIG_PATH: SOURCES_TSCONFIG },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
