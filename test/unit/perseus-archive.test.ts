// The archive cache of the tests and benchmarks: unpacked once per version of the archive, and
// the unpacks of a version replaced or touched since are removed rather than left behind.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedUnpack } from '../../src/perseus/archive.js';

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

    // The same archive, touched: a new version, and the two unpacks of the old one go.
    utimesSync(archive, new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
    const newer = cachedUnpack(archive, ['labels.csv'], cache);
    expect(newer).not.toBe(labels);
    expect(readdirSync(cache)).toEqual([path.basename(newer)]);
  });
});
