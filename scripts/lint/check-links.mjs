// `pnpm lint:snippets` (second half): every relative link of the docs (README.md, CONTRIBUTING.md, docs/*.md, each
// workspace's README.md) must lead somewhere: the file or folder exists, a `#heading` anchor of a Markdown file is
// one of its headings (GitHub's slugs), and a `#L10-L20` line range is within the file. A link into the code that
// moved or shrank fails here instead of sending a reader to nothing. Links with a scheme (https:, mailto:) are not
// followed: nothing is fetched.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

// [text](target) outside code: fenced blocks and inline code are blanked first, so a link in a sample is no link.
const LINK = /\]\(([^)\s]+)\)/g;
const FENCE = /^```[\s\S]*?^```/gm;
const INLINE_CODE = /`[^`\n]*`/g;

/** GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), spaces as `-`, repeats numbered. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const [, heading] of text.replace(FENCE, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with the relative links of `docs` (paths from `root`): one line per broken link. */
export function linkProblems(root, docs) {
  const problems = [];
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), 'utf8');
    const prose = text.replace(FENCE, '').replace(INLINE_CODE, '');
    for (const [, target] of prose.matchAll(LINK)) {
      const problem = linkProblem(root, doc, target);
      if (problem !== undefined) problems.push(`${doc}: links to ${target}, but ${problem}`);
    }
  }
  return problems;
}

function linkProblem(root, doc, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path, fragment] = target.split('#');
  const file = path === '' ? join(root, doc) : join(root, dirname(doc), decodeURIComponent(path));
  const shown = relative(root, file) || '.';
  if (!existsSync(file)) return `${shown} does not exist`;
  if (fragment === undefined || statSync(file).isDirectory()) return undefined;
  const lines = /^L(\d+)(?:-L(\d+))?$/.exec(fragment);
  if (lines !== null) {
    const first = Number(lines[1]);
    const last = Number(lines[2] ?? lines[1]);
    const length = readFileSync(file, 'utf8').split('\n').length;
    return first < 1 || last > length || last < first ? `${shown} has ${length} lines` : undefined;
  }
  if (file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(fragment)) {
    return `${shown} has no heading with that anchor`;
  }
  return undefined;
}

/** The documents `pnpm lint:snippets` checks: the READMEs, CONTRIBUTING.md, docs/*.md. */
function projectDocs(root) {
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...['apps', 'packages'].flatMap((folder) =>
      readdirSync(join(root, folder))
        .map((name) => `${folder}/${name}/README.md`)
        .filter((path) => existsSync(join(root, path))),
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const docs = projectDocs(root);
  const problems = linkProblems(root, docs);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log(`check-links: every relative link of ${docs.length} documents leads somewhere`);
}
