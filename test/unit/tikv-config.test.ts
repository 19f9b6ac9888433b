// Reading TiKV's configuration file the way TiKV does: its duration strings, its defaults for
// unset paths, and what slowdisk refuses to guess.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { applyTikvConfig, parseTikvSettings, readTikvSettings, TikvConfigError, type TikvSettings } from '../../src/config/tikv-config.js';
import { parseTikvDuration } from '../../src/config/tikv-duration.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tikv-config-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let files = 0;
function configFile(text: string): string {
  const file = path.join(work, `tikv-${++files}.toml`);
  writeFileSync(file, text);
  return file;
}

const settings = (text: string): TikvSettings => parseFile(configFile(text));
const parseFile = (file: string): TikvSettings => parseTikvSettings(file, readFileSync(file, 'utf8'));

describe('TiKV durations', () => {
  it.each([
    ['100ms', 100],
    ['1s', 1000],
    ['1.5s', 1500],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['500us', 0.5],
    ['0s', 0],
    ['', 0],
  ])('%j is %d ms', (text, ms) => {
    expect(parseTikvDuration(text)).toBe(ms);
  });

  it.each(['100', 'fast', '1x', '1s1m', '1s1s', '-1s'])('%j is refused', (text) => {
    expect(() => parseTikvDuration(text)).toThrow(RangeError);
  });
});

describe('reading the file', () => {
  it('a minimal file: TiKV defaults for all it leaves unset', async () => {
    const file = configFile('[storage]\ndata-dir = "/data/tikv"\n');
    expect(await readTikvSettings(file)).toEqual({
      file,
      dataDir: '/data/tikv',
      raftEngineEnabled: true,
      raftEngineDir: undefined,
      raftdbPath: undefined,
      inspectIntervalMs: 100,
      inspectKvdbIntervalMs: undefined,
    });
  });

  it('dotted keys, an empty path left at its default, and the inspect intervals', () => {
    const read = settings(
      'storage.data-dir = "/data/tikv"\n[raft-engine]\nenable = false\ndir = ""\n[raftstore]\nraftdb-path = "/wal/raft"\ninspect-interval = "200ms"\ninspect-kvdb-interval = "0s"\n',
    );
    expect(read).toMatchObject({ raftEngineEnabled: false, raftEngineDir: undefined, raftdbPath: '/wal/raft', inspectIntervalMs: 200, inspectKvdbIntervalMs: 0 });
  });

  it.each([
    ['[storage]\ndata-dir = 42\n', /: storage\.data-dir must be a string, got 42$/],
    ['[raft-engine]\nenable = "no"\n', /: raft-engine\.enable must be true or false, got "no"$/],
    ['[raftstore]\ninspect-interval = 100\n', /: raftstore\.inspect-interval must be a string, got 100$/],
    ['[raftstore]\ninspect-interval = "100"\n', /: raftstore\.inspect-interval: '100' is not a TiKV duration/],
    ['storage = "/data"\n', /: storage must be a table \(\[storage\]\), got "\/data"$/],
    ['[storage]\ndata-dir = "/data"\n\n[raftstore\n', / line 4: not valid TOML: /],
  ])('a bad file names the file and the key or line: %j', (text, message) => {
    const file = configFile(text);
    expect(() => parseFile(file)).toThrow(TikvConfigError);
    expect(() => parseFile(file)).toThrow(new RegExp(`^${file}`));
    expect(() => parseFile(file)).toThrow(message);
  });

  it('a missing file: the errno name, the syscall and the path', async () => {
    const file = path.join(work, 'missing.toml');
    await expect(readTikvSettings(file)).rejects.toThrow(`${file}: cannot read the TiKV configuration: ENOENT: open ${file} (no such file or directory)`);
  });

  it('a FIFO, a directory or a huge file in its place is refused at once, not waited on', async () => {
    const fifo = path.join(work, 'fifo.toml');
    execFileSync('mkfifo', [fifo]);
    // The read's deadline on fake timers, never reached: the FIFO is refused by the read
    // itself, not given up on when the deadline comes (a read that waited would never end).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await expect(readTikvSettings(fifo)).rejects.toThrow(`${fifo}: cannot read the TiKV configuration: ENOTREG: not a regular file`);
    } finally {
      vi.useRealTimers();
    }
    await expect(readTikvSettings(work)).rejects.toThrow(`${work}: cannot read the TiKV configuration: ENOTREG: not a regular file`);
    const huge = path.join(work, 'huge.toml');
    writeFileSync(huge, Buffer.alloc(2 * 1024 * 1024, 0x20));
    await expect(readTikvSettings(huge)).rejects.toThrow(`${huge}: cannot read the TiKV configuration: EFBIG: larger than 1048576 bytes`);
  });
});

