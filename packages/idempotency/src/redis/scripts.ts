import { createHash } from 'node:crypto';
import { luaSources } from './lua-sources.generated.js';

/**
 * A Lua script with its SHA1, from `scripts/<name>-<numberOfKeys>.lua`: embedded in the build
 * (lua-sources.generated.ts), so nothing is read from disk at run time and a bundler can inline the package.
 */
export interface LuaScript {
  readonly name: string;
  readonly numberOfKeys: number;
  /** The source as sent to Redis: every `--- @include` already inlined. */
  readonly source: string;
  readonly sha: string;
}

// As in BullMQ: a line `--- @include "includes/<name>"` is replaced by that file, once per script.
const INCLUDE = /^--- @include "([\w/-]+)"[ \t]*$/gm;

function read(path: string): string {
  const source = luaSources[path];
  if (source === undefined) throw new Error(`no embedded Lua script ${path}`);
  return source;
}

/** Inlines the includes of `source` (recursively; a file already inlined is skipped, so no cycle repeats). */
export function inlineIncludes(source: string, readInclude: (path: string) => string = read): string {
  const seen = new Set<string>();
  const inline = (text: string): string =>
    text.replace(INCLUDE, (_line, path: string) => {
      if (seen.has(path)) return '';
      seen.add(path);
      return inline(readInclude(`${path}.lua`)).trimEnd();
    });
  return inline(source);
}

function load(file: string): LuaScript {
  const match = /^(.*)-(\d+)\.lua$/.exec(file);
  if (!match) throw new Error(`script file ${file} is not named <name>-<numberOfKeys>.lua`);
  const source = inlineIncludes(read(file));
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
