import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The monorepo's root: the nearest directory above this module holding `pnpm-workspace.yaml`. Walked up rather than
 * a fixed `../..`, because this module runs both from `src/` (ts-jest) and from `dist/` (the CLIs).
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}
