// --mountpoint on a real loop disk: a data directory whose disk is not mounted is CRITICAL,
// naming what it is on, and nothing is probed on the filesystem below.
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop']);

describe.skipIf(gate.skip)('check --mountpoint', () => {
  afterEach(removeAllTestDisks);

  it('OK on its mount point or device; unmounted, CRITICAL with one Nagios line naming what is there, and no probe file below', async () => {
    const disk = await makeTestDisk();
    const mounted = await runCli(['check', '--kv', disk.dir, '--mountpoint', disk.dir, '--mountpoint', `kv=${disk.device}`, '--duration', '2s', '--allow-short']);
    expect(mounted.code).toBe(0);
    expect(mounted.stdout).toMatch(/^OK: /);

    await disk.vanish();
    const result = await runCli(['check', '--kv', disk.dir, '--mountpoint', `kv=${disk.dir}`, '--format', 'nagios']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(new RegExp(`^SLOWDISK CRITICAL - kv ${disk.dir} is on / \\(\\S+\\), not on the mount point ${disk.dir}\\n$`));
    const byDevice = await runCli(['check', '--kv', disk.dir, '--mountpoint', disk.device]);
    expect(byDevice.code).toBe(2);
    expect(byDevice.stdout).toMatch(new RegExp(`^CRITICAL: kv ${disk.dir} is on / \\(\\S+\\), not on the device ${disk.device}\\n$`));
    // Nothing was probed on the root filesystem underneath.
    expect(readdirSync(disk.dir)).toEqual([]);
    await disk.restore();
  });
});
