// A --state-dir another user can write to, and what that user plants there: root's run reads
// nothing of it and says why, so that a forged memory cannot make a healthy check WARNING and
// a planted lock cannot pass for a live run's. A file too large to be slowdisk's own (a 1 GiB
// sparse one) is refused unread, wherever it is.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateStore, StateStoreError } from '../../src/drives/state-file.js';
import { processStartTime } from '../../src/common/process-start-time.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli } from '../helpers/run-cli.js';

const gate = requireRootFacilities(['root']);
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-state-untrusted-'));
// nobody must reach its own directory inside.
chmodSync(work, 0o711);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NOBODY = 65534;

/** A directory of nobody's, as a user makes one for root to be given as --state-dir. */
function nobodysDir(): string {
  const dir = mkdtempSync(path.join(work, 'state-'));
  chmodSync(dir, 0o755);
  chownSync(dir, NOBODY, NOBODY);
  return dir;
}

/** Writes `file` as nobody. */
function plantAsNobody(file: string, text: string): void {
  const result = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('fs').writeFileSync(process.argv[1], process.argv[2])`, file, text], { cwd: '/' });
  expect(result.status, result.stderr.toString()).toBe(0);
}

describe.skipIf(gate.skip)('a --state-dir that another user can write to', () => {
  it('a forged filesystems.state: root\'s check of a healthy disk stays OK, says why it compares nothing, and writes nothing there', async () => {
    const probed = mkdtempSync(path.join(work, 'probed-'));
    const stateDir = nobodysDir();
    const forged = JSON.stringify({
      format: 'slowdisk-filesystems',
      version: 1,
      paths: [{ dir: probed, device: '8:99', source: '/dev/forged', fsType: 'xfs', mountPoint: '/forged' }],
    });
    plantAsNobody(path.join(stateDir, 'filesystems.state'), forged);
    const result = await runCli(['check', '--raft', probed, '--state-dir', stateDir, '--duration', '1s', '--allow-short']);
    expect(result.stdout).toMatch(/^OK: /);
    expect(result.stdout).not.toContain('filesystem changed');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `slowdisk: ${stateDir}/filesystems.state cannot be read (refusing the state directory ${stateDir}: ${stateDir} belongs to uid ${NOBODY}, not to uid 0): the paths' filesystems are not compared with the last run's\n`,
    );
    expect(readFileSync(path.join(stateDir, 'filesystems.state'), 'utf8')).toBe(forged);
  });

  it('a lock naming a live process called slowdisk: the drive history is refused for the directory, not for that lock', async () => {
    const stateDir = nobodysDir();
    // nobody's own process, named as slowdisk is: a lock naming it passes for a live run's.
    const impostor = path.join(stateDir, 'slowdisk.js');
    plantAsNobody(impostor, 'setInterval(() => {}, 1000); console.log("up");');
    const child: ChildProcess = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, impostor], { cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      plantAsNobody(path.join(stateDir, 'drives.lock'), `slowdisk-lock ${child.pid} ${processStartTime(child.pid!)}\n`);
      const opening = FileStateStore.open(stateDir);
      await expect(opening).rejects.toThrow(StateStoreError);
      await expect(opening).rejects.toThrow(`refusing the state directory ${stateDir}: ${stateDir} belongs to uid ${NOBODY}, not to uid 0; give one that only this user can write to`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('root\'s own directory inside one of nobody\'s is refused: nobody could put another in its place', async () => {
    const stateDir = path.join(nobodysDir(), 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    await expect(FileStateStore.open(stateDir)).rejects.toThrow(
      `refusing the state directory ${stateDir}: ${path.dirname(stateDir)}, above ${stateDir}, belongs to uid ${NOBODY}, who can put another directory in its place`,
    );
  });

  it('a directory of root\'s that others can write to is refused too', async () => {
    const stateDir = mkdtempSync(path.join(work, 'state-'));
    chmodSync(stateDir, 0o777);
    await expect(FileStateStore.open(stateDir)).rejects.toThrow(`refusing the state directory ${stateDir}: ${stateDir} is writable by others (mode 777)`);
  });

  it('a drive history of 1 GiB (sparse) in root\'s own directory is refused unread', async () => {
    const stateDir = path.join(mkdtempSync(path.join(work, 'own-')), 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    const history = path.join(stateDir, 'drives.state');
    writeFileSync(history, '');
    truncateSync(history, 1024 ** 3);
    const before = process.memoryUsage().rss;
    await expect(FileStateStore.open(stateDir)).rejects.toThrow(`cannot read the drive history: ${history} is 1073741824 bytes, larger than any file of slowdisk's (16777216): refused (move it away)`);
    // Unbounded, reading it cost 573 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});
