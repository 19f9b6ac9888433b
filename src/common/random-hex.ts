// Random hex for the names nobody may guess (temporary files, registry entries, sockets), read
// from the kernel's /dev/urandom rather than node:crypto, which would cost each process about
// 0.7 MB of memory for a few bytes now and then (node-crypto.ts). /dev/urandom never blocks
// once the kernel has been seeded at boot. Where it cannot be read (a container without /dev),
// node:crypto gives them after all. libuv opens every file close-on-exec.
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { nodeCrypto } from './node-crypto.js';

/** `bytes` random bytes, as twice as many hex digits. */
export function randomHex(bytes: number): string {
  return (fromUrandom(bytes) ?? nodeCrypto().randomBytes(bytes)).toString('hex');
}

/** null when /dev/urandom cannot be opened, or ends (it is not the kernel's). */
function fromUrandom(bytes: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync('/dev/urandom', constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(bytes);
    for (let got = 0; got < bytes; ) {
      const read = readSync(fd, buffer, got, bytes - got, null);
      if (read === 0) return null;
      got += read;
    }
    return buffer;
  } finally {
    closeSync(fd);
  }
}
