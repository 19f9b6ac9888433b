// The docs' parameter tables are the specs': `npm run docs:params` rewrites them, and this
// fails when a spec changed and the docs were not rewritten.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGES, withTables } from '../../dev/docs/params.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the parameter tables of the docs', () => {
  it.each(['docs/usage.md', 'docs/statistical-detector.md', 'docs/tail-detector.md', 'docs/trace-format.md'])('%s is as the specs make it (npm run docs:params)', (page) => {
    expect(PAGES).toContain(page);
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    expect(text).toMatch(/<!-- params:[a-z-]+ -->/);
    expect(withTables(text)).toBe(text);
  });

  it('a table follows the specs: a changed default shows as out of date', () => {
    const stale = '<!-- params:statistical -->\n| `--stat-threshold X` | `2` |\n<!-- /params -->\n';
    const fresh = withTables(stale);
    expect(fresh).not.toBe(stale);
    expect(fresh).toMatch(/^\| `--stat-threshold X` \| `3` \| 0\.1 to 1000 \| a deviation above this many MADs counts \|$/m);
  });

  it('the README has no parameter table: its defaults are on docs/usage.md', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/^\| flag \|/m);
    expect(readme).toMatch(/docs\/usage\.md/);
  });
});
