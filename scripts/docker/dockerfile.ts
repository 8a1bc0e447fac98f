/** A Dockerfile read as BuildKit reads it: instructions, words, and build arguments substituted. */

/** One instruction: continuation lines joined, its arguments as written. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  /** 1-based line of its first line. */
  readonly line: number;
}

/** Splits a Dockerfile into instructions: continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (buffer === '' && (line === '' || line.startsWith('#'))) return;
    if (buffer !== '' && line.startsWith('#')) return;
    if (buffer === '') start = index + 1;
    if (line.endsWith('\\')) {
      buffer += `${line.slice(0, -1)} `;
      return;
    }
    buffer += line;
    const match = /^(\S+)\s*(.*)$/s.exec(buffer);
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start });
    buffer = '';
  });
  return instructions;
}

/** Shell-like words: quotes removed, JSON exec form supported. */
export function words(args: string): string[] {
  if (args.startsWith('[')) {
    try {
      return (JSON.parse(args) as unknown[]).map(String);
    } catch {
      // Not JSON: fall through to the shell form.
    }
  }
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/**
 * `$NAME` and `${NAME}` replaced by the build argument's value, as BuildKit does in COPY, RUN's environment and
 * the like; a name without a value stays as written (so a check can say it is unset).
 */
export function substitute(text: string, args: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced, bare) => {
    const value = args[(braced ?? bare) as string];
    return value ?? whole;
  });
}

/** RUN's options (`--mount=...`, `--network=...`) and the shell command after them. */
export function runParts(args: string): { mounts: string[]; command: string } {
  const mounts: string[] = [];
  let rest = args.trimStart();
  for (let option = /^--(\S+)\s*/.exec(rest); option !== null; option = /^--(\S+)\s*/.exec(rest)) {
    if (option[1]!.startsWith('mount=')) mounts.push(option[1]!.slice('mount='.length));
    rest = rest.slice(option[0].length);
  }
  return { mounts, command: rest };
}

/** One `--mount=` value as its fields (`type`, `source`, `target`, `rw`, ...). */
function mountFields(mount: string): Map<string, string> {
  return new Map(
    mount.split(',').map((field) => {
      const [key, ...value] = field.split('=');
      return [key!, value.join('=')] as const;
    }),
  );
}

/** The `target` of every `type=cache` mount among RUN's mounts. */
export function cacheTargets(mounts: readonly string[]): string[] {
  return mounts.flatMap((mount) => {
    const fields = mountFields(mount);
    const target = fields.get('target') ?? fields.get('dst') ?? fields.get('destination');
    return fields.get('type') === 'cache' && target !== undefined ? [target] : [];
  });
}

/**
 * The build-context source of every `type=bind` mount among RUN's mounts (`.` when it names none); a bind from
 * another stage or image (`from=`) is not the context and is left out.
 */
export function contextBindSources(mounts: readonly string[]): string[] {
  return mounts.flatMap((mount) => {
    const fields = mountFields(mount);
    if (fields.get('type') !== 'bind' || fields.has('from')) return [];
    return [fields.get('source') ?? fields.get('src') ?? '.'];
  });
}
