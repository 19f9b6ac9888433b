// --textfile and --listen: the metrics node_exporter and Prometheus read, complete at every
// moment and valid for promtool.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, probeFiles, probeFilesLeftBy, runCli, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-prometheus-export-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const gate = requireRootFacilities(['promtool']);

/** Every inspection a timeout, rounds of 2 ticks of 10 ms: 50 rounds a second, 100 within a second. */
const FAST_AND_TIMING_OUT = ['--timeout', '0.001ms', '--interval', '10ms', '--round-ticks', '2', '--keep-going'];

/** The metric families slowdisk exports, each once: a file holding all of them is complete. */
const FAMILIES = [
  'slowdisk_slow_score',
  'slowdisk_store_score',
  'slowdisk_store_reported_score',
  'slowdisk_disk_up',
  'slowdisk_disk_hung',
  'slowdisk_disk_contested',
  'slowdisk_disk_info',
  'slowdisk_statistical_state',
  'slowdisk_tail_state',
  'slowdisk_predicted_breach_probability',
  'slowdisk_predicted_warning',
  'slowdisk_slow_cause',
  'slowdisk_disk_held',
  'slowdisk_disk_block_device_info',
  'slowdisk_device_in_flight',
  'slowdisk_device_stalled',
  'slowdisk_memory_backed',
  'slowdisk_filesystem_changed',
  'slowdisk_build_info',
  'slowdisk_buffered',
  'slowdisk_evict_threshold',
  'slowdisk_slow_threshold',
  'slowdisk_last_round_timestamp_seconds',
  'slowdisk_inspection_duration_seconds',
  'slowdisk_inspection_timeouts_total',
  'slowdisk_inspection_errors_total',
];

/** `watch` at 50 rounds a second with --textfile, once its first textfile is there. */
async function watchWritingTextfile(): Promise<{ dir: string; textfiles: string; file: string; cli: RunningCli }> {
  const dir = mkdtempSync(path.join(work, 'probed-'));
  const textfiles = mkdtempSync(path.join(work, 'textfile-'));
  const file = path.join(textfiles, 'slowdisk.prom');
  const cli = startCli(['watch', '--raft', dir, ...FAST_AND_TIMING_OUT, '--textfile', textfiles]);
  await waitFor(() => existsSync(file), 10_000, 'the first textfile');
  return { dir, textfiles, file, cli };
}

function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
}

