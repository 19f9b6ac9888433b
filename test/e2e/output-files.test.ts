// The files slowdisk writes (--textfile, --record, --state-dir) against someone who can write
// to their directory, and on a disk that hangs: nothing planted at a name is ever followed or
// opened, and an output on a frozen filesystem stalls only the output writer, never the run.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { expectUnknown, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-output-files-'));
let dirs = 0;
const newDir = (what: string) => {
  const dir = path.join(work, `${what}-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** A root-only file outside every output directory: what an attacker points symlinks at. */
function secretFile(): { file: string; content: Buffer } {
  const file = path.join(newDir('secret'), 'shadow');
  const content = Buffer.from('root:$6$not-for-anyone:19000:0:99999:7:::\n');
  writeFileSync(file, content, { mode: 0o600 });
  return { file, content };
}

function expectUntouched(secret: { file: string; content: Buffer }): void {
  expect(readFileSync(secret.file)).toEqual(secret.content);
  expect(lstatSync(secret.file).mode & 0o777).toBe(0o600);
}

/** The PIDs the next runs are likely to get, as an attacker guesses them. */
function nextPids(count: number): number[] {
  const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  return Array.from({ length: count }, (_, i) => last + 1 + i);
}

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze']);

describe.skipIf(gate.skip)('output files against a writable directory and a hung disk', () => {
  const disks: TestDisk[] = [];
  let names: string[] = [];
  /** A healthy directory to probe. */
  let probed = '';
  beforeAll(async () => {
    for (let i = 0; i < 4; i += 1) disks.push(await makeTestDisk());
    names = disks.map((disk) => path.basename(disk.device));
    probed = newDir('probed');
  }, 120_000);
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('--textfile follows no symlink planted at its temporary names or at slowdisk.prom', async () => {
    const secret = secretFile();
    const dir = newDir('textfile');
    chmodSync(dir, 0o1777);
    // Every name an older slowdisk would have used for its temporary file, for the next PIDs.
    for (const pid of nextPids(400)) symlinkSync(secret.file, path.join(dir, `.slowdisk.prom.${pid}.tmp`));
    symlinkSync(secret.file, path.join(dir, 'slowdisk.prom'));
    const result = await runCli(['check', '--kv', probed, '--duration', '1s', '--allow-short', '--textfile', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectUntouched(secret);
    // rename(2) replaced the symlink itself with the metrics.
    expect(lstatSync(path.join(dir, 'slowdisk.prom')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'slowdisk.prom'), 'utf8')).toContain('slowdisk_store_score');
    // The planted links are left as they were; no temporary file of this run is left.
    const left = readdirSync(dir).filter((entry) => entry !== 'slowdisk.prom');
    expect(left).toHaveLength(400);
    expect(left.every((entry) => lstatSync(path.join(dir, entry)).isSymbolicLink())).toBe(true);
  }, 30_000);

  it('--record refuses a symlink or a FIFO at its name, and follows neither', async () => {
    const secret = secretFile();
    const dir = newDir('record');
    const link = path.join(dir, 'run.trace');
    symlinkSync(secret.file, link);
    expectUnknown(await runCli(['check', '--kv', probed, '--duration', '1s', '--allow-short', '--record', link]), new RegExp(`refusing to overwrite ${link}: it already exists`));
    expectUntouched(secret);
    const fifo = path.join(dir, 'fifo.trace');
    execFileSync('mkfifo', [fifo]);
    const result = await runCli(['check', '--kv', probed, '--duration', '1s', '--allow-short', '--record', fifo]);
    expectUnknown(result, new RegExp(`refusing to overwrite ${fifo}: it already exists`));
    expect(result.elapsedMs).toBeLessThan(10_000);
  }, 30_000);

  for (const name of ['drives.state', 'drives.lock']) {
    it(`--state-dir refuses a symlink at ${name}, and follows it not`, async () => {
      const secret = secretFile();
      const stateDir = newDir('state');
      symlinkSync(secret.file, path.join(stateDir, name));
      const result = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
      expectUnknown(result, new RegExp(`${path.join(stateDir, name)} is a symbolic link, not a regular file: refused \\(move it away\\)`));
      expectUntouched(secret);
      expect(lstatSync(path.join(stateDir, name)).isSymbolicLink()).toBe(true);
    }, 30_000);

    it(`--state-dir with a FIFO at ${name}: no hang, one line, exit 3`, async () => {
      const stateDir = newDir('state');
      execFileSync('mkfifo', [path.join(stateDir, name)]);
      const result = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
      expectUnknown(result, new RegExp(`${path.join(stateDir, name)} is a FIFO, not a regular file: refused \\(move it away\\)`));
      expect(result.elapsedMs).toBeLessThan(10_000);
      expect(lstatSync(path.join(stateDir, name)).isFIFO()).toBe(true);
    }, 30_000);
  }

  it('takes over a lock naming a live process that is not slowdisk', async () => {
    const stateDir = newDir('state');
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(stateDir, 'drives.lock'), `${sleeper.pid}\n`);
      const result = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      // The history saved, the lock released.
      expect(readdirSync(stateDir)).toEqual(['drives.state']);
    } finally {
      sleeper.kill();
    }
  }, 30_000);

  it("respects a live slowdisk's lock, and takes it over once that run is killed", async () => {
    const stateDir = newDir('state');
    const watch = startCli(['watch', '--devices', names.join(','), '--state-dir', stateDir]);
    await waitFor(() => watch.stdout().includes('drives: '), 10_000, "watch's first judgement");
    const lock = readFileSync(path.join(stateDir, 'drives.lock'), 'utf8');
    expect(lock).toMatch(new RegExp(`^slowdisk-lock ${watch.child.pid} \\d+\\n$`));
    expectUnknown(await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']), new RegExp(`in use by process ${watch.child.pid}`));
    watch.child.kill('SIGKILL');
    await watch.done;
    // Killed: its lock is left behind, naming a process that is gone.
    expect(readFileSync(path.join(stateDir, 'drives.lock'), 'utf8')).toBe(lock);
    const after = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  }, 30_000);

  // check --duration 3s ends within the duration, the output deadline (3 s) and the start of
  // node and the prober: 9 s.
  const BOUND_MS = 9_000;

  it('check with --textfile on a frozen filesystem returns on time and says the textfile was not written', async () => {
    const disk = disks[0]!;
    const dir = path.join(disk.dir, 'textfile');
    mkdirSync(dir, { recursive: true });
    await disk.hang();
    try {
      const result = await runCli(['check', '--kv', probed, '--duration', '3s', '--allow-short', '--textfile', dir]);
      expect(result.elapsedMs).toBeLessThan(BOUND_MS);
      expect(result.code).toBe(0);
      const file = path.join(dir, 'slowdisk.prom');
      expect(result.stderr).toBe(`slowdisk: cannot write the textfile ${file}: not written within 3 s, its disk may hang; the run goes on\nslowdisk: not written: the textfile ${file}\n`);
    } finally {
      await disk.thaw();
    }
  }, 30_000);

  it('check with --record on a frozen filesystem returns on time and says the trace was not written', async () => {
    const disk = disks[0]!;
    const file = path.join(disk.dir, `frozen-${++dirs}.trace`);
    await disk.hang();
    try {
      const result = await runCli(['check', '--kv', probed, '--duration', '3s', '--allow-short', '--record', file]);
      expect(result.elapsedMs).toBeLessThan(BOUND_MS);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`slowdisk: cannot record to ${file}: not created within 3 s, its disk may hang; the run goes on\nslowdisk: not written: the trace ${file}\n`);
    } finally {
      await disk.thaw();
    }
  }, 30_000);

  it('check with --state-dir on a frozen filesystem returns on time, says the history was not saved, and exits 3', async () => {
    const disk = disks[0]!;
    const stateDir = path.join(disk.dir, `state-${++dirs}`);
    await disk.hang();
    try {
      const result = await runCli(['check', '--devices', names.join(','), '--state-dir', stateDir, '--duration', '3s', '--allow-short']);
      expect(result.elapsedMs).toBeLessThan(BOUND_MS);
      expect(result.code).toBe(3);
      const file = path.join(stateDir, 'drives.state');
      expect(result.stderr).toBe(`slowdisk: the drive history ${file} was not read within 3 s: its disk may hang; this run's history is not saved\nslowdisk: not written: the drive history ${file}\n`);
      expect(result.stdout).toMatch(/^drives: /m);
    } finally {
      await disk.thaw();
    }
  }, 30_000);

  it('still saves the history and writes the outputs when the disk is healthy', async () => {
    const disk = disks[0]!;
    const stateDir = path.join(disk.dir, `state-${++dirs}`);
    const textfile = path.join(disk.dir, `textfile-${dirs}`);
    const trace = path.join(disk.dir, `healthy-${dirs}.trace`);
    mkdirSync(textfile);
    const result = await runCli(['check', '--kv', probed, '--devices', names.join(','), '--state-dir', stateDir, '--textfile', textfile, '--record', trace, '--duration', '1s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readdirSync(stateDir).sort()).toEqual(['drives.state', 'filesystems.state']);
    expect(readdirSync(textfile).sort()).toEqual(['slowdisk-drives.prom', 'slowdisk.prom']);
    expect(readFileSync(trace, 'utf8').split('\n').length).toBeGreaterThan(5);
  }, 30_000);
});
