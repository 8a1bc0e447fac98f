/**
 * Data directories of private PostgreSQL clusters. `initdb` boots the server several times in single-user mode
 * (about a second of CPU), and a `pnpm test` starts dozens of private clusters (one per scenario stack): it runs
 * once per machine, binaries and user instead, into a template under the temporary directory
 * (`retry-safe-pg-template-<hash>`), and each cluster gets a copy of it, taken as the server's user. A copy of a
 * never-started cluster is what `initdb` would have written, but for its system identifier (which only replication
 * reads).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, chown, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Everything `initdb` is asked for but the directory (part of the template's name). */
const INITDB_ARGS = ['-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'] as const;

/** The user a private server runs as (root's `postgres`), as `spawn`/`execFile` options. */
type RunAs = { uid: number; gid: number } | Record<string, never>;

/** A fresh cluster's data directory (`data` under `dir`, where the socket goes too), and the user to run it as. */
export interface DataDir {
  readonly dir: string;
  readonly data: string;
  readonly as: RunAs;
}

/** The uid/gid to run the server as: initdb and postgres refuse to run as root, so root uses `postgres`. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string): Promise<number> =>
    Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch (error) {
    throw new Error('startPostgres: running as root needs a "postgres" user to own the private cluster', {
      cause: error,
    });
  }
}

/** A new directory `<prefix><random>`, owned by the server's user. */
async function ownedTempDir(prefix: string, as: RunAs): Promise<string> {
  const dir = await mkdtemp(prefix);
  if ('uid' in as) await chown(dir, as.uid, as.gid);
  return dir;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The template data directory of these binaries, made on first use. It appears whole (renamed into place once
 * `initdb` is done; a process that loses that race uses the winner's); one without its control file (a cleaner
 * of the temporary directory removes old files) is moved aside and made again.
 */
async function templateDataDir(binDir: string, as: RunAs, root: string): Promise<string> {
  const initdb = join(binDir, 'initdb');
  const { stdout: version } = await run(initdb, ['--version']);
  const key = createHash('sha256')
    .update([binDir, version.trim(), ...INITDB_ARGS, JSON.stringify(as)].join('\n'))
    .digest('hex')
    .slice(0, 16);
  const template = join(root, `retry-safe-pg-template-${key}`);
  const complete = (): Promise<boolean> => exists(join(template, 'global', 'pg_control'));
  if (await complete()) return template;
  if (await exists(template)) {
    const stale = `${template}-stale-${randomBytes(4).toString('hex')}`;
    // Renamed first: a process that raced us to it has moved it already (and then this rename fails).
    await rename(template, stale).then(
      () => rm(stale, { recursive: true, force: true }),
      () => undefined,
    );
  }
  const staging = await ownedTempDir(join(root, `retry-safe-pg-template-${key}-`), as);
  try {
    await run(initdb, ['-D', join(staging, 'data'), ...INITDB_ARGS], { ...as, cwd: staging });
    await rename(join(staging, 'data'), template).catch(async (error: unknown) => {
      if (!(await complete())) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return template;
}

/**
 * A fresh cluster in a temporary directory (`retry-safe-pg-*`): a copy of the template data directory.
 * @param templateRoot where the template is kept (tests of the template use one of their own) @default tmpdir()
 */
export async function initDataDir(binDir: string, templateRoot: string = tmpdir()): Promise<DataDir> {
  const user = await serverUser();
  const as: RunAs = user ? { uid: user.uid, gid: user.gid } : {};
  const template = await templateDataDir(binDir, as, templateRoot);
  const dir = await ownedTempDir(join(tmpdir(), 'retry-safe-pg-'), as);
  const data = join(dir, 'data');
  // As the server's user, so the copy is its own (postgres refuses a data directory it does not own).
  await run('cp', ['-R', '-p', template, data], { ...as, cwd: dir });
  return { dir, data, as };
}
