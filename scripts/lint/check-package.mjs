// `pnpm lint:package`: packs @retry-safe/idempotency as npm would publish it and checks the tarball itself, not
// the work tree: publint (package.json against the files that ship) and @arethetypeswrong/cli (every `exports`
// subpath resolves with types for ESM consumers: node16/nodenext and bundlers). Also fails if build info or a
// source map pointing at a file outside the tarball ships, or if a declaration file imports a package its subpath
// does not need: every peer is optional, and an app that type-checks its libraries (`skipLibCheck: false`) fails
// on an import of one it has not installed (TS2307).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The packages the declarations under each directory of dist/ may import: a subpath's own peers (an app using
// `./redis` has ioredis). The root and `./memory` need none: `@opentelemetry/api` is optional for every subpath
// (the coordinator declares the tracer it takes structurally).
const DECLARATION_IMPORTS = [
  ['dist/redis/', ['ioredis']],
  ['dist/postgres/', ['pg']],
  ['dist/nest/', ['@nestjs/common', '@nestjs/core', 'rxjs']],
  ['dist/', []],
];

/** Imports of packages (not relative, not `node:`) by shipped .d.ts files outside what their subpath needs. */
function declarationImportProblems(tarball, shipped) {
  const problems = [];
  for (const file of [...shipped].filter((f) => f.endsWith('.d.ts'))) {
    // Comments out: a TSDoc example's `import ... from '@retry-safe/idempotency/postgres'` is no import.
    const text = execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' }).replace(
      /\/\*[\s\S]*?\*\//g,
      '',
    );
    const allowed = DECLARATION_IMPORTS.find(([dir]) => file.startsWith(dir))?.[1] ?? [];
    for (const [, specifier] of text.matchAll(/(?:\bfrom|\bimport\(?)\s*['"]([^'"]+)['"]/g)) {
      if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0];
      if (!allowed.includes(name))
        problems.push(`${file} imports ${specifier}, which its subpath does not need`);
    }
  }
  return problems;
}
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
  problems.push(...declarationImportProblems(tarball, shipped));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  execFileSync(bin('publint'), ['run', tarball, '--strict'], { stdio: 'inherit' });
  execFileSync(bin('attw'), [tarball, '--profile', 'esm-only'], { stdio: 'inherit' });
  console.log(`${files.length} files in ${tarball.replace(out, '<tmp>')}: publint and attw clean`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
