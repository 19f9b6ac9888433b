// A read-only bind of a read-write filesystem (what systemd's ProtectSystem=strict makes of a
// data directory left out of ReadWritePaths=) is not a disk that cannot be written: check
// refuses the path at start (UNKNOWN), never calls it down, and runs no --on-evict hook. The
// same filesystem really remounted read-only is still CRITICAL.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFaultDisk } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop']);

describe.skipIf(gate.skip)('a path on a read-only bind', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'slowdisk-ro-bind-'));
  const bind = path.join(work, 'bind');
  const marker = path.join(work, 'evicted');
  // A round of failed inspections reaches these thresholds, so an eviction would run the hook.
  const onEvict = ['--round-ticks', '5', '--slow-threshold', '2', '--evict-threshold', '2', '--on-evict', `touch ${marker}`];
  let disk: TestDisk;
  let bound = false;

  beforeAll(async () => {
    disk = await makeFaultDisk();
    mkdirSync(path.join(disk.dir, 'data'));
    mkdirSync(bind);
  });

  afterAll(async () => {
    if (bound) execFileSync('umount', [bind]);
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  function bindReadOnly(): void {
    execFileSync('mount', ['--bind', path.join(disk.dir, 'data'), bind]);
    bound = true;
    execFileSync('mount', ['-o', 'remount,ro,bind', bind]);
  }

  it('at start: UNKNOWN, one line naming the path and the bind, no CRITICAL, no hook', async () => {
    bindReadOnly();
    const result = await runCli(['check', '--kv', bind, '--format', 'nagios', ...onEvict]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      new RegExp(`^slowdisk: cannot probe kv=${bind}: ${bind} is on a read-only bind of ${bind} \\(the filesystem itself is read-write; EROFS: open ${bind}/\\S+\\): it cannot be probed from here.*ReadWritePaths= must name it\n$`),
    );
    expect(result.stdout).toMatch(/^SLOWDISK UNKNOWN - cannot probe kv=.*read-only bind[^\n]*\n$/);
    expect(result.stdout + result.stderr).not.toMatch(/CRITICAL|cannot be written/);
    expect(existsSync(marker)).toBe(false);
  });

  it('mid-run: WARNING, not judged (no CRITICAL, no hook), the bind named in the line', async () => {
    execFileSync('mount', ['-o', 'remount,rw,bind', bind]);
    const check = startCli(['check', '--kv', bind, '--duration', '4s', '--allow-short', ...onEvict]);
    await waitFor(() => probeFiles(bind).length === 1, 5000, 'the probe file');
    await sleep(500);
    execFileSync('mount', ['-o', 'remount,ro,bind', bind]);
    const result = await check.done;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^WARNING: store score 1\.00 .*not judged: kv \(on a read-only bind\).* \| kv \S+ score 1\.00 down \S+ is on a read-only bind of .*it cannot be probed from here, and its disk is not judged/);
    expect(result.stdout).not.toMatch(/CRITICAL|cannot be written/);
    expect(existsSync(marker)).toBe(false);
  });

  it('the filesystem remounted read-only for real mid-run: CRITICAL EROFS through the same bind, and the hook runs', async () => {
    execFileSync('mount', ['-o', 'remount,rw,bind', bind]);
    const check = startCli(['check', '--kv', bind, '--duration', '4s', '--allow-short', ...onEvict]);
    await waitFor(() => probeFiles(bind).length >= 1, 5000, 'the probe file');
    await sleep(500);
    await disk.readonly();
    const result = await check.done;
    await disk.readwrite();
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^CRITICAL: .*cannot be written: kv \(EROFS\)/);
    expect(existsSync(marker)).toBe(true);
  });

  it('a read-only bind of a filesystem itself read-only at start: CRITICAL EROFS', async () => {
    execFileSync('mount', ['-o', 'remount,ro,bind', bind]);
    await disk.readonly();
    const result = await runCli(['check', '--kv', bind, '--format', 'nagios']);
    await disk.readwrite();
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^SLOWDISK CRITICAL - cannot be written: kv \(EROFS\)/);
    expect(result.stdout + result.stderr).not.toMatch(/read-only bind/);
  });
});