describe('the directories and interval TiKV inspects', () => {
  it('Raft Engine on (the default): raft-engine.dir, defaulting to <data-dir>/raft-engine', () => {
    expect(applyTikvConfig(settings('[storage]\ndata-dir = "/data/tikv"\n'), {})).toEqual({
      raft: '/data/tikv/raft-engine',
      kv: '/data/tikv',
      intervalMs: 100,
      notes: [],
    });
    const withDir = settings('[storage]\ndata-dir = "/data/tikv"\n[raft-engine]\ndir = "/wal/raft-engine"\n');
    expect(applyTikvConfig(withDir, {}).raft).toBe('/wal/raft-engine');
  });

  it('Raft Engine off: raftstore.raftdb-path, defaulting to <data-dir>/raft; raft-engine.dir is then ignored', () => {
    const off = '[storage]\ndata-dir = "/data/tikv"\n[raft-engine]\nenable = false\ndir = "/unused"\n';
    expect(applyTikvConfig(settings(off), {}).raft).toBe('/data/tikv/raft');
    expect(applyTikvConfig(settings(`${off}[raftstore]\nraftdb-path = "/wal/raftdb"\n`), {}).raft).toBe('/wal/raftdb');
  });

  it('flags win over the file', () => {
    const read = settings('[storage]\ndata-dir = "/data/tikv"\n[raftstore]\ninspect-interval = "200ms"\n');
    expect(applyTikvConfig(read, { raft: '/mnt/raft', kv: '/mnt/kv', intervalMs: 50 })).toEqual({
      raft: '/mnt/raft',
      kv: '/mnt/kv',
      intervalMs: 50,
      notes: [],
    });
    expect(applyTikvConfig(read, {}).intervalMs).toBe(200);
  });

  it('--kv stands for the data dir (tikv-server --data-dir), so the default Raft directory lies under it', () => {
    expect(applyTikvConfig(settings('[raftstore]\ninspect-interval = "100ms"\n'), { kv: '/tidb-data/tikv-20160' }).raft).toBe(
      '/tidb-data/tikv-20160/raft-engine',
    );
  });

  it('no data dir and no --kv: an error naming storage.data-dir', () => {
    const read = settings('[raftstore]\ninspect-interval = "100ms"\n');
    expect(() => applyTikvConfig(read, {})).toThrow(/: storage\.data-dir is not set, .*give that as --kv DIR$/);
    // With both directories given, the file is read for its interval only.
    expect(applyTikvConfig(read, { raft: '/r', kv: '/k' })).toMatchObject({ raft: '/r', kv: '/k' });
  });

  it('relative paths: an error naming the key, unless tikv-server\'s working directory is given', () => {
    const read = settings('[storage]\ndata-dir = "data"\n[raft-engine]\ndir = "wal/raft-engine"\n');
    expect(() => applyTikvConfig(read, {})).toThrow(/: raft-engine\.dir is the relative path 'wal\/raft-engine', .*--tikv-cwd DIR$/);
    expect(() => applyTikvConfig(read, { raft: '/r' })).toThrow(/: storage\.data-dir is the relative path 'data'/);
    expect(applyTikvConfig(read, { tikvCwd: '/deploy/tikv-20160' })).toMatchObject({
      raft: '/deploy/tikv-20160/wal/raft-engine',
      kv: '/deploy/tikv-20160/data',
    });
  });

  it('inspect-kvdb-interval = "0s": TiKV does not inspect the KV disk, nor does slowdisk, unless --kv is given', () => {
    const read = settings('[storage]\ndata-dir = "/data/tikv"\n[raftstore]\ninspect-kvdb-interval = "0s"\n');
    const fromConfig = applyTikvConfig(read, {});
    expect(fromConfig.kv).toBeUndefined();
    expect(fromConfig.notes).toEqual([expect.stringMatching(/raftstore\.inspect-kvdb-interval is 0s, .*--kv DIR probes it/)]);
    expect(applyTikvConfig(read, { kv: '/data/tikv' })).toMatchObject({ kv: '/data/tikv', notes: [] });
  });

  it('an inspect-kvdb-interval other than the inspect interval is noted: slowdisk has one interval', () => {
    const read = settings('[storage]\ndata-dir = "/data/tikv"\n[raftstore]\ninspect-kvdb-interval = "1s"\n');
    expect(applyTikvConfig(read, {}).notes).toEqual([
      expect.stringMatching(/raftstore\.inspect-kvdb-interval is 1s; slowdisk inspects every disk at one interval, 100ms$/),
    ]);
    expect(applyTikvConfig(read, { intervalMs: 1000 }).notes).toEqual([]);
  });

  it('inspect-interval = "0s" turns TiKV\'s inspections off: an error, unless --interval is given', () => {
    const read = settings('[storage]\ndata-dir = "/data/tikv"\n[raftstore]\ninspect-interval = "0s"\n');
    expect(() => applyTikvConfig(read, {})).toThrow(/raftstore\.inspect-interval is 0/);
    expect(applyTikvConfig(read, { intervalMs: 100 }).intervalMs).toBe(100);
  });
});
