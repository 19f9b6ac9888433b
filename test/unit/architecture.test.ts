// The tree reads as the data flow: docs/architecture.md lists the folders of src/ in the order
// data flows through them, and a folder imports only from itself and the folders before it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-files.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** The folders in the order of the "Stages" table of the architecture page. */
function stagesOfArchitecturePage(): string[] {
  const page = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.split(/^## /m).find((part) => part.startsWith('Stages'));
  if (!section) throw new Error('docs/architecture.md has no "## Stages" section');
  return [...section.matchAll(/^\| *\d+ *\| *`src\/([a-z-]+)\/`/gm)].map((match) => match[1]!);
}

/** Every relative module a file imports, as a path under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => path.relative(SRC, path.resolve(path.dirname(file), match[1]!)));
}

const stageOf = (relative: string): string => relative.split(path.sep)[0]!;

describe('the tree reads as the data flow', () => {
  const stages = stagesOfArchitecturePage();

  it('every folder of src/ is a stage of the architecture page, and nothing lives beside them', () => {
    const entries = readdirSync(SRC, { withFileTypes: true });
    expect(entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name)).toEqual([]);
    expect(entries.map((entry) => entry.name).sort()).toEqual([...stages].sort());
  });

  it('each folder imports only from itself and the stages before it', () => {
    const against: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = stageOf(path.relative(SRC, file));
      for (const target of importsOf(file)) {
        const to = stageOf(target);
        if (to === '..') continue;
        if (stages.indexOf(to) > stages.indexOf(from)) against.push(`${path.relative(ROOT, file)} imports src/${target}`);
      }
    }
    expect(against).toEqual([]);
  });

  it('no two files of src/ share a name: a name says one job', () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) byName.set(path.basename(file), [...(byName.get(path.basename(file)) ?? []), path.relative(SRC, file)]);
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it('the shipped code never imports development-only code', () => {
    const intoDev = sourceFiles(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('..'))
        .map((target) => `${path.relative(ROOT, file)} imports ${target}`),
    );
    expect(intoDev).toEqual([]);
  });

  it('the development code is TypeScript, and imports the project statically, where tsc sees it', () => {
    const DEV = path.join(ROOT, 'dev');
    const untyped = readdirSync(DEV, { recursive: true, encoding: 'utf8' }).filter((file) => /\.[cm]?js$/.test(file)).map((file) => `dev/${file}`);
    // A dynamic import may name a package, never the project: relative, #dist/ (package.json "imports") or computed.
    const dynamic = sourceFiles(DEV).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bimport\s*\((?!\s*'[^.#'][^']*'\s*\))[^)]*\)/g)].map((match) => `${path.relative(ROOT, file)}: ${match[0]}`),
    );
    expect({ untyped, dynamic }).toEqual({ untyped: [], dynamic: [] });
  });
});
