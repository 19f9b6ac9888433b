// The trace format: what the reader accepts, where it stops, and what the recorder writes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import type { DeviceFigures } from '../../src/kernel/device-counters.js';
import type { TraceLine } from '../../src/trace/trace-format.js';
import { MAX_LINE_CHARS, MAX_TICK_GAP, openTrace, readTrace, TraceError } from '../../src/trace/trace-reader.js';
import { TraceWriter } from '../../src/record/trace-writer.js';
import { statisticalParams } from '../../src/detectors/statistical-params.js';
import { predictorParams } from '../../src/early-warning/predictor-params.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-trace-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function linesOf(text: string | string[]): Promise<{ header: unknown; lines: TraceLine[] }> {
  const trace = await readTrace(Readable.from(typeof text === 'string' ? [text] : text), 'test.jsonl');
  const lines: TraceLine[] = [];
  for await (const batch of trace.batches) lines.push(...batch);
  return { header: trace.header, lines };
}

async function errorOf(text: string): Promise<TraceError> {
  const error = await linesOf(text).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TraceError);
  return error as TraceError;
}

describe('reading a trace', () => {
  it('reads the header, then inspections, failures and clock lines, numbered as in the file', async () => {
    const { header, lines } = await linesOf(
      [
        '{"slowdisk_trace":1,"interval_ms":100,"disks":["raft","kv"],"host":"db1"}',
        '{"tick":1,"disk":"raft","ms":3.21,"write_ms":1}',
        '',
        '{"tick":1,"disk":"kv","error":"EIO"}',
        '{"tick":2,"disk":"raft","ms":50,"late":true}',
        '{"tick":240}',
      ].join('\n'),
    );
    expect(header).toEqual({ slowdisk_trace: 1, interval_ms: 100, disks: ['raft', 'kv'], host: 'db1' });
    expect(lines).toEqual([
      { line: 2, tick: 1, disk: 'raft', ms: 3.21, late: false },
      { line: 4, tick: 1, disk: 'kv', ms: null, late: false, error: 'EIO' },
      { line: 5, tick: 2, disk: 'raft', ms: 50, late: true },
      { line: 6, tick: 240, disk: null, ms: null, late: false },
    ]);
  });

  it('without a header, the first line is a line like any other', async () => {
    const { header, lines } = await linesOf('{"tick":1,"disk":"raft","ms":1}\n');
    expect(header).toBeNull();
    expect(lines).toEqual([{ line: 1, tick: 1, disk: 'raft', ms: 1, late: false }]);
  });

  it('lines split across reads, and CRLF line ends', async () => {
    const { header, lines } = await linesOf(['{"slowdisk_tr', 'ace":1}\r\n{"tick":1,"disk":"r', 'aft","ms":1}\r\n']);
    expect(header).toEqual({ slowdisk_trace: 1 });
    expect(lines).toEqual([{ line: 2, tick: 1, disk: 'raft', ms: 1, late: false }]);
  });

  it('an empty input, or a header with no tick line, is refused: nothing to replay', async () => {
    for (const text of ['', '\n\n']) {
      const error = await errorOf(text);
      expect(error.line).toBeNull();
      expect(error.message).toBe('is empty: no header and no tick line');
    }
    expect((await errorOf('{"slowdisk_trace":1,"interval_ms":100}\n')).message).toBe('has a header but no tick line: nothing to replay');
  });

  it('a tick more than a day of ticks past the ones before it is refused at its line', async () => {
    const error = await errorOf('{"tick":1,"disk":"raft","ms":1}\n{"tick":1000000000000000,"disk":"raft","ms":1}\n{"tick":1000000000000001,"disk":"raft","ms":1}\n');
    expect(error.line).toBe(2);
    expect(error.reason).toMatch(/^tick 1000000000000000 is more than 864000 ticks after tick 1,/);
    // The gap allowed, from the first line too.
    expect((await linesOf(`{"tick":${MAX_TICK_GAP},"disk":"raft","ms":1}\n{"tick":${2 * MAX_TICK_GAP},"disk":"raft","ms":1}\n`)).lines).toHaveLength(2);
  });

  it('a line longer than 1 MiB is refused at its line before it is read whole', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let pulled = 0;
    // 200 MB of one line, made as it is read: the reader must stop soon after the limit.
    const endless = Readable.from(
      (function* () {
        yield '{"tick":1,"disk":"raft","ms":1}\n{"tick":2,"disk":"raft","ms":1,"pad":"';
        for (; pulled < 3200; pulled++) yield chunk;
      })(),
    );
    const trace = await readTrace(endless, 'long.jsonl');
    const error = await (async () => {
      for await (const _batch of trace.batches) void _batch;
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).line).toBe(2);
    expect((error as TraceError).reason).toMatch(/longer than 1048576 characters/);
    expect(pulled * chunk.length).toBeLessThan(4 * MAX_LINE_CHARS);
  });

  it('a missing file is refused when it is opened', async () => {
    await expect(openTrace(path.join(work, 'missing.jsonl'))).rejects.toThrow(/ENOENT/);
  });
});

