// The pids limit of the cgroup this process runs in (systemd's TasksMax, a container's
// pids.max): a fork or a thread the kernel refuses for it fails with EAGAIN, and where that
// happens inside Node's own start-up, the process waits for its thread forever instead of
// failing. The kernel counts those refusals in pids.events ("max N"), so that a refusal can be
// told for what it is rather than waited on. The same goes for ulimit -u (RLIMIT_NPROC), which
// counts a user's processes and threads, root's excepted, but keeps no such count: there, the
// user's threads are counted, and all of them in use is taken for a refusal.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The cgroup directories, ours and its ancestors, that hold a pids controller's files. */
function pidsCgroupDirs(): string[] {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return [];
  }
  const roots: [string, string][] = [];
  for (const line of lines) {
    const [, controllers, cgroup] = line.split(':', 3) as [string, string | undefined, string | undefined];
    if (cgroup === undefined) continue;
    // cgroup v1's pids hierarchy, or the v2 one (pure v2 at /sys/fs/cgroup, hybrid at its unified/).
    if (controllers?.split(',').includes('pids')) roots.push(['/sys/fs/cgroup/pids', cgroup]);
    else if (controllers === '') roots.push(['/sys/fs/cgroup', cgroup], ['/sys/fs/cgroup/unified', cgroup]);
  }
  const dirs: string[] = [];
  for (const [root, cgroup] of roots) {
    for (let dir = cgroup; ; dir = path.dirname(dir)) {
      dirs.push(path.join(root, dir));
      if (dir === '/' || dir === '.') break;
    }
  }
  return dirs;
}

function readNumber(file: string, key?: string): number | null {
  try {
    const text = readFileSync(file, 'utf8');
    const value = key === undefined ? text.trim() : new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1];
    return value === undefined || !/^\d+$/.test(value) ? null : Number(value);
  } catch {
    return null;
  }
}

/** The soft RLIMIT_NPROC of this process, where it binds (not root, not unlimited). */
function processLimit(): number | null {
  if (process.geteuid?.() === 0) return null;
  try {
    const soft = /^Max processes\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}

/** The threads of every process of the real user `uid`, as RLIMIT_NPROC counts them. */
function threadsOfUser(uid: number): number {
  let threads = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) threads += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return threads;
}

/** The refusals counted so far, to tell later whether a process or thread was refused since. */
export class TaskLimitWatch {
  private readonly before = new Map<string, number>();
  private readonly nproc = processLimit();

  constructor() {
    for (const dir of pidsCgroupDirs()) {
      const count = readNumber(path.join(dir, 'pids.events'), 'max');
      if (count !== null) this.before.set(dir, count);
    }
  }

  /** The limit that refused a process or thread since, said in words; null if none did (or none can be read). */
  refusedSince(): string | null {
    for (const [dir, count] of this.before) {
      const now = readNumber(path.join(dir, 'pids.events'), 'max');
      if (now === null || now <= count) continue;
      const max = readNumber(path.join(dir, 'pids.max'));
      const current = readNumber(path.join(dir, 'pids.current'));
      return `the cgroup ${dir} allows ${max ?? 'few'} processes and threads (pids.max${current === null ? '' : `, ${current} in use`}), and one more was refused`;
    }
    if (this.nproc !== null) {
      const uid = process.getuid!();
      const threads = threadsOfUser(uid);
      if (threads >= this.nproc) return `ulimit -u allows user ${uid} ${this.nproc} processes and threads, and ${threads} are in use`;
    }
    return null;
  }
}
