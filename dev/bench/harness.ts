// Drives slowdisk's own probe path without the CLI's clock or scores, in a process of
// its own, and prints one JSON object on stdout.
//
//   node harness.js worker DIR COUNT INTERVAL_MS [PHASES_MS]
//     The addon directly (dist/native/addon.js ProbeWorker) in this process, its native thread
//     keeping the ticks (1 ms apart at least) and making the probe file, no prober child: per
//     inspection the native phase timings and the round trip from its start to its record.
//     Its ticks keep the first phase.
//   node harness.js prober DIR COUNT INTERVAL_MS [PHASES_MS]
//     The whole CLI-side path: the real prober child (dist/prober/prober-client.js) on a
//     schedule of its own, its native thread keeping the ticks, its records coming back in
//     batches once a second over its IPC channel; "roundTrip" is then from an inspection's
//     start to its record, and the ticks keep the first phase.
//
// Inspections start on absolute deadlines INTERVAL_MS apart, on blocks 1, 2, ... (the
// prober's ticks); with PHASES_MS ("25,50,75"), on the instants of CLOCK_MONOTONIC the
// first phase's ms past a multiple of INTERVAL_MS, as plain-loop.c places its first ten,
// so that tools run side by side take turns on the disk. The first one (it makes the
// probe file) is a warm-up and is not reported. CPU time is this process's (all threads)
// and, in prober mode, the prober's, over the inspections only.
//
// The project's code is dist/'s, as the CLI runs it (package.json "imports"): the addon and the
// prober's entry are found from there.
import { readFileSync, readdirSync } from 'node:fs';
import { ProbeWorker, flushRecordsEvery, listenForRecords } from '#dist/native/addon.js';
import { DEFAULT_PROBE_PARAMS } from '#dist/probe/probe-params.js';
import type { BatchRecord, Resolution } from '#dist/probe/prober-protocol.js';
import { ProberClient } from '#dist/prober/prober-client.js';
import { PROBER_WITH_OUTPUTS } from '#dist/prober/prober-program.js';

const COLUMNS = ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'];

/** What the harness prints: a row of COLUMNS, in ns, per inspection, and the CPU they took. */
export interface HarnessOutput {
  mode: 'worker' | 'prober';
  columns: string[];
  rows: number[][];
  /** This process's and, in prober mode, the prober's. */
  cpuNs: number;
  /** Prober mode: this process's alone. */
  selfCpuNs?: number;
  /** Prober mode: the prober's alone. */
  proberCpuNs?: number;
}

const [mode, dir, countText, intervalText, phasesText] = process.argv.slice(2);
const count = Number(countText);
const intervalMs = Number(intervalText);
const phasesMs = phasesText === undefined ? [] : phasesText.split(',').map(Number);
if ((mode !== 'worker' && mode !== 'prober') || !dir || !(count > 0) || !(intervalMs > 0 || mode === 'worker')) {
  process.stderr.write('usage: harness.js worker|prober DIR COUNT INTERVAL_MS [PHASES_MS]\n');
  process.exit(2);
}

/** CPU time of every thread of a process, in ns, from the scheduler's own accounting. */
function threadsCpuNs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended while we looked
    }
  }
  return total;
}

/** Tick 1 at the first phase past a multiple of the interval, as plain-loop.c places its own. */
function firstTickMs(leadNs: bigint): number {
  const interval = BigInt(Math.round(intervalMs * 1e6));
  const now = process.hrtime.bigint();
  // Back-to-back ticks (interval 0) have no grid to align to.
  if (interval === 0n) return Number(now + leadNs) / 1e6 + (phasesMs[0] ?? 0);
  const grid = ((now + leadNs) / interval) * interval + interval;
  return Number(grid) / 1e6 + (phasesMs[0] ?? 0) - intervalMs;
}

