// Drives slowdisk's own probe path without the CLI's clock or scores, in a process of
// its own, and prints one JSON object on stdout.
//
//   node harness.mjs worker DIR COUNT INTERVAL_MS [PHASES_MS]
//     The addon directly (dist/native/addon.js ProbeWorker), one inspect() call from JS an
//     inspection: per inspection the native phase timings and the round trip seen from JS.
//   node harness.mjs prober DIR COUNT INTERVAL_MS [PHASES_MS]
//     The whole CLI-side path: the real prober child (dist/prober/prober-client.js) on a
//     schedule of its own, its native thread keeping the ticks, its records coming back in
//     batches once a second over its IPC channel; "roundTrip" is then from an inspection's
//     start to its record, and the ticks keep the first phase.
//
// Inspections start on absolute deadlines INTERVAL_MS apart (0: back to back), on
// blocks 1, 2, ... like the prober's ticks; with PHASES_MS ("25,50,75"), on the
// instants of CLOCK_MONOTONIC that many ms past a multiple of INTERVAL_MS, moving to the
// next phase every 10 inspections, exactly as plain-loop.c does, so that tools run side
// by side take turns on the disk. The first one (it makes the probe file in
// prober mode) is a warm-up and is not reported. CPU time is this process's (all threads)
// and, in prober mode, the prober's, over the inspections only.
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [mode, dir, countText, intervalText, phasesText] = process.argv.slice(2);
const count = Number(countText);
const intervalMs = Number(intervalText);
const phasesMs = phasesText === undefined ? [] : phasesText.split(',').map(Number);
if (!['worker', 'prober'].includes(mode) || !dir || !(count > 0) || !(intervalMs > 0 || mode === 'worker')) {
  process.stderr.write('usage: harness.mjs worker|prober DIR COUNT INTERVAL_MS [PHASES_MS]\n');
  process.exit(2);
}

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU time of every thread of a process, in ns, from the scheduler's own accounting. */
function threadsCpuNs(pid) {
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

/**
 * The deadline of inspection k on performance.now()'s scale (it and hrtime both read
 * CLOCK_MONOTONIC): as plain-loop.c computes it.
 */
function schedule() {
  if (phasesMs.length === 0 || intervalMs === 0) {
    const first = performance.now() + intervalMs;
    return (k) => first + k * intervalMs;
  }
  const interval = BigInt(Math.round(intervalMs * 1e6));
  const now = process.hrtime.bigint();
  const perfNow = performance.now();
  const firstGrid = ((now + 20_000_000n) / interval) * interval + interval;
  const first = perfNow + Number(firstGrid - now) / 1e6;
  return (k) => first + k * intervalMs + phasesMs[Math.floor(k / 10) % phasesMs.length];
}

async function paced(inspectOne) {
  const rows = [];
  let cpuStart = 0;
  const deadline = schedule();
  for (let i = 0; i <= count; i += 1) {
    if (intervalMs > 0) {
      const wait = deadline(i) - performance.now();
      if (wait > 0) await sleep(wait);
    }
    if (i === 1) cpuStart = cpuNow();
    const row = await inspectOne(i + 1);
    if (i > 0) rows.push(row);
  }
  return { rows, cpuNs: cpuNow() - cpuStart };
}

let cpuNow = () => threadsCpuNs(process.pid);

if (mode === 'worker') {
  const { ProbeWorker } = await import(dist('native/addon.js'));
  const worker = new ProbeWorker('bench');
  const file = await worker.prepare(dir, { ioSize: 4096, direct: true });
  const seedBase = Math.floor(Math.random() * 2 ** 20) * 2 ** 32;
  const { rows, cpuNs } = await paced(async (block) => {
    const t0 = performance.now();
    const r = await worker.inspect({ file, block, direct: true, sync: 'fdatasync', seed: seedBase + block });
    const roundTripNs = (performance.now() - t0) * 1e6;
    return [r.openNs, r.writeNs, r.syncNs, r.readNs, r.closeNs, r.totalNs, roundTripNs];
  });
  await worker.remove(file);
  worker.close();
  process.stdout.write(`${JSON.stringify({ mode, columns: ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'], rows, cpuNs })}\n`);
} else {
  const { ProberClient } = await import(dist('prober/prober-client.js'));
  const { DEFAULT_PROBE_PARAMS } = await import(dist('prober/probe-params.js'));
  const { PROBER_WITH_OUTPUTS } = await import(dist('output/prober-program.js'));
  const client = new ProberClient(PROBER_WITH_OUTPUTS, [{ name: 'bench', dir }], { ...DEFAULT_PROBE_PARAMS });
  client.on('lost', (reason) => {
    process.stderr.write(`harness: ${reason}\n`);
    process.exit(1);
  });
  const proberPid = client.pid;
  const resolution = await new Promise((resolve) => {
    client.on('message', (message) => message.type === 'resolved' && resolve(message.resolution));
    client.send({ type: 'resolve', names: ['bench'] });
  });
  if (!resolution) throw new Error(`harness: cannot resolve ${dir}`);
  // Tick 1 at the first phase past a multiple of the interval, as plain-loop.c places its own.
  const interval = BigInt(Math.round(intervalMs * 1e6));
  const now = process.hrtime.bigint();
  const grid = ((now + 50_000_000n) / interval) * interval + interval;
  const startMs = Number(grid) / 1e6 + (phasesMs[0] ?? 0) - intervalMs;
  const roundTicks = Math.max(1, Math.round(1000 / intervalMs));
  const rows = [];
  let selfCpuStart = 0;
  let proberCpuStart = 0;
  await new Promise((resolve) => {
    client.on('message', (message) => {
      if (message.type !== 'batch') return;
      for (const record of JSON.parse(message.recordsJson)) {
        if (!Array.isArray(record) && record.kind !== 'inspected') continue;
        const row = Array.isArray(record) ? record : record.timings ? [record.name, record.tick, record.atMs, ...Object.values(record.timings), record.atMs] : null;
        if (!row) throw new Error(`inspection failed: ${record.error?.message}`);
        if (row[1] === 1) {
          // The first tick made the probe file: a warm-up, from whose end the CPU counts.
          selfCpuStart = threadsCpuNs(process.pid);
          proberCpuStart = threadsCpuNs(proberPid);
          continue;
        }
        rows.push([...row.slice(3, 9).map((ms) => ms * 1e6), (row[2] - row[9]) * 1e6]);
      }
      if (rows.length >= count) resolve();
    });
    client.send({ type: 'schedule', schedule: { startMs, intervalMs, roundTicks, flushPeriodMs: intervalMs * roundTicks, flushSlackMs: 1 } });
    client.send({ type: 'place', disks: [{ name: 'bench', device: `${resolution.devMajor}:${resolution.devMinor}` }], fromTick: 1 });
  });
  const selfCpuNs = threadsCpuNs(process.pid) - selfCpuStart;
  const proberCpuNs = threadsCpuNs(proberPid) - proberCpuStart;
  await client.stop(2000);
  process.stdout.write(
    `${JSON.stringify({ mode, columns: ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'], rows, cpuNs: selfCpuNs + proberCpuNs, selfCpuNs, proberCpuNs })}\n`,
  );
}
