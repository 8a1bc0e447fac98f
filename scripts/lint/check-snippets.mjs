// `pnpm lint:snippets`: every code block of the library's docs is a file that the type-check compiles. A block
// preceded by `<!-- snippet: <path from the repo root> -->` must equal that file; a ts block without one fails.
import { readFileSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docs = ['packages/idempotency/README.md'];
const BLOCK = /(?:<!-- snippet: (\S+) -->\n)?```(ts|typescript)\n([\s\S]*?)```/g;
const problems = [];
for (const doc of docs) {
  const text = readFileSync(`${root}/${doc}`, 'utf8');
  for (const [, path, , code] of text.matchAll(BLOCK)) {
    if (path === undefined) {
      problems.push(`${doc}: a ts block without <!-- snippet: path --> (it would not be type-checked)`);
    } else if (readFileSync(`${root}/${path}`, 'utf8') !== code) {
      problems.push(`${doc}: the block of ${path} differs from the file (copy the file into the doc)`);
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
