// A function of src/ reads on one screen: at most 80 lines. A longer one does several jobs,
// each of which can be named and tested apart (docs/architecture.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-files.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 80;

/** Every function, method, accessor or arrow with a body over `MAX_LINES` lines in `text`, as `file:line name (N lines)`. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = 'name' in node && node.name ? node.name.getText(source) : ts.SyntaxKind[node.kind];
      if (last - first + 1 > MAX_LINES) found.push(`${path.relative(ROOT, file)}:${first + 1} ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('functions of src/', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    expect(sourceFiles(path.join(ROOT, 'src')).flatMap((file) => longFunctions(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('the rule sees a long method, and lets one of 80 lines be', () => {
    const method = (lines: number) => `class A {\n  run(): number {\n${'    let x = 1;\n'.repeat(lines - 3)}    return 1;\n  }\n}\n`;
    expect(longFunctions(path.join(ROOT, 'src/a.ts'), method(MAX_LINES + 1))).toEqual(['src/a.ts:2 run (81 lines)']);
    expect(longFunctions(path.join(ROOT, 'src/a.ts'), method(MAX_LINES))).toEqual([]);
  });
});
