// Drives slowdisk's own probe path without the CLI's clock or scores, in a process of
// its own, and prints one JSON object on stdout.
//
//   node harness.mjs worker DIR COUNT INTERVAL_MS [PHASES_MS]
//     The addon directly (dist/native/addon.js ProbeWorker) in this process, its native thread
//     keeping the ticks (1 ms apart at least) and making the probe file, no prober child: per
//     inspection the native phase timings and the round trip from its start to its record.
//     Its ticks keep the first phase.
//   node harness.mjs prober DIR COUNT INTERVAL_MS [PHASES_MS]
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

let cpuNow = () => threadsCpuNs(process.pid);

/** Tick 1 at the first phase past a multiple of the interval, as plain-loop.c places its own. */
function firstTickMs(leadNs) {
  const interval = BigInt(Math.round(intervalMs * 1e6));
  const now = process.hrtime.bigint();
  const grid = ((now + leadNs) / interval) * interval + interval;
  return Number(grid) / 1e6 + (phasesMs[0] ?? 0) - intervalMs;
}

/** Rows of [open, write, sync, read, close, total, roundTrip] ns from a batch's records; tick 1 (it made the probe file) calls `warm`. */
function rowsOf(recordsJson, rows, warm) {
  for (const record of JSON.parse(recordsJson)) {
    if (!Array.isArray(record) && record.kind !== 'inspected') continue;
    const row = Array.isArray(record) ? record : record.timings ? [record.name, record.tick, record.atMs, ...Object.values(record.timings), record.atMs] : null;
    if (!row) throw new Error(`inspection failed: ${record.error?.message}`);
    if (row[1] === 1) {
      warm();
      continue;
    }
    rows.push([...row.slice(3, 9).map((ms) => ms * 1e6), (row[2] - row[9]) * 1e6]);
  }
}

if (mode === 'worker') {
  const { ProbeWorker, listenForRecords, flushRecordsEvery } = await import(dist('native/addon.js'));
  const worker = new ProbeWorker('bench');
  const tickMs = Math.max(1, intervalMs);
  const startMs = firstTickMs(20_000_000n);
  const roundTicks = Math.max(1, Math.round(1000 / tickMs));
  const rows = [];
  let cpuStart = 0;
  // The addon's batches keep no process alive.
  const alive = setInterval(() => {}, 1000);
  await new Promise((resolve) => {
    listenForRecords((_coveredMs, recordsJson) => {
      rowsOf(recordsJson, rows, () => (cpuStart = cpuNow()));
      if (rows.length >= count) resolve();
    });
    const seedBase = Math.floor(Math.random() * 2 ** 20) * 2 ** 32;
    worker.schedule({ startMs, intervalMs: tickMs, roundTicks, explainAfterMs: tickMs, seedBase, resolveName: 'bench', dir, ioSize: 4096, direct: true, sync: 'fdatasync' });
    flushRecordsEvery(startMs, tickMs * roundTicks, 1);
    worker.place('bench', 1);
  });
  const cpuNs = cpuNow() - cpuStart;
  await worker.stop();
  clearInterval(alive);
  process.stdout.write(`${JSON.stringify({ mode, columns: ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'], rows: rows.slice(0, count), cpuNs })}\n`);
} else {
  const { ProberClient } = await import(dist('prober/prober-client.js'));
  const { DEFAULT_PROBE_PARAMS } = await import(dist('probe/probe-params.js'));
  const { PROBER_WITH_OUTPUTS } = await import(dist('prober/prober-program.js'));
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
  const startMs = firstTickMs(50_000_000n);
  const roundTicks = Math.max(1, Math.round(1000 / intervalMs));
  const rows = [];
  let selfCpuStart = 0;
  let proberCpuStart = 0;
  await new Promise((resolve) => {
    client.on('message', (message) => {
      if (message.type !== 'batch') return;
      rowsOf(message.recordsJson, rows, () => {
        // The first tick made the probe file: a warm-up, from whose end the CPU counts.
        selfCpuStart = threadsCpuNs(process.pid);
        proberCpuStart = threadsCpuNs(proberPid);
      });
      if (rows.length >= count) resolve();
    });
    client.send({ type: 'schedule', schedule: { startMs, intervalMs, roundTicks, explainAfterMs: intervalMs, flushPeriodMs: intervalMs * roundTicks, flushSlackMs: 1 } });
    client.send({ type: 'place', disks: [{ name: 'bench', device: `${resolution.devMajor}:${resolution.devMinor}` }], fromTick: 1 });
  });
  const selfCpuNs = threadsCpuNs(process.pid) - selfCpuStart;
  const proberCpuNs = threadsCpuNs(proberPid) - proberCpuStart;
  await client.stop(2000);
  process.stdout.write(
    `${JSON.stringify({ mode, columns: ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'], rows, cpuNs: selfCpuNs + proberCpuNs, selfCpuNs, proberCpuNs })}\n`,
  );
}
