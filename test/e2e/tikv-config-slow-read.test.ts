// --tikv-config on a disk whose reads barely move: the file is read by a child process, so the
// command gives up after its deadline with one line and exit 3, instead of waiting on the disk.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TIKV_CONFIG_READ_DEADLINE_MS } from '../../src/config/tikv-config.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio']);
const READ_BPS = '/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device';

describe.skipIf(gate.skip)('--tikv-config on a disk that does not answer reads', () => {
  afterAll(removeAllTestDisks);

  it('gives up after the deadline: one line naming the file, exit 3, long before the read could end', async () => {
    const disk = await makeTestDisk();
    const config = path.join(disk.dir, 'tikv.toml');
    // Larger than a page of padding, so the read needs the disk once the cache is dropped.
    writeFileSync(config, `[storage]\ndata-dir = "${disk.dir}"\n${'# padding\n'.repeat(2000)}`);
    // A cold cache, then 512 bytes a second from the device: reading the file takes minutes.
    execFileSync('sync', ['-f', config]);
    writeFileSync('/proc/sys/vm/drop_caches', '1');
    writeFileSync(READ_BPS, `${disk.majMin} 512\n`);
    try {
      const started = performance.now();
      const result = await runCli(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
      const seconds = (performance.now() - started) / 1000;
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(`slowdisk: ${config}: cannot read the TiKV configuration: not read within ${TIKV_CONFIG_READ_DEADLINE_MS / 1000} s, its disk may hang\n`);
      expect(seconds).toBeLessThan(TIKV_CONFIG_READ_DEADLINE_MS / 1000 + 3);
    } finally {
      writeFileSync(READ_BPS, `${disk.majMin} 0\n`);
    }
  });
});
