// A step on one of the addon's detached threads that throws what no syscall does (a
// std::runtime_error, an int) is caught and reported, and the thread goes on: on a probe
// thread as its tick's failure, EPROBER; on the batch thread as one line on stderr, the
// batch's records lost and the batches after it delivered. The process lives on.
// The addon is the one node-gyp built (its objects in build/Release) but for two steps,
// which test/native/throwing_steps.cc makes throw: the catches under test are the shipped ones.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BatchRecord, TimedRow } from '../../src/native/batch-records.js';
import { cachedBuild } from '../helpers/cached-build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-thread-faults-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The steps test/native/throwing_steps.cc stands in for, by the source that has them. */
const RENAMED: Record<string, string> = { 'inspection.cc': '-DInspect=RealInspect', 'record_json.cc': '-DAppendRecordJson=RealAppendRecordJson' };

function buildThrowingAddon(): string {
  const objects = path.join(root, 'build/Release/obj.target/slowdisk_probe/native');
  const nodedir = /"nodedir": "([^"]+)"/.exec(readFileSync(path.join(root, 'build/config.gypi'), 'utf8'))?.[1];
  if (!nodedir) throw new Error('build/config.gypi names no nodedir: build the addon first (npx node-gyp rebuild)');
  const compiler = process.env['CXX'] ?? 'c++';
  // As node-gyp compiles the addon's own sources: binding.gyp's flags and defines, and node-gyp's.
  const target = (JSON.parse(readFileSync(path.join(root, 'binding.gyp'), 'utf8')) as { targets: { cflags_cc: string[]; defines: string[] }[] }).targets[0]!;
  const flags = [...target.cflags_cc, '-fPIC', '-pthread', '-fno-rtti', '-Wno-unused-parameter'];
  const includes = [`-I${path.join(nodedir, 'include/node')}`, `-I${path.join(root, 'node_modules/node-addon-api')}`];
  const defines = [...target.defines, 'BUILDING_NODE_EXTENSION'].map((define) => `-D${define}`);
  const shipped = readdirSync(objects)
    .filter((name) => name.endsWith('.o') && !(name.replace(/\.o$/, '.cc') in RENAMED))
    .map((name) => path.join(objects, name));
  const ownSources = [...Object.keys(RENAMED).map((source) => `native/${source}`), 'test/native/throwing_steps.cc'];
  const headers = readdirSync(path.join(root, 'native'))
    .filter((name) => name.endsWith('.h'))
    .map((name) => path.join(root, 'native', name));
  const recipe = {
    compiler,
    inputs: [...shipped, ...ownSources.map((source) => path.join(root, source)), ...headers, path.join(root, 'node_modules/node-addon-api/package.json')],
    settings: { flags, includes, defines, renamed: RENAMED },
  };
  const dir = cachedBuild('throwing-steps', recipe, (out) => {
    const compile = (source: string, ...more: string[]): string => {
      const object = path.join(out, `${path.basename(source, '.cc')}.o`);
      execFileSync(compiler, [...flags, ...includes, ...defines, ...more, '-c', path.join(root, source), '-o', object]);
      return object;
    };
    const own = [...Object.entries(RENAMED).map(([source, define]) => compile(`native/${source}`, define)), compile('test/native/throwing_steps.cc', '-Werror')];
    execFileSync(compiler, ['-shared', '-pthread', '-o', path.join(out, 'throwing_steps.node'), ...shipped, ...own]);
  });
  return path.join(dir, 'throwing_steps.node');
}

// The child: one directory's thread inspecting every 25 ms, until it has made 8 inspections;
// then a second thread, unplaced, whose first resolution is named "lose-this-batch", and the
// batches of the second after.
const DRIVER = `
const [addonPath, dir] = process.argv.slice(1);
const addon = { exports: {} };
process.dlopen(addon, addonPath);
const { ProbeWorker, listen, flushEvery } = addon.exports;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const records = [];
listen((coveredMs, json) => {
  records.push(...JSON.parse(json));
  process.stdout.write(JSON.stringify({ coveredMs, records: JSON.parse(json) }) + '\\n');
});
const until = async (done) => {
  for (const end = now() + 30000; !done(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (now() > end) throw new Error('timed out: ' + JSON.stringify(records));
  }
};
const startMs = now();
const plan = { intervalMs: 25, roundTicks: 4, seedBase: 1, dir, ioSize: 4096, direct: false, sync: 'fdatasync' };
flushEvery(startMs, 100, 1);
const probed = new ProbeWorker('probed');
probed.schedule({ ...plan, startMs, resolveName: 'probed' });
probed.place('probed', 1);
await until(() => records.filter((r) => Array.isArray(r) || r.kind === 'inspected').length >= 8);
const lostAtMs = now();
const lost = new ProbeWorker('lost');
lost.schedule({ ...plan, startMs: lostAtMs, resolveName: 'lose-this-batch' });
await until(() => records.some((r) => Array.isArray(r) && r[2] > lostAtMs + 1000));
await probed.stop();
await lost.stop();
process.stdout.write(JSON.stringify({ lostAtMs }) + '\\n');
`;

const isRow = (record: BatchRecord): record is TimedRow => Array.isArray(record);

describe("the addon's detached threads, when a step throws what no syscall does", () => {
  it('report it the documented way and go on, and the process lives', () => {
    const addon = buildThrowingAddon();
    const dir = path.join(work, 'probed');
    mkdirSync(dir);
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', DRIVER, addon, dir], { encoding: 'utf8', timeout: 90_000 });
    expect({ status: run.status, signal: run.signal, stderr: run.stderr.replace(/\d+ records/, 'N records') }).toEqual({
      status: 0,
      signal: null,
      // The batch thread: the batch it could not write, one line, and nothing from the probe thread.
      stderr: 'slowdisk prober: a batch of N records lost: EPROBER: batch unknown exception\n',
    });
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { records?: BatchRecord[]; lostAtMs?: number });
    const { lostAtMs } = lines.at(-1)!;
    const records = lines.flatMap((line) => line.records ?? []);
    const inspections = records.filter((record) => isRow(record) || record.kind === 'inspected');
    // The probe thread: the 3rd inspection threw a std::runtime_error, the 5th an int; each is
    // its tick's failure, and every other inspection before and after went as ever.
    const prober = (message: string) => ({ code: 'EPROBER', errno: 0, syscall: '', path: dir, message: `EPROBER: ${dir} ${message}` });
    const errors = inspections.map((record) => (isRow(record) ? null : (record.error ?? null)));
    expect(errors).toEqual(errors.map((_, i) => (i === 2 ? prober('a fault that is not a SysError') : i === 4 ? prober('unknown exception') : null)));
    expect(inspections.length).toBeGreaterThan(8);
    // The batch thread: the batch holding "lose-this-batch" never came, and those after it did.
    expect(records.filter((record) => !isRow(record) && record.name === 'lose-this-batch')).toEqual([]);
    expect(records.filter((record) => isRow(record) && record[2] > lostAtMs! + 1000).length).toBeGreaterThan(0);
    // The probe file, removed at stop as ever.
    expect(readdirSync(dir)).toEqual([]);
  });
});
