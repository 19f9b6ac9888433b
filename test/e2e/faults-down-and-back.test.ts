// Real faults injected under a running watch: each shows the path as down with its errno
// name, counts as timeouts, never crashes the tool, and the path is back within about a
// tick of the fault being lifted.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cycleFault, makeFaultDisk, startWatch, stopWatch, type FaultCycle } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { removeAllTestDisks } from '../helpers/test-disk.js';

// "At once": the next tick's inspection brings the path back; the rest is room for a busy
// machine. A path that waited for the next round would fail this: the fault is lifted just
// after a round line, and a round is 2 s here.
const BACK_WITHIN_MS = 1000;
// Rounds of 20 ticks: the round lines that show a path down and up again come sooner than at
// TiKV's 30, and are still far enough apart to tell a path back at its tick from one back at
// the round.
const ROUNDS = ['--round-ticks', '20'];

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-faults-'));
// Open on the way down to the unprivileged run below.
chmodSync(work, 0o755);

function report(fault: string, cycle: FaultCycle): void {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(
    `${fault}: down ${ms(cycle.downAfterMs)} after the fault began; back ${ms(cycle.backAfterLiftedMs)} after it was lifted (${ms(cycle.backAfterLiftStartMs)} after lifting began)`,
  );
  expect(cycle.backAfterLiftedMs).toBeLessThan(BACK_WITHIN_MS);
}

const gate = requireRootFacilities(['root', 'loop']);

