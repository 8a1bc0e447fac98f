import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { linkProblems } from '../../lint/check-links.mjs';

const root = mkdtempSync(join(tmpdir(), 'check-links-'));
mkdirSync(join(root, 'docs'));
mkdirSync(join(root, 'src'));
writeFileSync(join(root, 'src', 'a.ts'), 'one\ntwo\nthree\n');
writeFileSync(join(root, 'docs', 'b.md'), '# Title\n\n## The module, with `Redis`\n\n## Again\n\n## Again\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const problemsOf = (text: string): string[] => {
  writeFileSync(join(root, 'docs', 'a.md'), text);
  return linkProblems(root, ['docs/a.md']);
};

describe('check-links', () => {
  it('passes links to files, folders, headings (GitHub anchors) and line ranges that exist', () => {
    expect(
      problemsOf(
        '[f](../src/a.ts) [d](../src) [h](b.md#the-module-with-redis) [n](b.md#again-1) [l](../src/a.ts#L1-L3) ' +
          '[one](../src/a.ts#L2) [web](https://example.org/x) [self](#top)\n# Top\n',
      ),
    ).toEqual([]);
  });

  it('names each broken link: a missing file, an unknown anchor, a line range past the end', () => {
    expect(problemsOf('[f](../src/gone.ts) [h](b.md#nope) [l](../src/a.ts#L2-L9)\n')).toEqual([
      'docs/a.md: links to ../src/gone.ts, but src/gone.ts does not exist',
      'docs/a.md: links to b.md#nope, but docs/b.md has no heading with that anchor',
      'docs/a.md: links to ../src/a.ts#L2-L9, but src/a.ts has 4 lines',
    ]);
  });

  it('reads no link inside code', () => {
    expect(problemsOf('`[x](gone.md)`\n\n```md\n[y](gone.md)\n```\n')).toEqual([]);
  });
});
