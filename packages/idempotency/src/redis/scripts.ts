import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A Lua script with its SHA1, loaded from `scripts/<name>-<numberOfKeys>.lua` next to this file. */
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
  return readFileSync(new URL(`./scripts/${path}`, import.meta.url), 'utf8');
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
