// Disk names are the user's: `--path constructor=/data` is valid, and a trace may name any
// disk. Every table keyed by them must hold such a name as any other.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-disk-names-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Names an Object.prototype already answers to. */
const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

function traceOf(header: object | string | null, slow: string): string {
  const file = path.join(work, `${header ? 'with' : 'without'}-header.trace`);
  const lines: (object | string)[] = header ? [header] : [];
  for (let tick = 1; tick <= 60; tick += 1) for (const disk of NAMES) lines.push({ tick, disk, ms: disk === slow && tick > 30 ? 150 : 1 });
  writeFileSync(file, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''));
  return file;
}

describe('disks named like the properties of a plain object', () => {
  it('replay a headerless trace, as a timeline and as JSON', async () => {
    const trace = traceOf(null, 'toString');
    const text = await runInProcess(['replay', trace]);
    expect(text.stderr).toBe('');
    const lastRound = text.stdout.split('\n').filter((line) => line.includes(' tick 60 '))[0]!;
    for (const name of NAMES) expect(lastRound).toContain(`| ${name} `);
    expect(lastRound).toMatch(/\| toString (?!1\.00)/);

    const json = await runInProcess(['replay', '--json', trace]);
    expect(json.stderr).toBe('');
    const disks = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; tick?: number; disk?: string; score?: number });
    const shown = disks.filter((line) => line.type === 'disk' && line.tick === 60);
    expect(shown.map((line) => line.disk)).toEqual(NAMES);
    expect(shown.find((line) => line.disk === 'toString')!.score).toBeGreaterThan(1);
    expect(json.code).toBe(text.code);
  });

  it('replay a trace whose header gives their block devices', async () => {
    // As text: an object literal's __proto__ would set its prototype, not a key.
    const header = `{"slowdisk_trace":1,"interval_ms":100,"disks":${JSON.stringify(NAMES)},"block_devices":{"constructor":["sda"],"__proto__":["sdb"]}}`;
    const trace = traceOf(header, 'constructor');
    const result = await runInProcess(['replay', '--json', trace]);
    expect(result.stderr).toBe('');
    const disks = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; tick?: number; disk?: string; block_devices?: string[] });
    const last = (name: string) => disks.filter((line) => line.type === 'disk' && line.disk === name).at(-1)!;
    expect(last('constructor').block_devices).toEqual(['sda']);
    expect(last('__proto__').block_devices).toEqual(['sdb']);
    expect(last('toString').block_devices).toBeUndefined();
  });

  it('refuses a header whose block devices are not lists of names, in one line', async () => {
    const trace = traceOf({ slowdisk_trace: 1, disks: NAMES, block_devices: { toString: 'sda' } }, 'toString');
    const result = await runInProcess(['replay', trace]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`slowdisk: ${trace} line 1: "block_devices" must map each disk to a list of device names, got {"toString":"sda"}\n`);
  });
});
