// `pnpm lint:package`: packs @retry-safe/idempotency as npm would publish it and checks the tarball itself, not
// the work tree: publint (package.json against the files that ship) and @arethetypeswrong/cli (every `exports`
// subpath resolves with types for ESM consumers: node16/nodenext and bundlers). Also fails if build info or a
// source map pointing at a file outside the tarball ships.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = join(root, 'packages/idempotency');
const bin = (name) => join(root, 'node_modules/.bin', name);
const out = mkdtempSync(join(tmpdir(), 'retry-safe-pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', out], {
    cwd: pkg,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = join(out, execFileSync('ls', [out], { encoding: 'utf8' }).trim());
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  const shipped = new Set(files.map((f) => f.replace(/^package\//, '')));
  const problems = [...shipped].filter((f) => f.endsWith('.tsbuildinfo')).map((f) => `ships build info ${f}`);
  for (const map of [...shipped].filter((f) => f.endsWith('.map'))) {
    const text = execFileSync('tar', ['-xzOf', tarball, `package/${map}`], { encoding: 'utf8' });
    for (const source of JSON.parse(text).sources) {
      const target = join(map, '..', source).replaceAll('\\', '/');
      if (!shipped.has(target)) problems.push(`${map} points at ${source}, which does not ship`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  execFileSync(bin('publint'), ['run', tarball, '--strict'], { stdio: 'inherit' });
  execFileSync(bin('attw'), [tarball, '--profile', 'esm-only'], { stdio: 'inherit' });
  console.log(`${files.length} files in ${tarball.replace(out, '<tmp>')}: publint and attw clean`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
