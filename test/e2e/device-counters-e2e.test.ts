// watch with the kernel's counters of a real disk whose storage hangs under it. The disk is
// a loop device whose backing file lives on a second test disk, the "media" (as in
// kernel-counters-e2e.test.ts): the media frozen, the loop device's requests wait on it in
// flight, where its counters see them. watch shows the stall on the round it spans, while
// its own inspection is still waiting, in every output, and a recorded trace replays it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MountTable } from '../../src/mounts/mount-table.js';
import { freePort } from '../helpers/free-port.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, runKit, type TestDisk } from '../helpers/test-disk.js';


type Json = Record<string, unknown>;

const jsonLines = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json);

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** The value of the one sample of `name` with these labels, or undefined. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((row) => row.startsWith(`${name}{`) && wanted.every((label) => row.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze', 'promtool']);

describe.skipIf(gate.skip)('watch with the media under a disk hung', () => {
  let media: TestDisk;
  let dir = '';
  let loop = '';
  const work: string[] = [];
  const clis: RunningCli[] = [];

  beforeAll(async () => {
    media = await makeTestDisk({ backingTmpfs: true, sizeMiB: 100 });
    dir = await mkdtemp(join(tmpdir(), 'slowdisk-disk-on-media-'));
    await runKit('make-disk', [dir, '--backing-dir', media.dir, '--size-mib', '64']);
    loop = basename(MountTable.read().topmostAt(dir)!.source);
  });

  afterAll(async () => {
    try {
      // Thawed first: a prober blocked on the frozen media cannot stop before.
      if (media) await media.thaw();
      for (const cli of clis) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await Promise.all(clis.map((cli) => cli.done));
      if (dir) {
        await runKit('remove-disk', [dir]);
        await rm(dir, { recursive: true, force: true });
      }
      for (const path of work) await rm(path, { recursive: true, force: true });
    } finally {
      await removeAllTestDisks();
    }
  });

  it('shows the stall on the round it spans, while the inspection waits: --json, --verbose, /metrics; the trace replays it', async () => {
    const out = await mkdtemp(join(tmpdir(), 'slowdisk-device-trace-'));
    work.push(out);
    const trace = join(out, 'hang.jsonl');
    const port = await freePort();
    const json = startCli(['watch', '--path', `data=${dir}`, '--keep-going', '--json', '--record', trace, '--listen', `127.0.0.1:${port}`]);
    const verbose = startCli(['watch', '--path', `data=${dir}`, '--keep-going', '--verbose']);
    clis.push(json, verbose);
    const rounds = () => jsonLines(json.stdout()).filter((line) => line.type === 'store').length;
    await waitFor(() => rounds() >= 2, 15_000, 'two rounds');

    // Healthy: the disk's line names the loop device and the media's, each with its figures.
    const healthy = jsonLines(json.stdout());
    const firstDisk = healthy.find((line) => line.type === 'disk')!;
    expect(firstDisk.block_devices).toEqual([loop, basename(media.device)]);
    const loopLines = () => jsonLines(json.stdout()).filter((line) => line.type === 'device' && line.device === loop);
    expect(loopLines()[0]).toMatchObject({ disks: ['data'], role: 'filesystem', stalled: false, in_flight: expect.any(Number) });
    expect(loopLines()[0].w_iops as number).toBeGreaterThan(5);
    const before = await metricsText(port);
    expect(await promtoolCheckMetrics(before)).toBe('');
    // The device label is the kernel's name everywhere, as in node_exporter's node_disk_* series.
    expect(sampleOf(before, 'slowdisk_disk_info', { device: loop, disk: 'data' })).toBe(1);
    expect(sampleOf(before, 'slowdisk_device_stalled', { device: loop, disk: 'data' })).toBe(0);
    expect(sampleOf(before, 'slowdisk_disk_block_device_info', { device: basename(media.device), disk: 'data' })).toBe(1);

    await media.hang();
    const hungAt = performance.now();
    await waitFor(() => loopLines().some((line) => line.stalled === true), 15_000, `a stalled ${loop} device line`);
    const flaggedMs = performance.now() - hungAt;
    const lines = jsonLines(json.stdout());
    const stalledTick = loopLines().find((line) => line.stalled === true)!.tick;
    const diskAt = (tick: unknown) => lines.find((line) => line.type === 'disk' && line.tick === tick)!;
    const stalledRound = diskAt(stalledTick);
    const risen = lines.find((line) => line.type === 'disk' && (line.score as number) > 1);
    console.log(
      `media frozen: ${loop} flagged stalled at tick ${String(stalledTick)}, ${flaggedMs.toFixed(0)} ms after the freeze; ` +
        `that round the disk's score was ${String(stalledRound.score)}, its inspection waiting ${String(stalledRound.waiting_ms)} ms; ` +
        `the score first left 1 at tick ${String(risen?.tick)}`,
    );
    // The round the stall is flagged on, the disk's own inspection has not come back: the
    // counters say why, and the score is far from the slow threshold.
    expect(stalledRound.waiting_ms).toBeGreaterThan(0);
    expect(stalledRound.stalled_devices).toEqual([loop]);
    expect(stalledRound.score as number).toBeLessThan(80);
    // Within two rounds of the freeze.
    expect(flaggedMs).toBeLessThan(6000 + 1000);
    const during = await metricsText(port);
    expect(sampleOf(during, 'slowdisk_device_stalled', { device: loop, disk: 'data' })).toBe(1);
    expect(sampleOf(during, 'slowdisk_device_in_flight', { device: loop, disk: 'data' })).toBeGreaterThan(0);
    expect(await promtoolCheckMetrics(during)).toBe('');

    // The default view marks the stall on the disk's line; --verbose adds the device's line.
    const marked = new RegExp(`\\| data \\S+ score [\\d.]+ .* on ${loop},\\S+ STALLED ${loop}`);
    await waitFor(() => marked.test(verbose.stdout()), 10_000, 'a round line marked STALLED');
    expect(verbose.stdout()).toMatch(new RegExp(`^\\S+   ${loop} \\(data\\): read \\S+, write 0/s, flush 0/s, in flight [1-9]\\d*, util \\d+% STALLED$`, 'm'));

    await media.thaw();
    await waitFor(() => loopLines().at(-1)!.stalled === false && (loopLines().at(-1)!.tick as number) > (stalledTick as number) + 30, 15_000, 'the stall cleared');
    json.child.kill('SIGINT');
    verbose.child.kill('SIGINT');
    expect((await json.done).code).toBe(130);
    expect((await verbose.done).code).toBe(130);

    // The trace holds every round's device lines, and replay shows them as watch did.
    const live = jsonLines((await json.done).stdout).filter((line) => line.type === 'device');
    const replayed = await runCli(['replay', trace, '--json']);
    expect(replayed.stderr).toBe('');
    const strip = ({ time: _time, elapsed_seconds: _elapsed, type: _type, ...rest }: Json) => rest;
    const replayedDevices = jsonLines(replayed.stdout).filter((line) => line.type === 'device');
    expect(replayedDevices.map(strip)).toEqual(live.map(strip));
    expect(replayedDevices.some((line) => line.stalled === true)).toBe(true);
    const timeline = await runCli(['replay', trace, '--verbose']);
    expect(timeline.stdout).toMatch(new RegExp(`^  ${loop} \\(data\\): .* STALLED$`, 'm'));
  }, 90_000);
});