describe('a bad trace stops at the line that breaks the format', () => {
  const ok = '{"tick":1,"disk":"raft","ms":1}\n';
  it.each([
    ['not JSON', `${ok}${ok.replace('1,', '2,')}{"tick":3,"disk":"raft","ms":1\n`, 3, /^not JSON: /],
    ['not an object', `${ok}[1,2]\n`, 2, /^not a JSON object$/],
    ['a line without a tick', `${ok}{"disk":"raft","ms":1}\n`, 2, /^no "tick"/],
    ['a tick that is not a whole number from 1', `${ok}{"tick":0,"disk":"raft","ms":1}\n`, 2, /^"tick" must be an integer from 1, got 0$/],
    ['a tick as a string', `{"tick":"7","disk":"raft","ms":1}\n`, 1, /^"tick" must be an integer from 1, got "7"$/],
    ['an inspection without a disk', `${ok}{"tick":2,"ms":1}\n`, 2, /^no "disk"/],
    ['a failure without a disk', `${ok}{"tick":2,"error":"EIO"}\n`, 2, /^no "disk"/],
    ['a negative duration', `${ok}{"tick":2,"disk":"raft","ms":-1}\n`, 2, /^"ms" must be a duration in milliseconds, 0 or more, got -1$/],
    ['a duration that is not a number', `${ok}{"tick":2,"disk":"raft","ms":"3ms"}\n`, 2, /^"ms" must be a duration .* got "3ms"$/],
    ['neither a duration nor an error', `${ok}{"tick":2,"disk":"raft"}\n`, 2, /^neither "ms" nor "error"/],
    ['both a duration and an error', `${ok}{"tick":2,"disk":"raft","ms":1,"error":"EIO"}\n`, 2, /^both "ms" and "error"/],
    ['a late mark that is not a boolean', `${ok}{"tick":2,"disk":"raft","ms":1,"late":1}\n`, 2, /^"late" must be true or false/],
    ['a negative wait for a CPU', `${ok}{"tick":2,"disk":"raft","ms":1,"wait_ms":-1}\n`, 2, /^"wait_ms" must be a duration in milliseconds, 0 or more, on a line with "ms"/],
    ['a wait for a CPU on a failed inspection', `${ok}{"tick":2,"disk":"raft","error":"EIO","wait_ms":1}\n`, 2, /^"wait_ms" must be a duration/],
    ['a wait to start that is not a number', `${ok}{"tick":2,"disk":"raft","ms":1,"start_wait_ms":"1"}\n`, 2, /^"start_wait_ms" must be a duration/],
    ['ticks out of order for one disk', `${ok}{"tick":3,"disk":"raft","ms":1}\n{"tick":2,"disk":"raft","ms":1}\n`, 3, /^tick 2 of disk "raft" comes after its tick 3/],
    ['two lines for one tick of one disk', `${ok}${ok}`, 2, /^a second line for tick 1 of disk "raft"$/],
    ['an unknown header version', `{"slowdisk_trace":2,"interval_ms":100}\n${ok}`, 1, /^unknown trace version 2: this slowdisk reads version 1$/],
    ['a header not on the first line', `${ok}{"slowdisk_trace":1}\n`, 2, /^a header \("slowdisk_trace"\) is allowed on the first line only$/],
    ['a header after a blank first line', `\n{"slowdisk_trace":1}\n`, 2, /first line only/],
    ['a bad interval in the header', `{"slowdisk_trace":1,"interval_ms":0}\n`, 1, /^"interval_ms" must be a number of milliseconds from 1ms to 1h, got 0$/],
    ['an unknown model in the header', `{"slowdisk_trace":1,"predictor":"magic"}\n`, 1, /^"predictor" must be "network" or "trend", got "magic"$/],
    ['a statistical threshold out of its range in the header', `{"slowdisk_trace":1,"stat_threshold":0}\n`, 1, /^"stat_threshold" must be a number from 0\.1 to 1000, got 0$/],
    ['fractional round ticks in the header', `{"slowdisk_trace":1,"round_ticks":2.5}\n`, 1, /^"round_ticks" must be an integer from 1/],
    ['a bad disk list in the header', `{"slowdisk_trace":1,"disks":["raft","raft"]}\n`, 1, /^"disks" must be a list of distinct disk names/],
    ['a disk the header does not list', `{"slowdisk_trace":1,"disks":["raft"]}\n${ok}{"tick":1,"disk":"kv","ms":1}\n`, 3, /^disk "kv" is not in the header's disks \(raft\)$/],
  ])('%s', async (_what, text, line, reason) => {
    const error = await errorOf(text);
    expect(error.line).toBe(line);
    expect(error.reason).toMatch(reason);
    expect(error.message).toBe(`line ${line}: ${error.reason}`);
  });

  it('an error far into a trace names its line', async () => {
    const good = Array.from({ length: 50_000 }, (_, i) => `{"tick":${i + 1},"disk":"raft","ms":1}\n`).join('');
    const error = await errorOf(`${good}{"tick":50001,"disk":"raft","ms":null}\n`);
    expect(error.line).toBe(50_001);
  });
});

const STALLED_LOOP: DeviceFigures = {
  device: '7:3',
  name: 'loop3',
  disks: ['raft'],
  role: 'filesystem',
  readIops: 0,
  writeIops: 1 / 3,
  flushIops: 0,
  readLatencyMs: null,
  writeLatencyMs: 2999.5,
  flushLatencyMs: null,
  inFlight: 1,
  averageQueueDepth: 1.0004,
  utilisation: 0.99966,
  stalled: true,
  limitUse: null,
};

describe('device lines', () => {
  const line = {
    tick: 30,
    device: 'loop3',
    major_minor: '7:3',
    disks: ['raft'],
    role: 'filesystem',
    r_iops: 0,
    w_iops: 0.333,
    f_iops: null,
    r_ms: null,
    w_ms: 2999.5,
    f_ms: null,
    in_flight: 1,
    avg_in_flight: 1,
    util: 0.9997,
    stalled: true,
    t: 1_700_000_003_000,
  };

  it('have no "disk": the format reads them as clock lines, and this reader also gives their figures', async () => {
    const { lines } = await linesOf(`{"tick":29,"disk":"raft","ms":1}\n${JSON.stringify(line)}\n`);
    expect(lines[1]).toMatchObject({ tick: 30, disk: null, ms: null, late: false });
    expect(lines[1].device).toEqual({ ...STALLED_LOOP, writeIops: 0.333, flushIops: null, averageQueueDepth: 1, utilisation: 0.9997 });
  });

  it("carry the share of an I/O limit used where one is set, and none where the line has none", async () => {
    const { lines } = await linesOf(`${JSON.stringify({ ...line, limit_use: 0.95 })}\n${JSON.stringify({ ...line, tick: 60 })}\n`);
    expect(lines.map((read) => read.device?.limitUse)).toEqual([0.95, null]);
    expect((await errorOf(`${JSON.stringify({ ...line, limit_use: -0.5 })}\n`)).message).toBe('line 1: a device line\'s "limit_use" must be a number, 0 or more, got -0.5');
  });

  it('with a figure missing or of the wrong kind, stop at their line', async () => {
    const bad = (changes: object) => errorOf(`${JSON.stringify({ ...line, ...changes })}\n`);
    expect((await bad({ w_iops: -1 })).message).toBe('line 1: a device line\'s "w_iops" must be a number, 0 or more, got -1');
    expect((await bad({ r_ms: 'slow' })).message).toBe('line 1: a device line\'s "r_ms" must be a number, 0 or more, or null, got "slow"');
    expect((await bad({ stalled: 1 })).message).toBe('line 1: a device line\'s "stalled" must be true or false, got 1');
    expect((await bad({ disks: 'raft' })).message).toBe('line 1: a device line\'s "disks" must be a list of disk names, got "raft"');
    expect((await bad({ major_minor: '7' })).message).toBe('line 1: a device line\'s "major_minor" must be "MAJOR:MINOR", got "7"');
    expect((await bad({ role: 'cache' })).message).toMatch(/^line 1: a device line's "role" must be one of filesystem, whole-disk, member, backing/);
  });
});

describe('the recorder', () => {
  const params = DEFAULT_SCORE_PARAMS;

  it("writes a round's block devices under the trace's names, and the disks' devices in the header; they read back", async () => {
    const file = path.join(work, 'devices.jsonl');
    const writer = await TraceWriter.open(file, { params, disks: ['raft'], tool: 'slowdisk 9.9.9', blockDevices: { raft: ['loop3', 'nvme0n1'] } });
    writer.device(30, STALLED_LOOP, 1_700_000_003_000.1234);
    await writer.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]).block_devices).toEqual({ raft: ['loop3', 'nvme0n1'] });
    expect(lines[1]).toBe(
      '{"tick":30,"device":"loop3","major_minor":"7:3","disks":["raft"],"role":"filesystem","r_iops":0,"w_iops":0.333,"f_iops":0,' +
        '"r_ms":null,"w_ms":2999.5,"f_ms":null,"in_flight":1,"avg_in_flight":1,"util":0.9997,"stalled":true,"t":1700000003000.123}',
    );
    const { lines: read } = await linesOf(readFileSync(file, 'utf8'));
    expect(read[0].device).toMatchObject({ name: 'loop3', writeIops: 0.333, stalled: true, disks: ['raft'] });
  });

  it("records every stage's verdict parameters in the header, under their trace keys", async () => {
    const file = path.join(work, 'verdict-params.jsonl');
    const statistical = statisticalParams({ threshold: 1.5, suspectAfterMs: 2000 });
    const predictor = predictorParams({ slaMs: 50, warnProbability: 0.6, model: 'trend' });
    const stages = { probe: { hangAfterMs: 2000 }, statistical, verdict: { criticalOn: 'any' as const }, predictor };
    const writer = await TraceWriter.open(file, { params, disks: ['raft'], tool: 'slowdisk test', stages });
    writer.clock(1);
    await writer.close();
    const { header } = await linesOf(readFileSync(file, 'utf8'));
    expect(header).toMatchObject({
      interval_ms: 100,
      hang_after_ms: 2000,
      stat_window: 1000,
      stat_refresh_ms: 10_000,
      stat_threshold: 1.5,
      stat_suspect_after_ms: 2000,
      stat_observe_ms: 60_000,
      stat_confirm_share: 0.7,
      critical_on: 'any',
      sla_ms: 50,
      warn_probability: 0.6,
      predictor: 'trend',
    });
  });

  it('writes the header, then one line per result, and reads back as a trace', async () => {
    const file = path.join(work, 'recorded.jsonl');
    const before = Date.now();
    const writer = await TraceWriter.open(file, { params, disks: ['raft', 'kv'], paths: { raft: '/data/raft', kv: '/data/kv' }, tool: 'slowdisk 9.9.9' });
    writer.inspection({ tick: 1, disk: 'raft', ms: 3.2104567, open_ms: 0.0123456, write_ms: 1.5, sync_ms: 1.2, read_ms: 0.5, t: 1_700_000_000_123.4567 });
    writer.failure({ tick: 1, disk: 'kv', error: 'EIO', t: 1_700_000_000_124 });
    writer.inspection({ tick: 2, disk: 'raft', ms: 60, open_ms: 0, write_ms: 0, sync_ms: 60, read_ms: 0, t: 1_700_000_000_300, late: true });
    writer.inspection({ tick: 3, disk: 'raft', ms: 150, open_ms: 0, write_ms: 0, sync_ms: 150, read_ms: 0, t: 1_700_000_000_450, late: true });
    writer.clock(3);
    await writer.close();

    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    const header = JSON.parse(lines[0]);
    expect(header).toMatchObject({
      slowdisk_trace: 1,
      interval_ms: 100,
      round_ticks: 30,
      ratio_threshold: 0.1,
      min_ttr_ms: 300_000,
      timeout_ms: 100,
      evict_threshold: 100,
      slow_threshold: 80,
      disks: ['raft', 'kv'],
      paths: { raft: '/data/raft', kv: '/data/kv' },
      host: os.hostname(),
      tool: 'slowdisk 9.9.9',
    });
    expect(Date.parse(header.start)).toBeGreaterThanOrEqual(before - 1000);
    expect(lines.slice(1, -1)).toEqual([
      '{"tick":1,"disk":"raft","ms":3.21,"open_ms":0.012,"write_ms":1.5,"sync_ms":1.2,"read_ms":0.5,"t":1700000000123.457}',
      '{"tick":1,"disk":"kv","error":"EIO","t":1700000000124}',
      '{"tick":2,"disk":"raft","ms":60,"open_ms":0,"write_ms":0,"sync_ms":60,"read_ms":0,"t":1700000000300,"late":true}',
      // Over the interval it is charged anyway: no mark.
      '{"tick":3,"disk":"raft","ms":150,"open_ms":0,"write_ms":0,"sync_ms":150,"read_ms":0,"t":1700000000450}',
      '{"tick":3}',
    ]);

    const trace = await openTrace(file);
    expect(trace.header?.disks).toEqual(['raft', 'kv']);
    const read: TraceLine[] = [];
    for await (const batch of trace.batches) read.push(...batch);
    expect(read.map((line) => [line.tick, line.disk, line.ms, line.late])).toEqual([
      [1, 'raft', 3.21, false],
      [1, 'kv', null, false],
      [2, 'raft', 60, true],
      [3, 'raft', 150, false],
      [3, null, null, false],
    ]);
    expect(trace.readShare()).toBe(1);
  });

  it('rounds durations to microseconds, but never across the interval or the timeout', async () => {
    const file = path.join(work, 'rounding.jsonl');
    const writer = await TraceWriter.open(file, { params: { ...params, timeoutMs: 50 }, disks: ['raft'], tool: 'slowdisk test' });
    const durations = [99.9994, 99.9996, 100.0004, 49.99996, 50.00004, 12.3456789];
    durations.forEach((ms, i) => writer.inspection({ tick: i + 1, disk: 'raft', ms, open_ms: 0, write_ms: 0, sync_ms: 0, read_ms: 0, t: 0 }));
    await writer.close();
    const written = readFileSync(file, 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line).ms);
    expect(written).toEqual([99.999, 99.9996, 100, 49.99996, 50, 12.346]);
    written.forEach((ms: number, i: number) => {
      expect(ms < 100).toBe(durations[i] < 100);
      expect(ms < 50).toBe(durations[i] < 50);
    });
  });

  it('never overwrites a file: it names the file and leaves it as it was', async () => {
    const file = path.join(work, 'precious.jsonl');
    writeFileSync(file, 'last night\n');
    await expect(TraceWriter.open(file, { params, disks: ['raft'], tool: 'slowdisk test' })).rejects.toThrow(`refusing to overwrite ${file}: it already exists`);
    expect(readFileSync(file, 'utf8')).toBe('last night\n');
  });

  it('a file it cannot create is named with the reason', async () => {
    const file = path.join(work, 'no-such-dir', 'trace.jsonl');
    await expect(TraceWriter.open(file, { params, disks: ['raft'], tool: 'slowdisk test' })).rejects.toThrow(`cannot record to ${file}: ENOENT`);
  });
});
