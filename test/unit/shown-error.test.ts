// How a failed inspection reads in the outputs: errno name, syscall and path kept.
import { describe, expect, it } from 'vitest';
import type { DiskPlacement } from '../../src/layout/disk-layout.js';
import type { SerializedProbeError } from '../../src/probe/prober-protocol.js';
import { shownError } from '../../src/live/shown-error.js';

const file = '/data/kv/db/.slowdisk-probe-4242-1a2b3c4d';
const placement: DiskPlacement = {
  name: 'kv',
  dir: '/data/kv/db',
  inspected: true,
  device: '7:1',
  mount: { mountPoint: '/data/kv', fsType: 'ext4', source: '/dev/loop1', device: '7:1' },
  memoryBacked: false,
};
const failure = (code: string, errno: number, message: string): SerializedProbeError => ({ code, errno, syscall: 'open', path: file, message });
const otherFs = failure('EOTHERFS', 0, `EOTHERFS: open ${file} is missing, and /data/kv/db is now on another filesystem (254:0) than the file was made on (7:1); no probe file made there`);
const missing = failure('ENOENT', 2, `ENOENT: open ${file} (No such file or directory)`);

describe('shownError', () => {
  it.each([otherFs, missing])('shows $code on a path whose filesystem vanished as the ENOENT of an unmounted disk', (error) => {
    expect(shownError(error, { ...placement, vanished: true })).toEqual({
      code: 'ENOENT',
      errno: 2,
      syscall: 'open',
      path: file,
      message: 'ENOENT: /data/kv/db: its filesystem (/dev/loop1 at /data/kv) is no longer mounted',
    });
  });

  it('leaves an ENOENT on a mounted filesystem as the kernel said it', () => {
    expect(shownError(missing, placement)).toEqual(missing);
  });

  it('says what a symlink at the probe file name means, keeping the errno, syscall and path', () => {
    const loop = failure('ELOOP', 40, `ELOOP: open ${file} (Too many levels of symbolic links)`);
    expect(shownError(loop, placement)).toEqual({
      ...loop,
      message: `refusing to follow a symbolic link at the probe file's name (ELOOP: open ${file})`,
    });
  });
});
