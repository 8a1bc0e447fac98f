import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from here with pnpm-workspace.yaml (ends with a separator). */
export function repoRoot(): string {
  let dir = new URL('.', import.meta.url);
  while (!existsSync(new URL('pnpm-workspace.yaml', dir))) {
    const parent = new URL('..', dir);
    if (parent.href === dir.href) throw new Error('pnpm-workspace.yaml not found above bench/');
    dir = parent;
  }
  return fileURLToPath(dir);
}

/**
 * The built checkout named by `--baseline <dir>` on the command line, else by the variable `envName`, that a
 * benchmark measures side by side with this tree; undefined when neither is given.
 * @throws Error when that checkout has no built gateway (`pnpm build` it first).
 */
export function baselineCheckout(envName: string): string | undefined {
  const flag = process.argv.indexOf('--baseline');
  const dir = flag >= 0 ? process.argv[flag + 1] : process.env[envName];
  if (dir === undefined || dir === '') return undefined;
  const root = resolve(dir);
  if (!existsSync(resolve(root, 'apps', 'gateway', 'dist', 'main.js')))
    throw new Error(`--baseline ${root}: no apps/gateway/dist/main.js there (build that checkout first)`);
  return root;
}
