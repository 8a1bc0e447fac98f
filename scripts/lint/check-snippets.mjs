// `pnpm lint:snippets`: every code block of the library's README is a file that is compiled: a block preceded by
// `<!-- snippet: <path from the repo root> -->` must equal that file; a ts block without one fails. The API doc
// also has sketches that are not whole files (its usage overview); there only the marked blocks are checked.
// packages/idempotency/examples/*.ts are compiled by the type-check, examples/nest-charges by `pnpm test:example`
// (against the packed library, with its own dependencies).
import { readFileSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docs = [
  { doc: 'packages/idempotency/README.md', everyBlock: true },
  { doc: 'docs/idempotency-api.md', everyBlock: false },
  { doc: 'docs/idempotency-nest.md', everyBlock: false },
  { doc: 'docs/idempotency-redis.md', everyBlock: false },
  { doc: 'docs/idempotency-postgres.md', everyBlock: false },
  { doc: 'docs/idempotency-memory.md', everyBlock: false },
];
const BLOCK = /(?:<!-- snippet: (\S+) -->\n)?```(ts|typescript)\n([\s\S]*?)```/g;
const problems = [];
for (const { doc, everyBlock } of docs) {
  const text = readFileSync(`${root}/${doc}`, 'utf8');
  for (const [, path, , code] of text.matchAll(BLOCK)) {
    if (path === undefined) {
      if (!everyBlock) continue;
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