/** The value of the one sample whose name and labels are given; labels in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)));
  expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return Number(found[0].slice(found[0].lastIndexOf(' ') + 1));
}


describe.skipIf(gate.skip)('--textfile DIR', () => {
  it('DIR/slowdisk.prom is complete whenever it is read, 50 rounds a second, and valid for promtool', async () => {
    const { dir, textfiles, file, cli } = await watchWritingTextfile();
    // Written by the prober: a textfile takes no process, and no memory, of its own.
    expect(childPids(cli.child.pid!)).toHaveLength(1);
    const seen = new Set<string>();
    let reads = 0;
    const until = performance.now() + 3000;
    while (performance.now() < until) {
      const text = readFileSync(file, 'utf8');
      reads += 1;
      seen.add(text);
      expect(text.endsWith('\n')).toBe(true);
      expect(families(text)).toEqual(FAMILIES);
      // The histogram's last line: the file was not cut short.
      // Every series names the store: this host's name, the same in the textfile and at /metrics.
      expect(sample(text, 'slowdisk_inspection_duration_seconds_count', { disk: 'raft', phase: 'total', store: os.hostname() })).toBeGreaterThanOrEqual(0);
      await new Promise((resolve) => setImmediate(resolve));
    }
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(143);
    console.log(`textfile: ${reads} reads, ${seen.size} distinct versions, every one complete`);
    expect(seen.size).toBeGreaterThan(20);

    const text = readFileSync(file, 'utf8');
    expect(await promtoolCheckMetrics(text)).toBe('');
    expect(sample(text, 'slowdisk_store_reported_score')).toBe(100);
    expect(sample(text, 'slowdisk_slow_score', { disk: 'raft', path: dir })).toBe(100);
    expect(sample(text, 'slowdisk_disk_up', { disk: 'raft' })).toBe(1);
    expect(sample(text, 'slowdisk_evict_threshold')).toBe(100);
    expect(sample(text, 'slowdisk_slow_threshold')).toBe(80);
    expect(sample(text, 'slowdisk_buffered')).toBe(0);
    expect(sample(text, 'slowdisk_disk_info', { disk: 'raft', path: dir, skipped_for: '' })).toBe(1);
    // Every tick but the open one was charged, and every completed inspection observed.
    expect(sample(text, 'slowdisk_inspection_timeouts_total', { disk: 'raft' })).toBeGreaterThan(100);
    expect(sample(text, 'slowdisk_inspection_duration_seconds_count', { disk: 'raft', phase: 'sync' })).toBeGreaterThan(100);
    expect(Date.now() / 1000 - sample(text, 'slowdisk_last_round_timestamp_seconds')).toBeLessThan(10);
    // Only the file itself is left: no temporary file.
    expect(readdirSync(textfiles)).toEqual(['slowdisk.prom']);
  });

  it('goes on being written when the prober that writes it is killed: by the one that replaces it', async () => {
    const { dir, file, cli } = await watchWritingTextfile();
    // A prober is replaced once it has answered (else it would only die again): its inspections are in the file.
    await waitFor(() => /^slowdisk_inspection_duration_seconds_count\{(?=[^}]*disk="raft")(?=[^}]*phase="total")(?=[^}]*store=")[^}]*\} [1-9]/m.test(readFileSync(file, 'utf8')), 10_000, 'an inspection in the textfile');
    const [prober] = childPids(cli.child.pid!);
    process.kill(prober!, 'SIGKILL');
    await waitFor(() => childPids(cli.child.pid!).some((pid) => pid !== prober), 5000, 'a new prober');
    const replacement = childPids(cli.child.pid!).find((pid) => pid !== prober)!;
    const restartedAtMs = Date.now();
    await waitFor(() => statSync(file).mtimeMs > restartedAtMs, 5000, 'the textfile written by the new prober');
    // The killed prober's probe file is removed when the new one makes its own, at its first
    // tick, or lets the directory go before it (native.test.ts); one stopped before it was
    // placed there never touches the directory, and leaves the file to the next run.
    await waitFor(() => !probeFiles(dir).some((name) => name.includes(`-${prober}-`)), 5000, "the killed prober's probe file removed");
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    // A write the killed prober had under way is told once, as not written; no other line.
    expect(result.stderr).toMatch(new RegExp(`^(slowdisk: cannot write the textfile ${file}: the prober \\(pid ${prober}\\) (ended|was killed by SIGKILL)\\n)?$`));
    expect(families(readFileSync(file, 'utf8'))).toEqual(FAMILIES);
    // On the machine's own disk, busy with the rest of the suite, a sync under way can keep
    // the prober past the run's 2 s wait: it removes the file when the sync returns.
    expect(await probeFilesLeftBy(replacement, dir)).toEqual([]);
  });

  it('a directory that cannot take the file: one line, exit 3, no probe file left', async () => {
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const missing = path.join(work, 'no-such-dir');
    const result = await runCli(['check', '--raft', dir, '--textfile', missing]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: cannot write the textfile ${missing}/slowdisk\\.prom: ENOENT: .*\n$`));
    expect(probeFiles(dir)).toEqual([]);
  });
});

describe.skipIf(gate.skip)('--listen ADDR:PORT', () => {
  it('serves /metrics for Prometheus, and a pointer at /', async () => {
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const cli = startCli(['watch', '--raft', dir, '--listen', `127.0.0.1:${port}`, '--round-ticks', '5']);
    try {
      await waitFor(() => /tick 10 /.test(cli.stdout()), 10_000, 'two rounds');
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await metrics.text();
      expect(families(text)).toEqual(FAMILIES);
      expect(await promtoolCheckMetrics(text)).toBe('');
      // One disk: the store's score is its score (1 unless this machine was slow just now).
      const score = sample(text, 'slowdisk_slow_score', { disk: 'raft', path: dir });
      expect(score).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'slowdisk_store_score')).toBe(score);
      expect(sample(text, 'slowdisk_store_reported_score')).toBe(Math.trunc(score));
      expect(sample(text, 'slowdisk_disk_up', { disk: 'raft', path: dir })).toBe(1);
      expect(sample(text, 'slowdisk_inspection_duration_seconds_count', { disk: 'raft', phase: 'write' })).toBeGreaterThan(5);
      expect(sample(text, 'slowdisk_inspection_timeouts_total', { disk: 'raft' })).toBeGreaterThanOrEqual(0);

      const root = await fetch(`${base}/`);
      expect(root.status).toBe(200);
      expect(await root.text()).toBe('slowdisk: Prometheus metrics at /metrics\n');
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('');
  });

  it.each(['9258', 'localhost', '127.0.0.1:0', '127.0.0.1:70000', '[::1:9258'])('a bad address %j: one line, exit 3', async (address) => {
    const result = await runCli(['watch', '--listen', address]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: option '--listen <addr:port>' argument '.*' is invalid\. expected ADDR:PORT, such as 127\.0\.0\.1:9258, \[::1\]:9258 or :9258 \(every interface\), got '.*'\n$/);
  });
});
