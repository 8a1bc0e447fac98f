import { existsSync } from 'node:fs';
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
