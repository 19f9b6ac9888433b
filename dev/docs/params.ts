// `npm run docs:params`: rewrites the parameter tables of the docs from the stages' specs
// (src/cli/param-registry.ts). A table sits between `<!-- params:GROUP -->` and
// `<!-- /params -->`: GROUP is a help group (a table of its flags), or `trace` (the keys a
// trace header records). test/unit/docs-params.test.ts fails when a table is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_PARAM_SPECS } from '../../src/cli/param-registry.js';
import { defaultText, expectedValue, flagName, rangeText, type ParamSpec } from '../../src/common/param-spec.js';
import { REPO_ROOT } from '../repo-root.js';

/** The pages with a generated table. */
export const PAGES = ['docs/usage.md', 'docs/statistical-detector.md', 'docs/tail-detector.md', 'docs/trace-format.md'];

const TABLE = /^( *)<!-- params:([a-z-]+) -->\n[^]*?^\1<!-- \/params -->/gm;

const cell = (text: string | undefined): string => String(text).replaceAll('|', '\\|');
const code = (text: string | undefined): string => (text === undefined ? '' : `\`${cell(text)}\``);

/** `--stat-window N`, as the docs write a flag and its value. */
function flagCell(spec: ParamSpec): string {
  const [name, placeholder] = spec.flag.split(' ');
  return code(placeholder === undefined ? name : `${name} ${placeholder.slice(1, -1).toUpperCase()}`);
}

/** A value in code, words (off, the interval) as they are. */
function defaultCell(spec: ParamSpec): string {
  const words = spec.kind === 'boolean' || (spec.kind === 'duration' && spec.default === undefined);
  return words ? cell(defaultText(spec)) : code(defaultText(spec));
}

function flagTable(group: string): string {
  const specs = ALL_PARAM_SPECS.filter((spec) => spec.group === group);
  if (specs.length === 0) throw new Error(`no parameter in the help group '${group}'`);
  const rows = specs.map((spec) => {
    const range = rangeText(spec);
    return `| ${flagCell(spec)} | ${defaultCell(spec)} | ${range === undefined ? '' : cell(range)} | ${cell(spec.meaning)} |`;
  });
  return ['| flag | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function traceTable(): string {
  const rows = ALL_PARAM_SPECS.filter((spec) => spec.trace !== undefined).map(
    (spec) => `| ${code(spec.trace)} | ${code(flagName(spec))} | ${cell(expectedValue(spec))} | ${defaultCell(spec)} |`,
  );
  return ["| key | flag | value | the flag's default |", '|---|---|---|---|', ...rows].join('\n');
}

/** The page with its tables as the specs make them. */
export function withTables(text: string): string {
  return text.replace(TABLE, (_, indent: string, group: string) => {
    const table = group === 'trace' ? traceTable() : flagTable(group);
    return [`<!-- params:${group} -->`, '', ...table.split('\n'), '', '<!-- /params -->'].map((line) => (line === '' ? '' : `${indent}${line}`)).join('\n');
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of PAGES) {
    const file = path.join(REPO_ROOT, page);
    const text = readFileSync(file, 'utf8');
    const updated = withTables(text);
    if (updated !== text) {
      writeFileSync(file, updated);
      console.log(`rewrote the tables of ${page}`);
    }
  }
}
