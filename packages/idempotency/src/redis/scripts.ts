import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A Lua script with its SHA1, loaded from `scripts/<name>-<numberOfKeys>.lua` next to this file. */
export interface LuaScript {
  readonly name: string;
  readonly numberOfKeys: number;
  readonly source: string;
  readonly sha: string;
}

function load(file: string): LuaScript {
  const source = readFileSync(new URL(`./scripts/${file}`, import.meta.url), 'utf8');
  const match = /^(.*)-(\d+)\.lua$/.exec(file);
  if (!match) throw new Error(`script file ${file} is not named <name>-<numberOfKeys>.lua`);
  return {
    name: match[1]!,
    numberOfKeys: Number(match[2]),
    source,
    sha: createHash('sha1').update(source).digest('hex'),
  };
}

/** Every state change the Redis store makes, one script each. */
export const scripts = {
  claim: load('claim-1.lua'),
  complete: load('complete-1.lua'),
  renew: load('renew-1.lua'),
  release: load('release-1.lua'),
  storeIfAbsent: load('store-if-absent-1.lua'),
} as const;
