import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// provider-sim stands for an external system: generic infrastructure only, none of its callers' contracts.
const GENERIC = [
  '@retry-safe/app-shell',
  '@retry-safe/contracts/http',
  '@retry-safe/fault-injection',
  '@retry-safe/idempotency',
];
const src = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const workspaceImports = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '(@retry-safe\/[^']+)'/gm)].map(
    (m) => m[1]!,
  );

describe('provider-sim boundaries', () => {
  it.each(files(src).map((f) => relative(src, f)))('%s imports only generic workspace packages', (file) => {
    expect(workspaceImports(join(src, file)).filter((name) => !GENERIC.includes(name))).toEqual([]);
  });
});
