// watch and check with --devices and --state-dir as an operator runs them (the built bin, a
// child process) on real loop disks and the machine's own /proc/diskstats: two checks
// accumulate history, a history with a slow drive makes check exit WARNING, watch holds the
// directory and lets go on SIGINT, a corrupt history is reported and set aside, and bad
// flags end with one line and exit 3.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveIdentity, readDeviceClass } from '../../src/drives/block-disks.js';
import { DriveMonitor } from '../../src/drives/drive-monitor.js';
import { emptyHistory } from '../../src/drives/history.js';
import { DEFAULT_DRIVE_PARAMS } from '../../src/drives/drive-params.js';
import { decodeHistory, FileStateStore, STATE_FILE } from '../../src/drives/state-file.js';
import { DEFAULT_PEER_PARAMS } from '../../src/drives/peer-params.js';
import { freePort } from '../helpers/free-port.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { expectUnknown, jsonLines, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { SyntheticHost } from '../helpers/synthetic-diskstats.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-drives-cli-'));
let dirs = 0;
const newStateDir = () => path.join(work, `state-${++dirs}`);


describe('bad drive flags', () => {
  const cases: [string[], RegExp][] = [
    [['check', '--all-devices', '--devices', 'sda,sdb,sdc,sdd'], /--all-devices and --devices both choose the drives: give one/],
    [['check', '--devices', 'sda,,sdb'], /argument 'sda,,sdb' is invalid\. expected kernel device names separated by commas/],
    [['watch', '--devices', 'sda,sda,sdb,sdc'], /a device is named twice in 'sda,sda,sdb,sdc'/],
    [['check', '--state-dir', ''], /--state-dir is empty/],
    [['check', '--devices', 'nosuch1,nosuch2,nosuch3,nosuch4', '--state-dir', '/tmp/nowhere'], /no block device nosuch1, nosuch2, nosuch3, nosuch4 in \/proc\/diskstats/],
    [['check', '--devices', 'sda,sdb,sdc,sdd', '--format', 'nagios'], /--format nagios reports on probed paths: give --raft, --kv or --path with it/],
  ];
  for (const [args, pattern] of cases) {
    it(`${args.join(' ')}: one line, exit 3`, async () => {
      const result = await runCli(args);
      if (!args.includes('nagios')) return expectUnknown(result, pattern);
      // With --format nagios, the one line is on stdout too, as every exit of a plugin has it.
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(/^SLOWDISK UNKNOWN - [^\n]+\n$/);
      expect(result.stdout).toMatch(pattern);
    });
  }
});

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze', 'promtool']);

