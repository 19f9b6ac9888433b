// Why an addon file did not load, in words a user can act on: the file is missing, is no
// shared object, is built for another architecture (read from its ELF header, which the
// dynamic linker's message does not name), or needs what this system lacks (a glibc symbol
// version, a library), as the dynamic linker says.
import { closeSync, openSync, readSync } from 'node:fs';

/** ELF e_machine numbers, by the name Node gives the architecture (process.arch). */
const ELF_MACHINES: ReadonlyMap<number, string> = new Map([
  [3, 'ia32'],
  [21, 'ppc64'],
  [22, 's390x'],
  [40, 'arm'],
  [62, 'x64'],
  [183, 'arm64'],
  [243, 'riscv64'],
]);

/** The architecture an ELF file is built for (its e_machine), or null for a file that is no ELF. */
export function elfArchitecture(header: Buffer): string | null {
  if (header.length < 20 || header.readUInt32BE(0) !== 0x7f454c46) return null;
  const littleEndian = header[5] === 1;
  const machine = littleEndian ? header.readUInt16LE(18) : header.readUInt16BE(18);
  return ELF_MACHINES.get(machine) ?? `ELF machine ${machine}`;
}

function header(file: string): Buffer | NodeJS.ErrnoException {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(20);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch (error) {
    return error as NodeJS.ErrnoException;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** One line: why `file` did not load, given what loading it threw. */
export function whyNotLoaded(file: string, error: Error): string {
  const read = header(file);
  if (!Buffer.isBuffer(read)) return read.code === 'ENOENT' ? 'no such file (ENOENT)' : `cannot ${read.syscall ?? 'read'} it: ${read.code ?? read.message}`;
  const arch = elfArchitecture(read);
  if (arch === null) return 'not a shared object (no ELF header)';
  if (arch !== process.arch) return `wrong architecture: the file is built for ${arch}, and this machine is ${process.arch}`;
  // The dynamic linker's first line, without the file's own path in front of it.
  const first = String(error.message).split('\n')[0]!;
  return first.startsWith(`${file}: `) ? first.slice(file.length + 2) : first;
}
