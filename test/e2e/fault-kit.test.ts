import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MountTable, deviceOf } from '../../src/mounts/mount-table.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const execFileAsync = promisify(execFile);

/** Writes count 4 KiB blocks over the start of file with O_DIRECT|O_DSYNC, as the prober does. */
function writeDirect(file: string, count: number) {
  return execFileAsync(
    'dd',
    ['if=/dev/zero', `of=${file}`, 'bs=4k', `count=${count}`, 'oflag=direct,dsync', 'conv=notrunc', 'status=none'],
    { timeout: 30_000 },
  );
}

async function msToWriteDirect(file: string, count: number): Promise<number> {
  const start = performance.now();
  await writeDirect(file, count);
  return performance.now() - start;
}

function readDirect(file: string) {
  return execFileAsync('dd', [`if=${file}`, 'iflag=direct', 'bs=4k', 'status=none'], { timeout: 10_000 });
}

/** Runs a kit script twice, as a user's fault script may: the second run must succeed as a no-op. */
async function twice(run: () => Promise<string>): Promise<string> {
  const first = await run();
  expect(await run()).toMatch(/nothing to do$/);
  return first;
}

function throttleRules(kind: 'read' | 'write'): string {
  return readFileSync(`/sys/fs/cgroup/blkio/blkio.throttle.${kind}_iops_device`, 'utf8');
}

const gate = requireRootFacilities(['root', 'loop', 'blkio', 'fsfreeze', 'fuse']);

