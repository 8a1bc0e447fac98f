import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// The core entry (`.`) knows no driver and no framework: only `./redis` may import ioredis, only `./postgres` pg
// (and Kysely), only `./nest` NestJS.
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

const imports = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => m[1]!);

const subpaths = ['redis', 'postgres', 'nest'];

describe('package boundaries', () => {
  it.each(files(src).map((f) => relative(src, f)))('%s imports only what its subpath may', (file) => {
    const found = imports(join(src, file));
    const subpath = file.split('/')[0];
    if (subpath !== 'redis') expect(found.filter((i) => i === 'ioredis')).toEqual([]);
    if (subpath !== 'nest') expect(found.filter((i) => i.startsWith('@nestjs/'))).toEqual([]);
    if (subpath !== 'postgres') expect(found.filter((i) => i === 'pg' || i === 'kysely')).toEqual([]);
    // The core never reaches into a subpath; subpaths build on the core, not on each other.
    if (!subpaths.includes(subpath!)) {
      expect(found.filter((i) => /^\.\/(redis|postgres|nest)\//.test(i))).toEqual([]);
    }
    if (subpaths.includes(subpath!)) {
      for (const other of subpaths.filter((s) => s !== subpath)) {
        expect(found.filter((i) => i.includes(`/${other}/`))).toEqual([]);
      }
    }
  });
});