// Side by side: each test has a disk or a directory and a run of its own, and spends its time
// waiting for that run's lines. The disks go at the end, when no test uses one.
describe.skipIf(gate.skip).concurrent('a path goes down with the errno name and comes back at once', () => {
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it('read-only remount: EROFS, in watch and in check', async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...ROUNDS]);
    const cycle = await cycleFault(watch, 'kv', { inject: () => disk.readonly(), lift: () => disk.readwrite() }, /EROFS: open \S+\/\.slowdisk-probe-/);
    report('readonly', cycle);
    await stopWatch(watch, [disk.dir]);

    const trace = path.join(mkdtempSync(path.join(work, 'readonly-')), 'trace.jsonl');
    const check = startCli(['check', '--kv', disk.dir, '--duration', '2s', '--allow-short', '--round-ticks', '10', '--record', trace]);
    // Past the first inspection: mid-run, not at start.
    await waitFor(() => existsSync(trace) && /"disk":"kv"[^\n]*"ms":/.test(readFileSync(trace, 'utf8')), 5000, 'the first inspection in the trace');
    await disk.readonly();
    const result = await check.done;
    await disk.readwrite();
    // A disk that cannot be written is CRITICAL at the round's close, its errno in the line,
    // with its loop device (its backing file is on a tmpfs: no disk under it).
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      new RegExp(
        `^CRITICAL: store score \\S+ after \\d\\.\\ds \\(max reported \\d, slow at 80, evict at 100; cannot be written: kv \\(EROFS\\)(; rising: kv \\([^)]*\\))?\\) \\| kv \\S+ score [2-9]\\.\\d\\d down EROFS: open \\S+/\\.slowdisk-probe-\\d+-[0-9a-f]{8} \\(Read-only file system\\) .* stat (warming up|\\S+)( predict (warming up|\\S+))? on ${path.basename(disk.device)}\n$`,
      ),
    );
  });

  it('a read-only disk at start: CRITICAL, exit 2, with one status line on stdout in the Nagios format', async () => {
    const disk = await makeFaultDisk();
    await disk.readonly();
    const result = await runCli(['check', '--kv', disk.dir, '--format', 'nagios', '--round-ticks', '10']);
    await disk.readwrite();
    expect(result.code).toBe(2);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^SLOWDISK CRITICAL - cannot be written: kv \(EROFS\).* kv \S+ down EROFS: open \S+ \(Read-only file system\)/);
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it('a full filesystem: ENOSPC, from the fresh block written once a round', async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...ROUNDS]);
    const cycle = await cycleFault(watch, 'kv', { inject: () => disk.fill(), lift: () => disk.free() }, /ENOSPC: pwrite /);
    report('fill', cycle);
    await stopWatch(watch, [disk.dir]);
  });

  it('write errors: ENOSPC or EIO from the fresh block, as the kit fails only blocks the disk does not hold yet', async () => {
    // The probe's own 65 blocks were written when its file was made, so the kit's write
    // errors never reach them: rewriting them in place keeps passing. What shows the fault
    // is the fresh block written once a round (and every tick while down) to an unnamed
    // file: a new block, which the kit's trim left out of the backing file.
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...ROUNDS]);
    const cycle = await cycleFault(
      watch,
      'kv',
      { inject: () => disk.writeErrors(), lift: () => disk.healWriteErrors() },
      /(ENOSPC|EIO): (pwrite|fdatasync) /,
    );
    report('write-errors', cycle);
    await stopWatch(watch, [disk.dir]);
  });

  it('the filesystem unmounted from under the path: ENOENT, and nothing is probed on the filesystem below', async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...ROUNDS]);
    const cycle = await cycleFault(
      watch,
      'kv',
      {
        inject: () => disk.vanish(),
        lift: () => disk.restore(),
        // The directory is a plain one on the filesystem below now: no probe file lands there.
        whileDown: () => expect(readdirSync(disk.dir)).toEqual([]),
      },
      new RegExp(`ENOENT: ${disk.dir}: its filesystem \\(${disk.device} at ${disk.dir}\\) is no longer mounted`),
    );
    report('vanish', cycle);
    // The path kept its place: no layout change was announced, either way.
    expect(watch.lines.filter((line) => line.text.startsWith('event: layout'))).toEqual([]);
    await stopWatch(watch, [disk.dir]);
  });

  it('the probe directory deleted: ENOENT, until it is made again', async () => {
    const dir = path.join(mkdtempSync(path.join(work, 'deleted-')), 'kv');
    mkdirSync(dir);
    const watch = startWatch(['--kv', dir, ...ROUNDS]);
    const cycle = await cycleFault(
      watch,
      'kv',
      { inject: async () => rmSync(dir, { recursive: true, maxRetries: 10, retryDelay: 20 }), lift: async () => mkdirSync(dir) },
      /ENOENT: open \S+\/\.slowdisk-probe-/,
    );
    report('directory deleted', cycle);
    await stopWatch(watch, [dir]);
  });

  it('permission denied, run as an unprivileged user: EACCES, at start and when the directory is closed mid-run', async () => {
    const nobody = { user: 'nobody', group: 'nogroup' };
    // Root's, and not writable to others.
    const dir = mkdtempSync(path.join(work, 'nobody-'));
    chmodSync(dir, 0o755);

    // A directory it cannot write to is a disk that cannot be written: down, CRITICAL.
    const refused = await runCli(['check', '--kv', dir, '--duration', '1s', '--allow-short', '--format', 'nagios'], { as: nobody });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(new RegExp(`^SLOWDISK CRITICAL - cannot be written: kv \\(EACCES\\);.* kv \\S+ down EACCES: open ${dir}/\\.slowdisk-probe-\\d+-[0-9a-f]{8} \\(Permission denied\\) .*\\| [^\n]*\n$`));

    const giveToNobody = async () => chownSync(dir, Number(execFileSync('id', ['-u', 'nobody'])), Number(execFileSync('id', ['-g', 'nobody'])));
    await giveToNobody();
    const watch = startWatch(['--kv', dir, ...ROUNDS], { as: nobody });
    const cycle = await cycleFault(
      watch,
      'kv',
      {
        // Taken back by root and closed to others, as an operator tightening a data directory would.
        inject: async () => {
          chownSync(dir, 0, 0);
          chmodSync(dir, 0o700);
        },
        lift: giveToNobody,
      },
      /EACCES: fstatat \S+\/\.slowdisk-probe-/,
    );
    report('permission denied', cycle);
    await stopWatch(watch, [dir]);
  });

  it('a symlink put at the live probe file name in one step: left alone, probed under a fresh name, never down', async () => {
    const dir = mkdtempSync(path.join(work, 'symlink-'));
    const target = path.join(mkdtempSync(path.join(work, 'target-')), 'precious');
    writeFileSync(target, 'precious data\n');
    const targetBefore = statSync(target);
    const watch = startWatch(['--kv', dir, ...ROUNDS]);
    await watch.nextRound((round) => round.disks.get('kv')!.state.startsWith('up '), 10_000);
    // In one step, so that the probe never finds the name free and makes its file again.
    const [probeFile] = probeFiles(dir).map((name) => path.join(dir, name));
    symlinkSync(target, `${probeFile}.planted`);
    renameSync(`${probeFile}.planted`, probeFile!);
    const event = await watch.next(/^event: kv: ENAMETAKEN: open \S+ is taken by someone else: a symbolic link to \S+; left untouched; probing under a fresh name$/, 5000);
    expect(event.text).toContain(`open ${probeFile} `);
    const after = await watch.nextRound((round) => round.disks.get('kv')!.state.startsWith('up '), 10_000, event.index);
    await watch.nextRound(() => true, 10_000, after.index + 1);
    expect(watch.lines.some((line) => /^event: kv is down/.test(line.text))).toBe(false);
    expect(probeFiles(dir)).toHaveLength(2);
    expect(lstatSync(probeFile!).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('precious data\n');
    expect(statSync(target).mtimeMs).toBe(targetBefore.mtimeMs);
    rmSync(probeFile!);
    await stopWatch(watch, [dir]);
  });
});
