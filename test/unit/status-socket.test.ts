// The service's status socket as an attacker on the host meets it: a root-only directory, a
// socket bound safely over a stale one, clients that cannot stall or steer it, and a status
// that never hangs on a service that does not answer.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { askStatus } from '../../src/status/status-client.js';
import { StatusServer } from '../../src/status/status-server.js';
import { socketPath } from '../../src/status/status-socket.js';
import { statusSnapshot } from '../helpers/status-snapshot.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-status-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let made = 0;
const freshDir = () => path.join(work, `run-${++made}`);
const isRoot = process.geteuid?.() === 0;

const snapshot = (score = 1) => statusSnapshot('kv1', score);

describe('the status socket', () => {
  it('is made in a directory of its own, 0700, as a socket 0600; status reads the snapshot', async () => {
    const dir = freshDir();
    const server = await StatusServer.start('kv1', () => snapshot(4), dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(socketPath('kv1', dir)).mode & 0o777).toBe(0o600);
    const answer = await askStatus('kv1', dir);
    expect(answer.kind).toBe('answered');
    if (answer.kind === 'answered') expect(answer.snapshot.storeScore).toBe(4);
    // The only store served is found without its name.
    expect((await askStatus(undefined, dir)).kind).toBe('answered');
    await server.close();
    expect(await askStatus('kv1', dir)).toMatchObject({ kind: 'not-running', reason: expect.stringMatching(/^slowdisk is not running for the store 'kv1' /) });
  });

  it('refuses a directory open to others, or not its own, and status refuses to trust one', async () => {
    const open = freshDir();
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    await expect(StatusServer.start('kv1', () => snapshot(), open)).rejects.toThrow(/refusing the status directory: .* is open to others \(mode 777\)/);
    expect(await askStatus('kv1', open)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/open to others/) });
    if (!isRoot) return;
    const theirs = freshDir();
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 65534, 65534);
    await expect(StatusServer.start('kv1', () => snapshot(), theirs)).rejects.toThrow(/belongs to uid 65534/);
  });

  it("replaces a stale socket of a dead service, and refuses to start beside a live one of the same store", async () => {
    const dir = freshDir();
    const first = await StatusServer.start('kv1', () => snapshot(1), dir);
    await expect(StatusServer.start('kv1', () => snapshot(2), dir)).rejects.toThrow(/already answers for the store 'kv1'/);
    // A service killed with SIGKILL leaves its socket behind, on which nobody listens.
    const staleFile = socketPath('kv2', dir);
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(staleFile)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(statSync(staleFile).isSocket()).toBe(true);
    expect((await askStatus('kv2', dir)).kind).toBe('not-running');
    const second = await StatusServer.start('kv2', () => snapshot(8), dir);
    const answer = await askStatus('kv2', dir);
    expect(answer.kind === 'answered' && answer.snapshot.storeScore).toBe(8);
    // Several stores served: status needs a name.
    expect(await askStatus(undefined, dir)).toMatchObject({ kind: 'unknown', reason: 'several stores are served (kv1, kv2): name one with --store' });
    await Promise.all([first.close(), second.close()]);
  });

  it('is not stalled by clients that connect and never read, nor steered by what they send', async () => {
    const dir = freshDir();
    let asked = 0;
    const server = await StatusServer.start('kv1', () => (asked++, snapshot(1)), dir);
    const hostile: Socket[] = [];
    const connectedAt = performance.now();
    for (let i = 0; i < 40; i += 1) {
      const socket = connect(socketPath('kv1', dir));
      socket.on('error', () => {});
      socket.pause();
      socket.write('STOP\nscore=100\n'.repeat(1000));
      hostile.push(socket);
    }
    // The service drops each of them, none of which reads, at its deadline of a second (later
    // on a busy machine, whose timers are late); then it answers as before, the same answer.
    let answer = await askStatus('kv1', dir);
    while (answer.kind !== 'answered' && performance.now() - connectedAt < 5000) answer = await askStatus('kv1', dir);
    expect(answer.kind === 'answered' && answer.snapshot.storeScore).toBe(1);
    expect(asked).toBeGreaterThan(0);
    for (const socket of hostile) socket.destroy();
    await server.close();
  });

  it('a service that does not answer is "not answering" within the deadline, never a hang', async () => {
    const dir = freshDir();
    mkdirSync(dir, { mode: 0o700 });
    // A socket that accepts and says nothing: a stuck service.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath('kv1', dir), resolve));
    // The deadline on fake timers: at 499 ms the client still waits, at 500 ms it has its answer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let answer: Awaited<ReturnType<typeof askStatus>> | undefined;
      void askStatus('kv1', dir, 500).then((settled) => (answer = settled));
      while (vi.getTimerCount() === 0 && answer === undefined) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(499);
      expect(answer).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(answer).toEqual({ kind: 'not-answering', reason: "slowdisk is not answering for the store 'kv1' (nothing within 0.5s)" });
    } finally {
      vi.useRealTimers();
    }
    silent.close();
  });

  it("refuses a socket another user put there, and a garbled answer is UNKNOWN", async () => {
    const dir = freshDir();
    mkdirSync(dir, { mode: 0o700 });
    const liar = createServer((socket) => socket.end('{"slowdisk_status":1,"severity":"ok"}\n'));
    await new Promise<void>((resolve) => liar.listen(socketPath('kv1', dir), resolve));
    expect(await askStatus('kv1', dir)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/gave no answer slowdisk reads/) });
    if (isRoot) {
      chownSync(socketPath('kv1', dir), 65534, 65534);
      expect(await askStatus('kv1', dir)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/^refusing \S+kv1\.sock: not a socket of uid 0$/) });
    }
    liar.close();
  });
});
