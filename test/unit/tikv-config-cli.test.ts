// --tikv-config as an operator meets it: TiKV configuration files written the way TiKV
// documents them, on real directories, and the paths check reports probing (run in-process,
// the inspections played by the stub prober, the file read by the reader's own script in this
// process).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';

// The reader readFileElsewhere starts for the file (node -e SCRIPT PATH-HEX MAX-BYTES) runs its
// script as it is, here, on a stand-in for its process: a Node start for each run would be most of
// this file's time. That the read happens in a child, and gives up on a disk that does not
// answer, is test/e2e/tikv-config-slow-read.test.ts's.
vi.mock('node:child_process', async (importOriginal) => {
  type ChildProcessModule = typeof import('node:child_process');
  const original = (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal<ChildProcessModule>());
  const { EventEmitter } = await import('node:events');
  const { PassThrough } = await import('node:stream');
  const { createRequire } = await import('node:module');
  const readerInProcess = (script: string, args: readonly string[]) => {
    const child = Object.assign(new EventEmitter(), { stdout: new PassThrough(), stderr: new PassThrough(), kill: () => true, unref: () => {} });
    const stand = {
      argv: [process.execPath, ...args],
      exitCode: undefined as number | undefined,
      on: () => stand,
      stdout: { write: (data: Uint8Array | string) => child.stdout.write(data) },
      stderr: { write: (data: Uint8Array | string) => child.stderr.write(data) },
    };
    // As a child would: after spawn returns, once its caller listens.
    setImmediate(() => {
      new Function('process', 'require', script)(stand, createRequire(import.meta.url));
      let open = 2;
      const ended = () => {
        if ((open -= 1) === 0) child.emit('close', stand.exitCode ?? 0, null);
      };
      for (const stream of [child.stdout, child.stderr]) stream.on('end', ended).resume().end();
    });
    return child;
  };
  const spawn = ((command: string, args: readonly string[], options: object) =>
    command === process.execPath && args[0] === '-e' ? readerInProcess(args[1]!, args.slice(2)) : original.spawn(command, args, options)) as ChildProcessModule['spawn'];
  return { ...original, spawn, default: { ...(original as { default?: object }).default, spawn } };
});

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tikv-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let made = 0;
/** A fresh deploy directory with the given subdirectories, and a tikv.toml in it. */
function deploy(dirs: string[], toml: (root: string) => string): { root: string; config: string } {
  const root = path.join(work, `deploy-${++made}`);
  mkdirSync(root);
  for (const dir of dirs) mkdirSync(path.join(root, dir), { recursive: true });
  const config = path.join(root, 'tikv.toml');
  writeFileSync(config, toml(root));
  return { root, config };
}

/** check's summary, split into its disks: "raft /dir score ..." by name. */
function probedDirs(stdout: string): Record<string, string> {
  const parts = stdout.trimEnd().split(' | ').slice(1);
  return Object.fromEntries(parts.map((part) => part.split(' ').slice(0, 2)));
}

function expectOneErrorLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('check --tikv-config', () => {
  it('a minimal file: KV at storage.data-dir, Raft at its raft-engine directory', async () => {
    const { root, config } = deploy(['data/raft-engine'], (root) => `[storage]\ndata-dir = "${root}/data"\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/data/raft-engine`, kv: `${root}/data` });
  });

  it('Raft Engine off: raftstore.raftdb-path', async () => {
    const { root, config } = deploy(['data', 'wal/raftdb'], (root) =>
      `[storage]\ndata-dir = "${root}/data"\n\n[raft-engine]\nenable = false\n\n[raftstore]\nraftdb-path = "${root}/wal/raftdb"\n`,
    );
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/wal/raftdb`, kv: `${root}/data` });
  });

  it('--raft and --kv win over the file', async () => {
    const { root, config } = deploy(['data/raft-engine', 'other/raft', 'other/kv'], (root) => `[storage]\ndata-dir = "${root}/data"\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--raft', `${root}/other/raft`, '--kv', `${root}/other/kv`, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/other/raft`, kv: `${root}/other/kv` });
  });

  it('a file without storage.data-dir (TiUP passes tikv-server --data-dir): exit 3 naming the key; --kv gives the data dir', async () => {
    const { root, config } = deploy(['tidb-data/raft-engine'], () => '[raftstore]\ninspect-interval = "100ms"\n');
    const refused = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(refused.code).toBe(3);
    expectOneErrorLine(refused.stderr, new RegExp(`^slowdisk: ${config}: storage\\.data-dir is not set, .*--kv DIR$`));
    const result = await runInProcess(['check', '--tikv-config', config, '--kv', `${root}/tidb-data`, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/tidb-data/raft-engine`, kv: `${root}/tidb-data` });
  });

  it("a relative path: exit 3 naming the key, or resolved against --tikv-cwd (tikv-server's working directory)", async () => {
    const { root, config } = deploy(['data/raft-engine'], () => '[storage]\ndata-dir = "data"\n');
    const refused = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(refused.code).toBe(3);
    expectOneErrorLine(refused.stderr, new RegExp(`^slowdisk: ${config}: storage\\.data-dir is the relative path 'data', .*--tikv-cwd DIR$`));
    const result = await runInProcess(['check', '--tikv-config', config, '--tikv-cwd', root, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/data/raft-engine`, kv: `${root}/data` });
  });

  it('inspect-kvdb-interval = "0s": the KV disk is not probed, and stderr says why', async () => {
    const { root, config } = deploy(['data/raft-engine'], (root) => `[storage]\ndata-dir = "${root}/data"\n[raftstore]\ninspect-kvdb-interval = "0s"\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(probedDirs(result.stdout)).toEqual({ raft: `${root}/data/raft-engine` });
    expectOneErrorLine(result.stderr, /inspect-kvdb-interval is 0s, so TiKV does not inspect the KV disk/);
  });

  it.each([
    ['not TOML', '[storage]\ndata-dir = "/data"\n[raftstore\n', / line 3: not valid TOML: /],
    ['a wrong type', '[raft-engine]\nenable = "yes"\n', /: raft-engine\.enable must be true or false, got "yes"$/],
    ['a bad duration', '[raftstore]\ninspect-interval = "fast"\n', /: raftstore\.inspect-interval: 'fast' is not a TiKV duration/],
  ])('a broken file (%s): exit 3, one line naming the file and the key or line', async (_what, text, pattern) => {
    const { config } = deploy([], () => text);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expectOneErrorLine(result.stderr, new RegExp(`^slowdisk: ${config}`));
    expectOneErrorLine(result.stderr, pattern);
  });

  it('an inspect-interval beyond slowdisk\'s range: exit 3 naming the file, the key, the value and the range', async () => {
    const { config } = deploy(['db'], (root) => `[storage]\ndata-dir = "${root}/db"\n[raftstore]\ninspect-interval = "597h"\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expectOneErrorLine(result.stderr, new RegExp(`^slowdisk: ${config}: raftstore\\.inspect-interval is '597h': slowdisk takes 0 or a duration from 1ms to 1h$`));
  });

  it('a missing file: exit 3', async () => {
    const result = await runInProcess(['check', '--tikv-config', path.join(work, 'nowhere.toml'), '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expectOneErrorLine(result.stderr, /nowhere\.toml: cannot read the TiKV configuration: ENOENT/);
  });
});

describe('watch --tikv-config: the inspect interval', () => {
  // Five ticks a round: the first round line comes at 5 intervals.
  async function firstRoundLine(args: string[]): Promise<string> {
    const result = await runInProcess(['watch', ...args, '--round-ticks', '5'], { interruptWhen: (stdout) => / tick 5 /.test(stdout) });
    return result.stdout.split('\n')[0]!;
  }

  it('raftstore.inspect-interval = "200ms" sets the interval; --interval wins', async () => {
    const { config } = deploy(['data/raft-engine'], (root) => `[storage]\ndata-dir = "${root}/data"\n\n[raftstore]\ninspect-interval = "200ms"\n`);
    expect(await firstRoundLine(['--tikv-config', config])).toMatch(/^\S+ 1\.0s tick 5 /);
    expect(await firstRoundLine(['--tikv-config', config, '--interval', '100ms'])).toMatch(/^\S+ 0\.5s tick 5 /);
  });
});
