// The hot-path rule, held by a test rather than by comments: `watch` and `check` run their JS
// at V8's baseline compiler only (`--max-opt=1`, set by bin/slowdisk.js: the optimising
// compilers' code costs the CLI 2 to 5 MiB of PSS, docs/design/memory.md). Unoptimised
// code allocates what an optimising compiler would not: a `for...of` makes an iterator and a
// result object a step, destructuring an array or spreading one walks its iterator. On the
// functions below, which run for every tick or every inspection of every disk, that is
// objects a disk a tick, and CPU the scale benchmark sees. So they loop by index or with
// forEach, and read arrays by index. A function listed here that moved or was renamed fails
// the test until its entry follows it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface HotPath {
  file: string;
  owner: string;
  members: readonly string[];
  runs: string;
}

/** The functions that run for every tick or every inspection of every disk in watch and check. */
const HOT_PATHS: readonly HotPath[] = [
  { file: 'src/live/batch-feeder.ts', owner: 'BatchFeeder', members: ['advanceTo', 'feed'], runs: 'each record of a batch' },
  { file: 'src/live/live-disks.ts', owner: 'LiveDisks', members: ['timed', 'inspected'], runs: 'each inspection' },
  { file: 'src/verdict/verdict-pipeline.ts', owner: 'VerdictPipeline', members: ['tick', 'inspection', 'judgeHang'], runs: 'each tick, each inspection' },
  { file: 'src/verdict/in-flight.ts', owner: 'InFlight', members: ['tick', 'ended'], runs: 'each tick and inspection of a disk' },
  { file: 'src/score/store-ticks.ts', owner: 'StoreTicks', members: ['tick', 'finished', 'voided', 'charge'], runs: 'each tick, each inspection' },
  { file: 'src/detectors/stepped-detector.ts', owner: 'SteppedDetector', members: ['observe', 'failure', 'add'], runs: 'each inspection, for each of the statistical and the tail detector' },
  { file: 'src/early-warning/predictor-feed.ts', owner: 'PredictorFeed', members: ['outcome', 'failed'], runs: 'each inspection' },
];

const RULE = 'hot path: watch runs at the baseline compiler (--max-opt=1), where this allocates a disk a tick; loop by index or with forEach, read arrays by index';

/** Each construct in `body` that walks an iterator, as `line: what`. */
function iteratorUses(source: ts.SourceFile, body: ts.Node): string[] {
  const found: string[] = [];
  const at = (node: ts.Node, what: string): void => {
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isForOfStatement(node)) at(node, 'for...of');
    else if (ts.isArrayBindingPattern(node)) at(node, 'array destructuring');
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isArrayLiteralExpression(node.left)) at(node, 'array destructuring');
    else if (ts.isSpreadElement(node)) at(node, 'spread of an iterable');
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

/** The body of `owner.member` (a method, an accessor, or a property holding a function). */
function memberBody(source: ts.SourceFile, owner: string, member: string): ts.Node | undefined {
  let body: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name?.text === owner) {
      for (let i = 0; i < node.members.length; i += 1) {
        const each = node.members[i]!;
        if (!each.name || each.name.getText(source) !== member) continue;
        if ((ts.isMethodDeclaration(each) || ts.isGetAccessor(each)) && each.body) body = each.body;
        else if (ts.isPropertyDeclaration(each) && each.initializer && (ts.isArrowFunction(each.initializer) || ts.isFunctionExpression(each.initializer))) body = each.initializer.body;
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return body;
}

const parse = (file: string, text: string): ts.SourceFile => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

describe('the hot-path rule', () => {
  it('watch and check run at the baseline compiler, the reason for the rule', () => {
    const bin = readFileSync(path.join(ROOT, 'bin/slowdisk.js'), 'utf8');
    expect(bin).toMatch(/process\.argv\[2\] === 'watch' \|\| process\.argv\[2\] === 'check'\) setFlagsFromString\('--max-opt=1'\)/);
  });

  it.each(HOT_PATHS)('$file: $owner, run for $runs, walks no iterator', ({ file, owner, members }) => {
    const source = parse(file, readFileSync(path.join(ROOT, file), 'utf8'));
    const broken: string[] = [];
    for (const member of members) {
      const body = memberBody(source, owner, member);
      if (!body) {
        broken.push(`${owner}.${member} is not in ${file}: move its entry in test/unit/hot-path.test.ts with the code`);
        continue;
      }
      for (const use of iteratorUses(source, body)) broken.push(`${file}:${use} in ${owner}.${member}: ${RULE}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds each construct that walks an iterator, and not the indexed forms', () => {
    const source = parse('sample.ts', `class Sample {
      bad(rows: number[][], m: Map<string, number>): void {
        for (const row of rows) void row;
        const [first] = rows;
        let a = 0, b = 0;
        [a, b] = rows[0]!;
        Math.max(...rows[0]!);
        void first; void a; void b; void m;
      }
      readonly good = (rows: number[][], m: Map<string, number>): void => {
        for (let i = 0; i < rows.length; i += 1) void rows[i]![0];
        m.forEach((value, key) => void [value, key]);
        const { length } = rows;
        void { ...m };
        void length;
      };
    }`);
    expect(iteratorUses(source, memberBody(source, 'Sample', 'bad')!)).toEqual(['3: for...of', '4: array destructuring', '6: array destructuring', '7: spread of an iterable']);
    expect(iteratorUses(source, memberBody(source, 'Sample', 'good')!)).toEqual([]);
  });
});
