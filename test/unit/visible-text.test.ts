// A newline or a terminal escape in a path (an argument, a TOML file's) or a trace's disk name
// never splits a human line nor reaches the terminal raw: real directories with such names,
// resolved for real, their inspections played by the stub prober on the run's own clock.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { visible } from '../../src/common/visible-text.js';
import { runInProcess } from '../helpers/in-process-cli.js';

vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-visible-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A name that, printed raw, makes a second line that reads like a verdict, in red.
const HOSTILE = 'a\nSLOWDISK OK - fake \u001b[31mred\u009b2J\u007f';
const SHOWN = 'a\\nSLOWDISK OK - fake \\x1b[31mred\\x9b2J\\x7f';
const dir = path.join(work, HOSTILE);
mkdirSync(dir);

const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** Lines as printed: none may hold a control character but the newline that ends it. */
function linesOf(text: string): string[] {
  expect(text).not.toMatch(RAW_CONTROL);
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

describe('visible', () => {
  it('shows C0, DEL and C1 controls as escapes, and leaves the rest alone', () => {
    expect(visible('a\nb\rc\td\u0000e\u001b[0mf\u007fg\u0085h\u009bi')).toBe('a\\nb\\rc\\td\\x00e\\x1b[0mf\\x7fg\\x85h\\x9bi');
    expect(visible('/data/tikv-20160 ¦ é 数据 \\n')).toBe('/data/tikv-20160 ¦ é 数据 \\n');
  });
});

describe('human outputs of a path with a newline and an escape in its name', () => {
  it("check's summary is one line, with the name escaped", async () => {
    const result = await runInProcess(['check', '--path', `x=${dir}`, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^OK: /);
    expect(lines[0]).toContain(`x ${path.join(work, SHOWN)} score 1.00 up`);
  });

  it('the same path named by a TiKV configuration file', async () => {
    const config = path.join(work, 'tikv.toml');
    // A TOML basic string: JSON's escapes, and DEL (which JSON leaves raw) escaped too.
    const tomlString = JSON.stringify(dir).replaceAll('\u007f', '\\u007F');
    writeFileSync(config, `[storage]\ndata-dir = ${tomlString}\n[raftstore]\ninspect-kvdb-interval = "0s"\n[raft-engine]\ndir = ${tomlString}\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`raft ${path.join(work, SHOWN)} score`);
    // The note about the KV disk names the file and reaches stderr on one line too.
    expect(linesOf(result.stderr)).toHaveLength(1);
  });

  it('an error naming it is one line on stderr, exit 3', async () => {
    const missing = path.join(dir, 'missing');
    const result = await runInProcess(['check', '--path', `x=${missing}`, '--duration', '1s', '--allow-short', '--format', 'nagios']);
    expect(result.code).toBe(3);
    const lines = linesOf(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`ENOENT: statx ${path.join(work, SHOWN, 'missing')}`);
  });

  it("watch's round lines off a terminal: one line per round", async () => {
    const result = await runInProcess(['watch', '--path', `x=${dir}`, '--round-ticks', '5'], { interruptWhen: (stdout) => stdout.split('\n').length > 3 });
    expect(result.code).toBe(130);
    const rounds = linesOf(result.stdout);
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    for (const line of rounds) expect(line).toMatch(new RegExp(`^\\S+ \\d+\\.\\ds tick \\d+ store 1 \\(1\\.00\\) \\| x .*${SHOWN.replaceAll('\\', '\\\\').replace('[', '\\[')} score`));
  });

  it("replay's timeline, for a disk named so in a trace", async () => {
    const trace = path.join(work, 'trace.jsonl');
    const disk = `d${HOSTILE}`;
    const lines = [{ slowdisk_trace: 1, interval_ms: 100, disks: [disk] }, ...Array.from({ length: 60 }, (_, i) => ({ tick: i + 1, disk, ms: 1 }))];
    writeFileSync(trace, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const result = await runInProcess(['replay', trace]);
    expect(result.code).toBe(0);
    const shown = linesOf(result.stdout);
    expect(shown.filter((line) => line.includes(`d${SHOWN} 1.00`))).toHaveLength(2);
  });
});
