// A run under a limit on processes and threads (systemd's TasksMax, a container's pids.max,
// ulimit -u): Node waits forever for a thread the kernel refused it, so a prober that cannot
// make its threads would be an orphan for good. It is killed, said in one line, exit 3.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { markProcesses } from '../helpers/marked-processes.js';
import { BIN, runCommand, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-task-limits-'));
chmodSync(work, 0o755);
const PIDS_ROOT = '/sys/fs/cgroup/pids';

// ulimit -u counts every process and thread of the user: a user no other run on the machine is,
// so that no other test's runs count, nor this one's count against them.
const LONE_UID = 2_000_000 + process.pid;

describe.skipIf(requireRootFacilities(['root']).skip)('too few processes and threads allowed', () => {
  const cgroup = path.join(PIDS_ROOT, `slowdisk-test-${process.pid}`);
  afterAll(async () => {
    if (existsSync(cgroup)) {
      await waitFor(() => readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').trim() === '', 10_000, 'the cgroup to empty');
      rmdirSync(cgroup);
    }
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('a cgroup with pids.max 16: one line, exit 3, no prober left', async () => {
    const dir = path.join(work, 'cgroup');
    mkdirSync(dir);
    mkdirSync(cgroup);
    writeFileSync(path.join(cgroup, 'pids.max'), '16');
    const mark = markProcesses();
    const result = await runCommand(['sh', '-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, 'sh', process.execPath, BIN, 'check', '--path', `a=${dir}`, '--duration', '2s', '--allow-short'], mark.env);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^slowdisk: the prober \\(pid \\d+\\) could not make its threads: the cgroup ${cgroup} allows 16 processes and threads \\(pids\\.max, \\d+ in use\\), and one more was refused\\n$`),
    );
    expect(result.code).toBe(3);
    await waitFor(() => readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').trim() === '', 5000, 'nothing left in the cgroup');
    expect(mark.pids()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('ulimit -u 16 for an unprivileged user: one line, exit 3, no prober left', async () => {
    const dir = path.join(work, 'nproc');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const mark = markProcesses();
    const result = await runCommand(['prlimit', '--nproc=16', 'setpriv', `--reuid=${LONE_UID}`, '--regid=nogroup', '--clear-groups', process.execPath, BIN, 'check', '--path', `a=${dir}`, '--duration', '2s', '--allow-short'], mark.env);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: the prober \\(pid \\d+\\) could not make its threads: ulimit -u allows user ${LONE_UID} 16 processes and threads, and 1[6-9] are in use\\n$`));
    expect(result.code).toBe(3);
    await waitFor(() => mark.pids().length === 0, 5000, 'no process of the run left');
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);
});