describe.skipIf(gate.skip)('drives judged on real loop disks', () => {
  let disks: TestDisk[] = [];
  let names: string[] = [];
  /** The state directory of a history in which the third disk is slow. */
  let slowHistoryDir = '';
  beforeAll(async () => {
    for (let i = 0; i < 4; i += 1) disks.push(await makeTestDisk());
    names = disks.map((disk) => path.basename(disk.device));
  }, 120_000);
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  /** Some real writes on every disk, so that the counters move between runs. */
  function load(): void {
    disks.forEach((disk, i) => execFileSync('dd', ['if=/dev/zero', `of=${path.join(disk.dir, 'load')}`, 'bs=64k', `count=${8 * (i + 1)}`, 'oflag=direct', 'conv=fsync'], { stdio: 'ignore' }));
  }

  it('accumulates history over two checks run one after the other, as from cron', async () => {
    const stateDir = newStateDir();
    const args = ['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short', '--json'];
    const first = await runCli(args);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = jsonLines(first.stdout);
    expect(lines.map((line) => [line.type, line.device ?? null, line.verdict ?? null])).toEqual([...names.map((name) => ['drive', name, 'ok']), ['drives', null, null]]);
    expect(lines.at(-1)).toMatchObject({ drives: 4, slow: [], min_slow_days: 4, state_dir: stateDir });
    const afterFirst = decodeHistory(readFileSync(path.join(stateDir, STATE_FILE), 'utf8'));
    load();
    const second = await runCli(args);
    expect(second.code).toBe(0);
    const afterSecond = decodeHistory(readFileSync(path.join(stateDir, STATE_FILE), 'utf8'));
    expect(afterSecond.last!.timeMs).toBeGreaterThan(afterFirst.last!.timeMs);
    // The interval between the two runs is in the history: the dd writes of every disk, by its identity.
    const bytesOf = (history: typeof afterSecond, name: string) => {
      const id = history.last!.devices[name]!.id;
      expect(id).toBe(driveIdentity(name, history.last!.devices[name]!.counters.device));
      return Object.values(history.open)
        .flatMap((drives) => Object.values(drives[id] ?? {}))
        .reduce((sum, bucket) => sum + bucket[0], 0);
    };
    names.forEach((name, i) => {
      expect(bytesOf(afterSecond, name) - bytesOf(afterFirst, name)).toBeGreaterThanOrEqual(8 * (i + 1) * 65536);
    });
    expect(readdirSync(stateDir).sort()).toEqual([STATE_FILE]);
  }, 60_000);

  it('exits WARNING with a line naming a drive its history shows slow against its peers', async () => {
    // Five days of history, written as earlier runs would have, in which the third disk ran 1.6x its peers.
    const stateDir = newStateDir();
    slowHistoryDir = stateDir;
    const now = Date.now();
    const start = Date.parse(`${new Date(now - 5 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`);
    const host = new SyntheticHost({ devices: names, seed: 11, factor: (device) => (device === names[2] ? 1.6 : 1) }, start);
    const majMin = new Map(disks.map((disk) => [path.basename(disk.device), disk.majMin]));
    let clock = start;
    const monitor = new DriveMonitor(
      names,
      emptyHistory(),
      { diskstats: () => host.diskstats(), bootId: () => 'an earlier boot', identity: (name) => driveIdentity(name, majMin.get(name)!), deviceClass: (name) => readDeviceClass(name) },
      () => clock,
      DEFAULT_PEER_PARAMS,
      DEFAULT_DRIVE_PARAMS,
    );
    for (; clock < now - 60_000; clock += 5 * 60_000) {
      host.advanceTo(clock);
      monitor.sample();
    }
    const { store } = await FileStateStore.open(stateDir);
    await store.save(monitor.history);
    await store.close();

    const textfileDir = path.join(work, `textfile-${dirs}`);
    mkdirSync(textfileDir);
    const human = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short', '--textfile', textfileDir]);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(1);
    const [slowLine, summary, ...rest] = human.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    // Loop devices on one filesystem: one class, from the real sysfs.
    const loopClass = readDeviceClass(names[0]!);
    expect(loopClass).toMatch(/^virtual-(hdd|ssd)$/);
    expect(names.map((name) => readDeviceClass(name))).toEqual(names.map(() => loopClass));
    expect(slowLine).toMatch(
      new RegExp(
        `^${names[2]}: SLOW now, 1\\.[5-7]\\dx its peers' latency at \\d\\.\\d\\dx their load, slow on [4-6] of [4-6] days \\(\\d{4}-\\d\\d-\\d\\d to \\d{4}-\\d\\d-\\d\\d\\), confidence (0|1)\\.\\d\\d; ` +
          `slow since \\d{4}-\\d\\d-\\d\\d \\(on [4-6] of [4-6] days, 1\\.[5-7]\\dx its peers\\); class ${loopClass}$`,
      ),
    );
    expect(summary).toBe(`drives: 1 of 4 drives slow (${names[2]}); 6 days of history in ${stateDir}; judged by class: 4 ${loopClass}`);
    // node_exporter's textfile: a file of its own, beside the probes' slowdisk.prom.
    expect(readdirSync(textfileDir)).toEqual(['slowdisk-drives.prom']);
    const metrics = readFileSync(path.join(textfileDir, 'slowdisk-drives.prom'), 'utf8');
    names.forEach((name, i) => {
      const id = driveIdentity(name, disks[i]!.majMin);
      expect(metrics).toContain(`slowdisk_drive_slow{device="${name}",id="${id}",class="${loopClass}"} ${i === 2 ? 1 : 0}\n`);
    });
    expect(metrics).toMatch(new RegExp(`slowdisk_drive_latency_ratio\\{device="${names[2]}"\\} 1\\.[4-7]`));
    expect(metrics).toContain('slowdisk_drive_history_seconds 518400\n');
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);

    const json = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short', '--json']);
    expect(json.code).toBe(1);
    const slow = jsonLines(json.stdout).find((line) => line.device === names[2]);
    expect(slow).toMatchObject({ type: 'drive', verdict: 'slow', class: loopClass, id: driveIdentity(names[2]!, disks[2]!.majMin), episodes: [{ ongoing: true }] });
    expect(slow!.ratio as number).toBeGreaterThan(1.4);
    expect(slow!.days as number).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it('watch holds the state directory while it runs, prints the drives, and saves and lets go on SIGINT', async () => {
    const stateDir = newStateDir();
    const watch = startCli(['watch', '--devices', names.join(','), '--state-dir', stateDir, '--json']);
    await waitFor(() => watch.stdout().includes('"type":"drives"'), 10_000, "watch's first judgement");
    const busy = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
    expectUnknown(busy, new RegExp(`the state directory ${stateDir} is in use by process ${watch.child.pid}`));
    watch.child.kill('SIGINT');
    const result = await watch.done;
    expect(result.code).toBe(130);
    const lines = jsonLines(result.stdout);
    // The first judgement and the last, each every drive and the summary.
    expect(lines.filter((line) => line.type === 'drives')).toHaveLength(2);
    expect(lines.filter((line) => line.type === 'drive')).toHaveLength(8);
    expect(readdirSync(stateDir)).toEqual([STATE_FILE]);
  }, 30_000);

  it('exits despite a state directory on a hung disk: the verdict printed, the unsaved history reported', async () => {
    const frozen = disks[3]!;
    const stateDir = path.join(frozen.dir, 'state');
    const watch = startCli(['watch', '--devices', names.join(','), '--state-dir', stateDir]);
    await waitFor(() => watch.stdout().includes('drives: '), 10_000, "watch's first judgement");
    await frozen.hang();
    try {
      const stopped = performance.now();
      watch.child.kill('SIGINT');
      await waitFor(() => watch.stderr().includes('was not saved'), 20_000, 'the unsaved history reported');
      // The output deadline (3 s), then the exit.
      expect(performance.now() - stopped).toBeLessThan(6_000);
      await waitFor(() => watch.stderr().includes('not written: '), 5_000, 'what was not written');
      expect(watch.stderr()).toBe(`slowdisk: the drive history ${path.join(stateDir, STATE_FILE)} was not saved within 3 s: its disk may hang\nslowdisk: not written: the drive history ${path.join(stateDir, STATE_FILE)}\n`);
      await waitFor(() => watch.stdout().split('\n').filter((line) => line.startsWith('drives: ')).length === 2, 5_000, 'the last judgement');
    } finally {
      await frozen.thaw();
    }
    expect((await watch.done).code).toBe(130);
    // The lock it could not remove is taken over by the next run, its process being gone.
    const next = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
  }, 60_000);

  it('reports a corrupt history with its path, sets it aside and starts afresh', async () => {
    const stateDir = newStateDir();
    const args = ['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short'];
    expect((await runCli(args)).code).toBe(0);
    const file = path.join(stateDir, STATE_FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"version":1', '"version":2'));
    const result = await runCli(args);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: the drive history ${file} is corrupt \\(checksum mismatch\\): set aside as ${file}\\.corrupt-[0-9T-]+Z, starting a new history\\n$`));
    expect(readdirSync(stateDir).filter((name) => name.startsWith(`${STATE_FILE}.corrupt-`))).toHaveLength(1);
    expect(result.stdout).toMatch(/^drives: no drive slow of 4; 1 day of history, a slow verdict needs at least 4 in /);
  }, 30_000);

  it("serves the drives' gauges at /metrics with --listen, alone and beside the probes' gauges", async () => {
    for (const probed of [[], ['--path', `d=${disks[0]!.dir}`]]) {
      const port = await freePort();
      const watch = startCli(['watch', ...probed, '--devices', names.join(','), '--state-dir', slowHistoryDir, '--listen', `127.0.0.1:${port}`, '--keep-going']);
      try {
        let metrics = '';
        await waitFor(async () => {
          metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text(), () => '');
          return metrics.includes('slowdisk_drive_slow{') && (probed.length === 0 || metrics.includes('slowdisk_slow_score{'));
        }, 15_000, '/metrics with the drives');
        expect(metrics).toMatch(new RegExp(`slowdisk_drive_slow\{device="${names[2]}",id="[^"]+",class="[^"]+"(?:,store="[^"]+")?\} 1\n`));
        expect(metrics).toMatch(new RegExp(`slowdisk_drive_slow\{device="${names[0]}",id="[^"]+",class="[^"]+"(?:,store="[^"]+")?\} 0\n`));
        expect(metrics.includes('slowdisk_slow_score{')).toBe(probed.length > 0);
        const lint = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
        expect(lint.stdout + lint.stderr).toBe('');
      } finally {
        watch.child.kill('SIGINT');
      }
      const result = await watch.done;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(130);
    }
  }, 60_000);

  it('judges the drives beside the probed paths: the check line and the drives', async () => {
    const stateDir = newStateDir();
    const result = await runCli(['check', '--path', `d=${disks[0]!.dir}`, '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^OK/);
    expect(lines[1]).toMatch(/^drives: no drive slow of 4; /);
    // The history of the slow drive's test: the check is WARNING, and its summary says so.
    const json = await runCli(['check', '--path', `d=${disks[0]!.dir}`, '--devices', names.join(','), '--state-dir', slowHistoryDir, '--duration', '1s', '--allow-short', '--json']);
    expect(json.code).toBe(1);
    const summary = jsonLines(json.stdout).find((line) => line.type === 'summary');
    expect(summary).toMatchObject({ status: 'OK', exit_code: 1 });
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({ type: 'drives', slow: [names[2]] });
  }, 30_000);
});
