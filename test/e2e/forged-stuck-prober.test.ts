// A local user cannot forge a stuck prober. A run leaves a disk to an earlier run's prober
// stuck on its filesystem, found by the abstract socket it listens on when the registry
// cannot take its entry; any user can bind any abstract name, with any bytes in it. Here
// nobody binds names that forge a stuck prober on a healthy disk, naming a root process, its
// start time and a socket it really holds: root's check of that disk is OK, says nothing of a
// stuck prober, and runs no --on-evict.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const PYTHON = '/usr/bin/python3';
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-forged-stuck-'));

// Binds an abstract socket under each name given (as hex: a name may hold a newline) and
// listens there, says "bound", then waits to be killed.
const BIND = `
import socket, sys, time
held = []
for name in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(b'\\0' + bytes.fromhex(name))
    s.listen(1)
    held.append(s)
print('bound', flush=True)
time.sleep(600)
`;

const started: ChildProcess[] = [];

/** Starts `command` and resolves once it printed "bound". */
async function startBound(command: string[]): Promise<ChildProcess> {
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) if (line === 'bound') return child;
  throw new Error(`${command.join(' ')} ended before binding`);
}

/** Field 22 of /proc/PID/stat, as a prober's name carries it. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** The inode of a socket process `pid` holds. */
function socketInode(pid: number): string {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
    if (inode !== undefined) return inode;
  }
  throw new Error(`process ${pid} holds no socket`);
}

const hex = (text: string) => Buffer.from(text).toString('hex');

describe.skipIf(requireRootFacilities(['root', 'loop', 'python3']).skip)('a stuck prober forged by nobody', () => {
  let disk: TestDisk;
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it.each([
    ['a line of /proc/net/unix after a newline in a name, and the name that line names', true],
    ['the fields after a forged inode inside the name', false],
  ])('%s: root\'s check of a healthy disk is OK', async (_, newline) => {
    disk ??= await makeTestDisk();
    // A root process holding a socket: the watch of a service, say.
    const root = await startBound([PYTHON, '-c', BIND]);
    const rootPid = root.pid!;
    const stuckName = `slowdisk-stuck ${disk.majMin} ${Date.now() - 600_000} ${rootPid} ${startTime(rootPid)} 0123456789abcdef`;
    const inode = socketInode(rootPid);
    const names = newline
      ? // An abstract name holds at most 107 bytes: the forged line is as short as a lax reader takes.
        [`x\n0: ${inode} @${stuckName}`, stuckName]
      : [`x ${inode} @${stuckName}`];
    await startBound(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', PYTHON, '-c', BIND, ...names.map(hex)]);

    const evicted = path.join(work, `evicted-${newline}`);
    const result = await runCli(['check', '--path', `a=${disk.dir}`, '--duration', '2s', '--allow-short', '--on-evict', `touch ${evicted}`]);
    expect(result.stdout).not.toMatch(/stuck prober/);
    expect(result.stdout).toMatch(/^OK\b/m);
    expect(result.code).toBe(0);
    expect(existsSync(evicted)).toBe(false);
  }, 60_000);
});