describe.skipIf(gate.skip)('fault kit on an ext4 disk with its backing file on tmpfs', () => {
  let disk: TestDisk;
  let kept: string;
  let probe: string;

  beforeAll(async () => {
    disk = await makeTestDisk({ backingTmpfs: true });
    kept = join(disk.dir, 'kept');
    probe = join(disk.dir, 'probe');
    await writeFile(kept, 'hello\n');
    // On disk before any fault, so that reading it back tests the disk.
    await execFileAsync('sync', [kept]);
    // Overwriting blocks already allocated keeps ext4's block allocation, and
    // the journal writes it brings, out of the timings.
    await writeDirect(probe, 10);
  }, 30_000);
  afterAll(removeAllTestDisks, 30_000);

  it('mounts a loop device on the directory, once however often it is asked', async () => {
    const makeDiskAgain = await execFileAsync(fileURLToPath(new URL('../../scripts/fault/make-disk', import.meta.url)), [
      disk.dir,
      '--backing-tmpfs',
    ]);
    expect(makeDiskAgain.stdout).toMatch(/nothing to do\n$/);
    const mount = MountTable.read().topmostAt(disk.dir);
    expect(mount?.fsType).toBe('ext4');
    expect(mount?.source).toMatch(/^\/dev\/loop\d+$/);
    expect(disk.device).toBe(mount?.source);
    expect(disk.majMin).toMatch(/^7:\d+$/);
  });

  it("throttle caps the writes of the disk's own device in the root blkio group and unthrottle lifts it", async () => {
    expect(await twice(() => disk.throttle({ writeIops: 5 }))).toMatch(/^capped /);
    expect(throttleRules('write')).toContain(`${disk.majMin} 5\n`);
    // 10 writes at 5 IOPS take 2 s; the first ones can pass in the throttle's
    // initial slice, hence 1.5.
    expect(await msToWriteDirect(probe, 10)).toBeGreaterThanOrEqual(1500);

    expect(await twice(() => disk.unthrottle())).toMatch(/^lifted /);
    expect(throttleRules('write')).not.toContain(`${disk.majMin} `);
    expect(await msToWriteDirect(probe, 10)).toBeLessThan(500);
  }, 30_000);

  it('slow-tail holds a share of the flushes of a disk made with --backing-delayed, unslow-tail lets them go; any other disk is refused', async () => {
    const delayed = await makeTestDisk({ backingDelayed: true });
    const file = join(delayed.dir, 'probe');
    await writeDirect(file, 10);
    // Every write with O_DSYNC ends in a flush: all of them held 50 ms, 10 writes take 0.5 s.
    expect(await twice(() => delayed.slowTail(100, 50))).toMatch(/^held 100 % of the flushes of /);
    expect(await msToWriteDirect(file, 10)).toBeGreaterThanOrEqual(450);
    expect(await twice(() => delayed.unslowTail())).toMatch(/^released the flushes of /);
    expect(await msToWriteDirect(file, 10)).toBeLessThan(400);
    await expect(disk.slowTail(3, 5)).rejects.toThrow(/slow-tail: .* was not made with make-disk --backing-delayed/);
    await delayed.remove();
  }, 30_000);

  it('slow caps the media a disk was made on, so that its own device serves slowly; unslow lifts it; a disk on no media is refused', async () => {
    const nested = await makeTestDisk({ media: true });
    const file = join(nested.dir, 'probe');
    // Allocated first: the media's journal writes stay out of the timings.
    await writeDirect(file, 10);
    const said = await twice(() => nested.slow({ writeIops: 5 }));
    const media = said.match(/^capped the media of \S+ \((\S+), (\d+:\d+)\) at write 5 IOPS$/);
    expect(media, said).not.toBeNull();
    expect(throttleRules('write')).toContain(`${media![2]} 5\n`);
    // Nothing on the disk's own device: its requests wait below it.
    expect(throttleRules('write')).not.toContain(`${nested.majMin} `);
    expect(await msToWriteDirect(file, 10)).toBeGreaterThanOrEqual(1500);
    expect(await twice(() => nested.unslow())).toMatch(/^lifted the caps of the media of /);
    expect(await msToWriteDirect(file, 10)).toBeLessThan(500);
    await expect(disk.slow({ writeIops: 5 })).rejects.toThrow(/is not on a media disk: make the disk with make-disk .* --backing-dir MEDIA/);
    await nested.remove();
  }, 30_000);

  it('load keeps the disk busy with direct writers until unload, which ends them and deletes their files', async () => {
    const said = await twice(() => disk.load(2));
    const pids = said.match(/^loading \S+ with 2 direct writers \((\d+) (\d+)\)$/)!.slice(1).map(Number);
    const writes = () => Number(readFileSync('/proc/diskstats', 'utf8').split('\n').find((line) => line.split(/\s+/)[3] === basename(disk.device))!.split(/\s+/)[10]);
    const before = writes();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // 1 MiB writes: hundreds of sectors each.
    expect(writes() - before).toBeGreaterThan(2048);
    expect(await twice(() => disk.unload())).toMatch(/^unloaded /);
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(readdirSync(disk.dir).filter((name) => name.startsWith('.slowdisk-fault-load-'))).toEqual([]);
  });

  it('throttle sets a read limit too, and unthrottle lifts both', async () => {
    await disk.throttle({ readIops: 7, writeIops: 9 });
    expect(throttleRules('read')).toContain(`${disk.majMin} 7\n`);
    expect(throttleRules('write')).toContain(`${disk.majMin} 9\n`);
    await disk.unthrottle();
    expect(throttleRules('read')).not.toContain(`${disk.majMin} `);
    expect(throttleRules('write')).not.toContain(`${disk.majMin} `);
  });

  it('hang blocks writes until thaw', async () => {
    expect(await twice(() => disk.hang())).toMatch(/^froze /);
    const writer = spawn('dd', ['if=/dev/zero', `of=${probe}`, 'bs=4k', 'count=1', 'oflag=direct', 'conv=notrunc']);
    const exitCode = new Promise<number | null>((resolve) => writer.on('close', resolve));
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(writer.exitCode).toBeNull();
    } finally {
      expect(await twice(() => disk.thaw())).toMatch(/^thawed /);
    }
    expect(await exitCode).toBe(0);
  }, 15_000);

  it('readonly makes writes fail with EROFS and readwrite heals', async () => {
    expect(await twice(() => disk.readonly())).toMatch(/read-only$/);
    await expect(writeFile(join(disk.dir, 'refused'), 'x')).rejects.toMatchObject({ code: 'EROFS' });
    expect(await twice(() => disk.readwrite())).toMatch(/read-write$/);
    await writeFile(join(disk.dir, 'accepted'), 'x');
  });

  it('write-errors fails O_DIRECT writes while reads work, and heal-write-errors heals', async () => {
    expect(await twice(() => disk.writeErrors())).toMatch(/^filled the tmpfs/);
    const failed = writeDirect(join(disk.dir, 'new-after-write-errors'), 1);
    await expect(failed).rejects.toMatchObject({ stderr: expect.stringMatching(/No space left on device|Input\/output error/) });
    expect((await readDirect(kept)).stdout).toBe('hello\n');

    expect(await twice(() => disk.healWriteErrors())).toMatch(/^healed /);
    await writeDirect(join(disk.dir, 'new-after-heal'), 1);
  }, 30_000);

  it('fill makes writes fail with ENOSPC and free heals', async () => {
    expect(await twice(() => disk.fill())).toMatch(/^filled .* no space is left$/);
    const failed = writeDirect(join(disk.dir, 'new-after-fill'), 1);
    await expect(failed).rejects.toMatchObject({ stderr: expect.stringContaining('No space left on device') });

    expect(await twice(() => disk.free())).toMatch(/^freed /);
    await writeDirect(join(disk.dir, 'new-after-free'), 1);
  }, 30_000);

  it('vanish unmounts the directory and restore mounts it back with its files', async () => {
    expect(await twice(() => disk.vanish())).toMatch(/^vanished /);
    expect(MountTable.read().topmostAt(disk.dir)).toBeUndefined();
    expect(existsSync(kept)).toBe(false);

    expect(await twice(() => disk.restore())).toMatch(/^restored /);
    const mount = MountTable.read().topmostAt(disk.dir);
    expect(mount && deviceOf(mount)).toBe(disk.majMin);
    expect(await readFile(kept, 'utf8')).toBe('hello\n');
  });

  it('remove-disk leaves no loop device, mount or throttle behind', async () => {
    const loop = basename(disk.device);
    const backingFile = readFileSync(`/sys/block/${loop}/loop/backing_file`, 'utf8').trim();
    await disk.throttle({ readIops: 50, writeIops: 50 });
    await disk.hang();

    expect(await disk.remove()).toMatch(/^removed /);
    expect(await disk.remove()).toMatch(/nothing to do$/);
    expect((await execFileAsync('losetup', ['-a'])).stdout).not.toContain(backingFile);
    const leftMounts = MountTable.read().entries.filter(
      (entry) => entry.mountPoint === disk.dir || entry.mountPoint === dirname(backingFile),
    );
    expect(leftMounts).toEqual([]);
    expect(throttleRules('read')).not.toContain(`${disk.majMin} `);
    expect(throttleRules('write')).not.toContain(`${disk.majMin} `);
    expect(existsSync(disk.dir)).toBe(false);
  }, 30_000);
});

