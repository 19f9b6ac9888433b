// The archive cache of the tests and benchmarks: unpacked once per version of the archive, the
// unpacks of a version replaced since removed rather than left behind, and kept in a directory
// of the user's own.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedUnpack } from '../../dev/perseus/archive.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-archive-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cachedUnpack', () => {
  it('unpacks each version of an archive once and removes the unpacks of older versions', () => {
    const source = path.join(work, 'source');
    mkdirSync(path.join(source, 'host_1'), { recursive: true });
    writeFileSync(path.join(source, 'host_1', '2024-01-01.csv'), 'ts,disk_id,throughput,latency\n');
    writeFileSync(path.join(source, 'labels.csv'), 'host,disk\n');
    const archive = path.join(work, 'series.tar.xz');
    execFileSync('tar', ['-cJf', archive, '-C', source, 'host_1', 'labels.csv']);
    const cache = path.join(work, 'cache');

    const labels = cachedUnpack(archive, ['labels.csv'], cache);
    expect(readFileSync(path.join(labels, 'labels.csv'), 'utf8')).toBe('host,disk\n');
    const whole = cachedUnpack(archive, [], cache);
    expect(whole).not.toBe(labels);
    // Once whole, the archive serves every request from that unpack.
    expect(cachedUnpack(archive, ['labels.csv'], cache)).toBe(whole);
    expect(readdirSync(cache).sort()).toEqual([path.basename(whole), path.basename(labels)].sort());

    // The same archive, touched (another checkout of it): the same version, nothing unpacked again or removed.
    utimesSync(archive, new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
    expect(cachedUnpack(archive, ['labels.csv'], cache)).toBe(whole);
    expect(readdirSync(cache)).toHaveLength(2);

    // Another version of the archive: the two unpacks of the old one go.
    writeFileSync(path.join(source, 'labels.csv'), 'host,disk\nhost_1,disk1\n');
    execFileSync('tar', ['-cJf', archive, '-C', source, 'host_1', 'labels.csv']);
    const newer = cachedUnpack(archive, ['labels.csv'], cache);
    expect(readFileSync(path.join(newer, 'labels.csv'), 'utf8')).toBe('host,disk\nhost_1,disk1\n');
    expect(readdirSync(cache)).toEqual([path.basename(newer)]);
  });

  it('refuses a cache directory that is a symlink or that others can write to, and unpacks nothing there', () => {
    const source = path.join(work, 'source-2');
    mkdirSync(source, { recursive: true });
    writeFileSync(path.join(source, 'labels.csv'), 'host,disk\n');
    const archive = path.join(work, 'series-2.tar.xz');
    execFileSync('tar', ['-cJf', archive, '-C', source, 'labels.csv']);

    const elsewhere = mkdtempSync(path.join(work, 'elsewhere-'));
    const linked = path.join(work, 'linked-cache');
    symlinkSync(elsewhere, linked);
    expect(() => cachedUnpack(archive, [], linked)).toThrow(/is not a directory/);
    expect(readdirSync(elsewhere)).toEqual([]);

    const open = path.join(work, 'open-cache');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => cachedUnpack(archive, [], open)).toThrow(/can be written by others \(mode 777\)/);
    expect(readdirSync(open)).toEqual([]);
  });
});
