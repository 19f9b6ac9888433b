// A path is bytes: every path a user names (--textfile, --record, --state-dir, --tikv-config,
// the trace replay reads, the series analyze reads) is used as the bytes it is, in a real directory named with the byte
// 0xff, never in the one Node's UTF-8 decoding makes of it (U+FFFD); and the byte is shown
// as \xff, as in the probed path's lines, in the metrics' path label and in error lines.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, type CliResult } from '../helpers/run-cli.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';

// On tmpfs: the test is about the bytes of paths, and a disk that stalls under the suite's
// other I/O would make the check WARNING (hung) for reasons that are not its subject.
const work = mkdtempSync(path.join('/dev/shm', 'slowdisk-non-utf8-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The directory named with 0xff, and the one Node decodes its name to.
const raw = Buffer.concat([Buffer.from(`${work}/d`), Buffer.from([0xff])]);
const decoy = path.join(work, 'd\ufffd');
const inRaw = (name: string) => Buffer.concat([raw, Buffer.from(`/${name}`)]);

/**
 * Runs slowdisk with `args`, in which $D stands for the directory named with 0xff: the shell
 * makes its bytes (printf), as a shell user's glob or tab completion would pass them.
 */
function runWithRawDir(args: string[]): Promise<CliResult> {
  const started = performance.now();
  const quoted = args.map((arg) => `"${arg.replaceAll('$D', '$d')}"`).join(' ');
  const child = spawn('sh', ['-c', `d=$(printf '%s/d\\377' "$2"); exec "$0" "$1" ${quoted}`, process.execPath, BIN, work]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started })));
}

describe('paths with a byte that is not UTF-8', () => {
  mkdirSync(raw);
  mkdirSync(decoy);
  const data = path.join(work, 'data');
  mkdirSync(path.join(data, 'raft-engine'), { recursive: true });

  it('--textfile, --record and --state-dir write into the directory named with 0xff; the path label shows \\xff', async () => {
    const result = await runWithRawDir(['check', '--path', 'a=$D', '--textfile', '$D', '--record', '$D/trace.jsonl', '--state-dir', '$D/state', '--duration', '4s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`a ${work}/d\\xff score `);
    expect(readdirSync(decoy)).toEqual([]);
    expect(readdirSync(raw).sort()).toEqual(['slowdisk.prom', 'state', 'trace.jsonl']);
    expect(readdirSync(inRaw('state'))).toEqual(['filesystems.state']);
    // The exposition format escapes the backslash: the label's value is ".../d\xff".
    const prom = readFileSync(inRaw('slowdisk.prom'), 'utf8');
    expect(prom).toContain(`slowdisk_disk_up{disk="a",path="${work}/d\\\\xff",`);
    expect(prom).not.toContain('\ufffd');

    // The trace is replayed from there; its header names the path as the run held it.
    const replayed = await runWithRawDir(['replay', '$D/trace.jsonl']);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);

    // The next run reads its state there: the same filesystem, no change.
    const again = await runWithRawDir(['check', '--path', 'a=$D', '--state-dir', '$D/state', '--duration', '1s', '--allow-short']);
    expect(again.stdout).toMatch(/^OK: /);
    expect(again.code, again.stdout).toBe(0);
  }, 60_000);

  it.skipIf(requireRootFacilities(['root']).skip)('a mount point named with 0xff: its label shows \\xff, as the path does', async () => {
    const mountPoint = Buffer.concat([Buffer.from(`${work}/m`), Buffer.from([0xff])]);
    mkdirSync(mountPoint);
    const source = mkdtempSync(path.join(work, 'source-'));
    const textfile = mkdtempSync(path.join(work, 'textfile-'));
    execFileSync('sh', ['-c', 'mount --bind "$1" "$(printf "%s/m\\377" "$2")"', 'sh', source, work]);
    try {
      const result = await runWithRawDir(['check', '--path', `a=${work}/m$(printf '\\377')`, '--textfile', textfile, '--duration', '4s', '--allow-short']);
      expect(result.stderr).toBe('');
      expect(result.code, result.stdout).toBe(0);
      const prom = readFileSync(path.join(textfile, 'slowdisk.prom'), 'utf8');
      expect(prom).toMatch(new RegExp(`^slowdisk_disk_info\\{disk="a",path="${work}/m\\\\\\\\xff",[^}]*mountpoint="${work}/m\\\\\\\\xff",`, 'm'));
    } finally {
      execFileSync('sh', ['-c', 'umount "$(printf "%s/m\\377" "$1")"', 'sh', work]);
    }
  }, 30_000);

  it('analyze reads series from a directory and a host named with 0xff, and names the host with \\xff', async () => {
    const host = Buffer.concat([inRaw('series/host_'), Buffer.from([0xff])]);
    mkdirSync(host, { recursive: true });
    const rows = ['ts,disk_id,throughput,latency', ...['sda', 'sdb'].flatMap((disk) => [`0,${disk},100,1`, `60,${disk},100,1`])];
    writeFileSync(Buffer.concat([host, Buffer.from('/2026-01-01.csv')]), `${rows.join('\n')}\n`);
    const result = await runWithRawDir(['analyze', '$D/series', '--all']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('host_\\xff: 2 drives, 1 day');
    expect(result.stdout).toContain('4 rows, 0 bad rows, 0 bad files');

    const missing = await runWithRawDir(['analyze', '$D/none']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe(`slowdisk: ${work}/d\\xff/none: no such directory\n`);
  }, 30_000);

  it('--tikv-config is read from the directory named with 0xff, and an error names the path with \\xff', async () => {
    writeFileSync(inRaw('tikv.toml'), `[storage]\ndata-dir = "${data}"\n`);
    const result = await runWithRawDir(['check', '--tikv-config', '$D/tikv.toml', '--duration', '1s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^OK: /);
    expect(result.stdout).toContain(` kv ${data} `);
    expect(result.code).toBe(0);

    const missing = await runWithRawDir(['check', '--tikv-config', '$D/missing.toml', '--duration', '1s', '--allow-short']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`${work}/d\\xff/missing.toml`);
    expect(missing.stderr).not.toContain('\ufffd');
  }, 30_000);
});
