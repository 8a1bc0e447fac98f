import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

// A CommonJS app (Nest 11's `nest new` default) loads this ESM package with `require()`. Node refuses a module
// graph with a top-level await there (ERR_REQUIRE_ASYNC_MODULE), so every entry is required by a real CommonJS
// process, from the built package (`pnpm build` runs before the test suites; alone: `pnpm --filter
// @retry-safe/idempotency build`).
const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(packageDir, 'dist');

const ENTRIES: [string, string, string][] = [
  // [entry, file under dist, an export it must have]
  ['.', 'index.js', 'IdempotencyCoordinator'],
  ['./nest', 'nest/index.js', 'IdempotencyModule'],
  ['./redis', 'redis/index.js', 'RedisIdempotencyStore'],
  ['./postgres', 'postgres/index.js', 'PostgresIdempotencyStore'],
  ['./memory', 'memory/index.js', 'MemoryIdempotencyStore'],
];

/** Runs `script` in a CommonJS `node -e` from the package's folder; its exit code, stdout and stderr. */
async function commonJs(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--input-type=commonjs', '-e', script], {
      cwd: packageDir,
      timeout: 30_000,
      // Not Jest's --experimental-vm-modules: the app's plain Node.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failed.code ?? 1), stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('every entry loads with require() (CommonJS apps)', () => {
  it('is built', () => {
    expect([dist, existsSync(join(dist, 'index.js'))]).toEqual([dist, true]);
  });

  it.each(ENTRIES)('require() of %s (dist/%s) loads and exports %s', async (_, file, name) => {
    const path = join(dist, file);
    const result = await commonJs(
      `const m = require(${JSON.stringify(path)}); console.log(typeof m[${JSON.stringify(name)}]);`,
    );
    expect(result).toEqual({ code: 0, stdout: 'function\n', stderr: '' });
  });

  it('require() by the package name resolves through its exports map', async () => {
    const script = ENTRIES.map(
      ([entry, , name]) =>
        `if (typeof require(${JSON.stringify(`@retry-safe/idempotency${entry.slice(1)}`)})[${JSON.stringify(name)}] !== 'function') process.exit(3);`,
    ).join('\n');
    await expect(commonJs(`${script}\nconsole.log('ok')`)).resolves.toEqual({
      code: 0,
      stdout: 'ok\n',
      stderr: '',
    });
  });

  it('a module graph with a top-level await is what require() refuses (the check above can fail)', async () => {
    const result = await commonJs(
      `try { require(${JSON.stringify(join(packageDir, 'test', 'integration', 'fixtures', 'top-level-await.mjs'))}); } ` +
        `catch (e) { console.log(e.code); }`,
    );
    expect(result.stdout).toBe('ERR_REQUIRE_ASYNC_MODULE\n');
  });

  it('no shipped source has a top-level await', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') || entry.name.endsWith('.js')) {
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, index) => {
              // Statements at column 0 are top-level in these files (the formatter indents everything else).
              if (/^(?:export\s+)?(?:(?:const|let|var)\s.*=\s*await\b|await\b|for\s+await\b)/.test(line)) {
                offenders.push(`${relative(packageDir, path)}:${index + 1}: ${line}`);
              }
            });
        }
      }
    };
    walk(join(packageDir, 'src'));
    if (existsSync(dist)) walk(dist);
    expect(offenders).toEqual([]);
  });
});