describe.skipIf(requireRootFacilities(['root', 'loop', 'xfs']).skip)('fault kit on an xfs disk', () => {
  afterAll(removeAllTestDisks, 30_000);

  it('makes, fills, frees and removes it', async () => {
    const disk = await makeTestDisk({ fs: 'xfs' });
    expect(MountTable.read().topmostAt(disk.dir)?.fsType).toBe('xfs');
    await disk.fill();
    const failed = writeDirect(join(disk.dir, 'new-after-fill'), 1);
    await expect(failed).rejects.toMatchObject({ stderr: expect.stringContaining('No space left on device') });
    await disk.free();
    await writeDirect(join(disk.dir, 'new-after-free'), 1);
    await disk.remove();
    expect(MountTable.read().topmostAt(disk.dir)).toBeUndefined();
  }, 30_000);
});

describe.skipIf(requireRootFacilities(['root', 'loop', 'blkio', 'fsfreeze']).skip)('fault kit on a disk it did not make', () => {
  const kit = (script: string, ...args: string[]) => execFileAsync(fileURLToPath(new URL(`../../scripts/fault/${script}`, import.meta.url)), args);
  let base: string;
  /** A real mount point the kit did not make: a small tmpfs. */
  let data: string;
  /** The root filesystem under another name. */
  let rootBind: string;
  let disk: TestDisk;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'slowdisk-kit-refusal-'));
    data = join(base, 'data');
    rootBind = join(base, 'root');
    await mkdir(data);
    await mkdir(rootBind);
    await execFileAsync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'slowdisk-kit-refusal', data]);
    await execFileAsync('mount', ['--bind', '/', rootBind]);
    disk = await makeTestDisk();
  }, 30_000);
  afterAll(async () => {
    for (const dir of [data, rootBind]) await execFileAsync('umount', [dir]).catch(() => {});
    await rm(base, { recursive: true, force: true });
    await removeAllTestDisks();
  }, 30_000);

  it('refuses to throttle the root disk, and says why', async () => {
    // The root disk's rules alone: other test files throttle disks of their own meanwhile.
    const rootDevice = deviceOf(MountTable.read().topmostAt('/')!);
    const rootRules = () => throttleRules('write').split('\n').filter((rule) => rule.startsWith(`${rootDevice} `));
    const before = rootRules();
    for (const dir of ['/', rootBind]) {
      const refused = kit('throttle', dir, '--write-iops', '1');
      await expect(refused).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^throttle: refusing .*: no disk was made there by make-disk, so it may be a real disk; give --force-real-disk/),
      });
    }
    expect(rootRules()).toEqual(before);
  });

  it('refuses to freeze, remount or fill a real mount point or a bind mount of /', async () => {
    for (const script of ['hang', 'readonly', 'fill']) {
      await expect(kit(script, data)).rejects.toMatchObject({ stderr: expect.stringContaining(`${script}: refusing ${data}: no disk was made there`) });
      await expect(kit(script, rootBind)).rejects.toMatchObject({ stderr: expect.stringContaining('refusing to inject faults into the root filesystem') });
      // Not even when told: a frozen / could not run thaw.
      await expect(kit(script, rootBind, '--force-real-disk')).rejects.toMatchObject({ stderr: expect.stringContaining('root filesystem') });
    }
    expect(MountTable.read().topmostAt(data)?.options.split(',')).toContain('rw');
    expect(existsSync(join(data, '.slowdisk-fault-fill'))).toBe(false);
  });

  it('refuses a kit disk directory once something else is mounted over it', async () => {
    await execFileAsync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'slowdisk-kit-over', disk.dir]);
    try {
      await expect(kit('hang', disk.dir)).rejects.toMatchObject({ stderr: expect.stringMatching(/refusing .*: what is mounted there \(0:\d+\) is not the disk make-disk made/) });
      await expect(kit('throttle', disk.dir, '--write-iops', '1')).rejects.toMatchObject({ stderr: expect.stringContaining('is not the disk make-disk made') });
    } finally {
      await execFileAsync('umount', [disk.dir]);
    }
    expect(await disk.hang()).toMatch(/^froze /);
    expect(await disk.thaw()).toMatch(/^thawed /);
  });

  it('acts on a real disk when given --force-real-disk', async () => {
    expect((await kit('fill', data, '--force-real-disk')).stdout).toMatch(/^filled /);
    await expect(writeFile(join(data, 'more'), 'x'.repeat(8192))).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(kit('free', data)).rejects.toMatchObject({ stderr: expect.stringContaining('refusing') });
    expect((await kit('free', data, '--force-real-disk')).stdout).toMatch(/^freed /);
  });
});