/** Rows of [open, write, sync, read, close, total, roundTrip] ns from a batch's records; tick 1 (it made the probe file) calls `warm`. */
function rowsOf(recordsJson: string, rows: number[][], warm: () => void): void {
  for (const record of JSON.parse(recordsJson) as BatchRecord[]) {
    if (!Array.isArray(record) && record.kind !== 'inspected') continue;
    let tick: number;
    let timingsMs: number[];
    let roundTripMs: number;
    if (Array.isArray(record)) {
      tick = record[1];
      timingsMs = record.slice(3, 9) as number[];
      roundTripMs = record[2] - record[9];
    } else {
      const t = record.timings;
      if (!t) throw new Error(`inspection failed: ${record.error?.message}`);
      tick = record.tick;
      timingsMs = [t.openMs, t.writeMs, t.syncMs, t.readMs, t.closeMs, t.totalMs];
      // Its start is not in the record: no round trip to tell.
      roundTripMs = 0;
    }
    if (tick === 1) {
      warm();
      continue;
    }
    rows.push([...timingsMs.map((ms) => ms * 1e6), roundTripMs * 1e6]);
  }
}

async function viaWorker(): Promise<void> {
  const worker = new ProbeWorker('bench');
  const tickMs = Math.max(1, intervalMs);
  const startMs = firstTickMs(20_000_000n);
  const roundTicks = Math.max(1, Math.round(1000 / tickMs));
  const rows: number[][] = [];
  let cpuStart = 0;
  // The addon's batches keep no process alive.
  const alive = setInterval(() => {}, 1000);
  await new Promise<void>((resolve) => {
    listenForRecords((_coveredMs, recordsJson) => {
      rowsOf(recordsJson, rows, () => (cpuStart = threadsCpuNs(process.pid)));
      if (rows.length >= count) resolve();
    });
    const seedBase = Math.floor(Math.random() * 2 ** 20) * 2 ** 32;
    worker.schedule({ startMs, intervalMs: tickMs, roundTicks, seedBase, resolveName: 'bench', dir, ioSize: 4096, direct: true, sync: 'fdatasync' });
    flushRecordsEvery(startMs, tickMs * roundTicks, 1);
    worker.place('bench', 1);
  });
  const cpuNs = threadsCpuNs(process.pid) - cpuStart;
  await worker.stop();
  clearInterval(alive);
  const output: HarnessOutput = { mode: 'worker', columns: COLUMNS, rows: rows.slice(0, count), cpuNs };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

async function viaProber(): Promise<void> {
  const client = new ProberClient(PROBER_WITH_OUTPUTS, [{ name: 'bench', dir }], { ...DEFAULT_PROBE_PARAMS });
  client.on('lost', (reason) => {
    process.stderr.write(`harness: ${reason}\n`);
    process.exit(1);
  });
  const proberPid = client.pid;
  if (proberPid === undefined) throw new Error('harness: the prober did not start');
  const resolution = await new Promise<Resolution | undefined>((resolve) => {
    client.on('message', (message) => message.type === 'resolved' && resolve(message.resolution));
    client.send({ type: 'resolve', names: ['bench'] });
  });
  if (!resolution) throw new Error(`harness: cannot resolve ${dir}`);
  const startMs = firstTickMs(50_000_000n);
  const roundTicks = Math.max(1, Math.round(1000 / intervalMs));
  const rows: number[][] = [];
  let selfCpuStart = 0;
  let proberCpuStart = 0;
  await new Promise<void>((resolve) => {
    client.on('message', (message) => {
      if (message.type !== 'batch') return;
      rowsOf(message.recordsJson, rows, () => {
        // The first tick made the probe file: a warm-up, from whose end the CPU counts.
        selfCpuStart = threadsCpuNs(process.pid);
        proberCpuStart = threadsCpuNs(proberPid);
      });
      if (rows.length >= count) resolve();
    });
    client.send({ type: 'schedule', schedule: { startMs, intervalMs, roundTicks, flushPeriodMs: intervalMs * roundTicks, flushSlackMs: 1 } });
    client.send({ type: 'place', disks: [{ name: 'bench', device: `${resolution.devMajor}:${resolution.devMinor}` }], fromTick: 1 });
  });
  const selfCpuNs = threadsCpuNs(process.pid) - selfCpuStart;
  const proberCpuNs = threadsCpuNs(proberPid) - proberCpuStart;
  await client.stop(2000);
  const output: HarnessOutput = { mode: 'prober', columns: COLUMNS, rows, cpuNs: selfCpuNs + proberCpuNs, selfCpuNs, proberCpuNs };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

await (mode === 'worker' ? viaWorker() : viaProber());
