// The packed @retry-safe/idempotency as its npm page and `npm install` see it, not the work tree: its
// package.json keeps no `catalog:` or `workspace:` range (npm cannot resolve either), every `files` entry names
// something that ships (npm skips a missing one without a word), and every link of its README works from npm: a
// relative link must name a file of the tarball (a docs page or an example outside the package is dead there), and
// a link into this repository on GitHub must name a path that exists. Run by `pnpm lint:package` on a tarball of
// its own, and by `pnpm test:example` on the tarball the apps install.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, matchesGlob, posix } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The problems of a packed tarball, one sentence each; none when it is fit to publish. */
export function packedManifestProblems(tarball) {
  const shipped = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((file) => file.replace(/^package\//, ''));
  const read = (file) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' });
  const manifest = JSON.parse(read('package.json'));
  const problems = [];

  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(catalog|workspace):/.test(range)) problems.push(`package.json: ${field}.${name} is "${range}"`);
    }
  }

  for (const entry of manifest.files ?? []) {
    if (entry.startsWith('!')) continue;
    const pattern = entry.replace(/^\.\//, '').replace(/\/$/, '');
    const ships = shipped.some(
      (file) => file === pattern || file.startsWith(`${pattern}/`) || matchesGlob(file, pattern),
    );
    if (!ships) problems.push(`package.json: "files" names ${entry}, which is not in the tarball`);
  }

  if (shipped.includes('README.md')) {
    const repository = repositoryTree(manifest.repository);
    for (const target of markdownLinks(read('README.md'))) {
      const problem = linkProblem(target, shipped, repository);
      if (problem !== undefined) problems.push(`README.md: ${target}: ${problem}`);
    }
  }
  return problems;
}

/** `https://github.com/<owner>/<name>` of package.json's `repository`, if it is on GitHub. */
function repositoryTree(repository) {
  const url = typeof repository === 'string' ? repository : repository?.url;
  const match = /github\.com[/:]([^/]+\/[^/.]+)/.exec(url ?? '');
  return match === null ? undefined : `https://github.com/${match[1]}`;
}

/** Every link target of the markdown outside code: inline `[text](target)`, images, and `[label]: target`. */
function markdownLinks(markdown) {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (m) => m[1],
  );
  return [...inline, ...references];
}

/** Why `target` is dead on the npm page, or `undefined`. */
function linkProblem(target, shipped, repository) {
  if (target.startsWith('#')) return undefined;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//')) {
    const path = posix.normalize(decodeURI(target.split('#')[0]));
    if (path.startsWith('../'))
      return 'a relative link that leaves the package (dead on npm: make it absolute)';
    return shipped.some((file) => file === path || file.startsWith(`${path.replace(/\/$/, '')}/`))
      ? undefined
      : 'a relative link to a file that does not ship';
  }
  if (repository === undefined || !target.startsWith(`${repository}/`)) return undefined;
  // A link into this repository: the path must exist here (on the default branch once this is merged).
  const match = /^\/(?:blob|tree)\/[^/]+\/([^#?]*)/.exec(target.slice(repository.length));
  if (match === null) return undefined;
  // Not its #heading: link the README to pages, whose headings may be renamed without a check noticing.
  const file = join(root, decodeURI(match[1]));
  return existsSync(file) ? undefined : `${match[1]} does not exist in the repository`;
}

// `node scripts/lint/packed-manifest.mjs`: packs the library (as `pnpm publish` would) and checks the tarball.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = mkdtempSync(join(tmpdir(), 'retry-safe-manifest-'));
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', out], {
      cwd: join(root, 'packages/idempotency'),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = join(
      out,
      readdirSync(out).find((file) => file.endsWith('.tgz')),
    );
    const problems = packedManifestProblems(tarball);
    // Every subpath with its types in every resolution mode, node10 too (`typesVersions`: check-package.mjs's attw
    // run leaves it out). A CommonJS app's `require` of the ESM entries is fine on Node 24 and TypeScript's
    // `nodenext` (examples/nest-commonjs runs it), so attw's "ESM (dynamic import only)" is no problem here.
    try {
      execFileSync(join(root, 'node_modules/.bin/attw'), [tarball, '--ignore-rules', 'cjs-resolves-to-esm'], {
        encoding: 'utf8',
      });
    } catch (error) {
      problems.push(`attw (node10 included):\n${error.stdout}${error.stderr}`);
    }
    if (problems.length > 0) {
      console.error(`packed manifest:\n${problems.join('\n')}`);
      process.exitCode = 1;
    } else {
      console.log(
        'packed manifest: no catalog:/workspace: ranges, every "files" entry ships, README links work, ' +
          'every subpath typed in every resolution mode (node10 too)',
      );
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
