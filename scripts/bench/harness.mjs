// Drives slowdisk's own probe path without the CLI's clock or scores, in a process of
// its own, and prints one JSON object on stdout.
//
//   node harness.mjs worker DIR COUNT INTERVAL_MS [PHASES_MS]
//     The addon directly (dist/native/addon.js ProbeWorker, as src/prober/child.ts calls
//     it): per inspection the native phase timings and the round trip seen from JS.
//   node harness.mjs ipc DIR COUNT INTERVAL_MS [PHASES_MS]
//     The whole CLI-side path: the real prober child (dist/prober/prober-client.js),
//     inspections asked for and answered over its IPC channel, timed in this process.
//
// Inspections start on absolute deadlines INTERVAL_MS apart (0: back to back), on
// blocks 1, 2, ... like the prober's ticks; with PHASES_MS ("25,50,75"), on the
// instants of CLOCK_MONOTONIC that many ms past a multiple of INTERVAL_MS, moving to the
// next phase every 10 inspections, exactly as plain-loop.c does, so that tools run side
// by side take turns on the disk. The first one (it makes the probe file in
// ipc mode) is a warm-up and is not reported. CPU time is this process's (all threads)
// and, in ipc mode, the prober's, over the inspections only.
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [mode, dir, countText, intervalText, phasesText] = process.argv.slice(2);
const count = Number(countText);
const intervalMs = Number(intervalText);
const phasesMs = phasesText === undefined ? [] : phasesText.split(',').map(Number);
if (!['worker', 'ipc'].includes(mode) || !dir || !(count > 0) || !(intervalMs >= 0)) {
  process.stderr.write('usage: harness.mjs worker|ipc DIR COUNT INTERVAL_MS [PHASES_MS]\n');
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
  const client = new ProberClient([{ name: 'bench', dir }], { ...DEFAULT_PROBE_PARAMS });
  const waiting = new Map();
  client.on('message', (message) => {
    if (message.type !== 'inspected') return;
    waiting.get(message.tick)?.(message);
    waiting.delete(message.tick);
  });
  client.on('lost', (reason) => {
    process.stderr.write(`harness: ${reason}\n`);
    process.exit(1);
  });
  const proberPid = client.pid;
  cpuNow = () => threadsCpuNs(process.pid) + threadsCpuNs(proberPid);
  let selfCpuStart = 0;
  let proberCpuStart = 0;
  const { rows, cpuNs } = await paced(async (tick) => {
    if (tick === 2) {
      selfCpuStart = threadsCpuNs(process.pid);
      proberCpuStart = threadsCpuNs(proberPid);
    }
    const t0 = performance.now();
    const answer = await new Promise((resolve) => {
      waiting.set(tick, resolve);
      client.send({ type: 'inspect', tick, disks: [{ name: 'bench', freshBlock: false }] });
    });
    const roundTripNs = (performance.now() - t0) * 1e6;
    if (answer.error) throw new Error(`inspection failed: ${answer.error.message}`);
    const t = answer.timings;
    return [t.openMs * 1e6, t.writeMs * 1e6, t.syncMs * 1e6, t.readMs * 1e6, t.closeMs * 1e6, t.totalMs * 1e6, roundTripNs];
  });
  const selfCpuNs = threadsCpuNs(process.pid) - selfCpuStart;
  const proberCpuNs = threadsCpuNs(proberPid) - proberCpuStart;
  await client.stop(2000);
  process.stdout.write(
    `${JSON.stringify({ mode, columns: ['open', 'write', 'sync', 'read', 'close', 'total', 'roundTrip'], rows, cpuNs, selfCpuNs, proberCpuNs })}\n`,
  );
}
