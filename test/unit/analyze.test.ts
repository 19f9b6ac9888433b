// `slowdisk analyze` as a user meets it (the CLI, run in-process) on slices of the real
// Perseus cluster C, on directories with bad rows and files, and on nothing readable; and the
// reader of the day files and the labels on their own.
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DayBuilder } from '../../src/drives/aligned-series.js';
import { cachedUnpack } from '../../dev/perseus/archive.js';
import { newCounters, parseNumber, readDayFile } from '../../src/drives/series-csv.js';
import { findHosts, LayoutError } from '../../src/drives/series-files.js';
import { parseLabels } from '../../dev/perseus/labels.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { expectUnknown, jsonLines } from '../helpers/run-cli.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA = path.join(REPO, 'data', 'perseus');
const ARCHIVE = path.join(DATA, 'cluster_C-1min.tar.xz');
const SLICE = ['host_2', 'host_5'];

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-analyze-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let dirs = 0;
function newDir(): string {
  dirs += 1;
  const dir = path.join(work, `dir-${dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('reading day files and labels', () => {
  it('parses numbers from bytes: decimals, signs, exponents, quotes, spaces; NaN for the rest', () => {
    const at = (text: string) => parseNumber(Buffer.from(text), 0, Buffer.byteLength(text));
    expect(at('1637499600')).toBe(1637499600);
    expect(at('76.57')).toBeCloseTo(76.57, 12);
    expect(at('-0.5')).toBe(-0.5);
    expect(at(' 12 ')).toBe(12);
    expect(at('1.5e3')).toBe(1500);
    expect(at('"42"')).toBe(42);
    expect(at('.25')).toBe(0.25);
    for (const bad of ['', 'abc', '1.2.3', '12x', 'NaN', '-', '0x10']) expect(at(bad)).toBeNaN();
  });

  it('reads a day file with its columns in any order, extra columns, CRLF, a BOM and quotes; counts bad rows', async () => {
    const dir = newDir();
    const file = path.join(dir, 'day.csv');
    writeFileSync(
      file,
      '\uFEFFlatency,"disk_id",extra,throughput,ts\r\n' +
        '5.5,sda,x,100,60\r\n' +
        '6.5,"sdb",y,200,60\r\n' +
        '\r\n' +
        '7,sda,z,-1,120\r\n' + // negative throughput
        '7,sda\r\n' + // too few fields
        'n/a,sdb,z,200,120\r\n' + // no latency
        '8,sdb,z,300,120', // no final newline
    );
    const counters = newCounters();
    const builder = new DayBuilder('day', 60);
    expect(await readDayFile(file, builder, counters)).toBe(true);
    expect(counters).toMatchObject({ files: 1, rows: 3, badRows: 3, badFiles: 0 });
    expect(counters.firstBadRow).toBe(`${file}:5: the throughput is not a number of 0 or more`);
    const day = builder.build();
    expect(day.disks).toEqual(['sda', 'sdb']);
    expect([...day.latency[1]]).toEqual([6.5, 8]);
    expect(day.latency[0][1]).toBeNaN();
  });

  it('counts a file without a header, an empty one and one without good rows as bad files', async () => {
    const dir = newDir();
    const cases: Record<string, string> = {
      'no-header.csv': '1637499600,disk1,5,5\n',
      'empty.csv': '',
      'only-header.csv': 'ts,disk_id,throughput,latency\n',
      'all-bad.csv': 'ts,disk_id,throughput,latency\nx,y,z,w\n',
    };
    const counters = newCounters();
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(path.join(dir, name), text);
      expect(await readDayFile(path.join(dir, name), new DayBuilder(name, 60), counters)).toBe(false);
    }
    expect(await readDayFile(path.join(dir, 'missing.csv'), new DayBuilder('m', 60), counters)).toBe(false);
    expect(counters).toMatchObject({ files: 5, badFiles: 5, rows: 0, badRows: 1 });
    expect(counters.firstBadFile).toMatch(/no-header\.csv: no header naming ts, disk_id, throughput, latency/);
  });

  it('finds hosts as subdirectories of day files, or the directory itself as one host', async () => {
    const dir = newDir();
    mkdirSync(path.join(dir, 'host_10'));
    mkdirSync(path.join(dir, 'host_9'));
    mkdirSync(path.join(dir, 'notes'));
    writeFileSync(path.join(dir, 'host_10', '2021-11-21.csv'), '');
    writeFileSync(path.join(dir, 'host_9', '2021-11-22.csv'), '');
    writeFileSync(path.join(dir, 'host_9', '2021-11-21.csv'), '');
    writeFileSync(path.join(dir, 'notes', 'README.md'), '');
    const counters = newCounters();
    const hosts = await findHosts(dir, counters);
    expect(hosts.map((host) => [host.host, host.files])).toEqual([
      ['host_9', ['2021-11-21.csv', '2021-11-22.csv']],
      ['host_10', ['2021-11-21.csv']],
    ]);
    expect((await findHosts(path.join(dir, 'host_9'), counters)).map((host) => host.host)).toEqual(['host_9']);
    await expect(findHosts(path.join(dir, 'notes'), counters)).rejects.toThrow(LayoutError);
    await expect(findHosts(path.join(dir, 'nowhere'), counters)).rejects.toThrow(/no such directory/);
  });

  it('reads the labels file, trailing commas and all', () => {
    const labels = parseLabels('cluster,host_name,workload,disk_id,\ncluster_C,host_2,block,disk1,\n\ncluster_C,host_2,block,disk2,\ncluster_C,,block,,\n');
    expect([...labels.keys]).toEqual(['host_2/disk1', 'host_2/disk2']);
    expect(labels.drives[0]).toEqual({ cluster: 'cluster_C', host: 'host_2', disk: 'disk1', workload: 'block' });
    expect(labels.badLines).toBe(1);
    expect(() => parseLabels('a,b\n1,2\n')).toThrow(/host_name/);
  });
});

describe('slowdisk analyze on slices of Perseus cluster C (data/perseus)', () => {
  /** A directory holding just the slice's hosts (links into the unpacked archive, which may hold all of them). */
  let cluster: string;

  beforeAll(() => {
    const unpacked = path.join(
      cachedUnpack(
        ARCHIVE,
        SLICE.map((host) => `cluster_C/${host}`),
      ),
      'cluster_C',
    );
    cluster = newDir();
    for (const host of SLICE) symlinkSync(path.join(unpacked, host), path.join(cluster, host));
  });

  /**
   * A host's first week of day files: the verdict's window (DEFAULT_PEER_PARAMS.windowDays),
   * a verdict on every drive (host_2's slow drives found in it) from half the slice's rows.
   */
  const firstWeek = (host: string) => readdirSync(path.join(cluster, host)).sort().slice(0, 7);

  /** A copy of the slice's hosts, their first week, in a directory of the test's own, to spoil. */
  function copyOfSlice(): string {
    const dir = newDir();
    for (const host of SLICE) {
      mkdirSync(path.join(dir, host));
      for (const file of firstWeek(host)) copyFileSync(path.join(cluster, host, file), path.join(dir, host, file));
    }
    return dir;
  }

  it('prints the slow drives of each host with their evidence, a summary line, and exits WARNING', async () => {
    const result = await runInProcess(['analyze', cluster]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('host_2: 12 drives, 15 days (2021-11-21 to 2021-12-05): 2 slow now');
    expect(lines[1]).toMatch(
      /^ {2}disk1 +SLOW now +latency 1\.\d\dx its peers' at (0|1)\.\d\dx their load; slow on 7 of 7 days 2021-11-29\.\.2021-12-05, \d+% of windows; z \d+\.\d; confidence 1\.00; slow since 2021-11-21 \(on 15 of 15 days, 1\.\d\dx its peers\), judged slow as of 2021-11-24 \(day 4 of the data\)$/,
    );
    expect(lines[2]).toMatch(/^ {2}disk2 +SLOW now/);
    expect(lines.at(-1)).toBe('2 hosts, 24 drives, 2 drives slow now on 1 host, 0 recovered; 65160 rows, 0 bad rows, 0 bad files');
    expect(lines).toHaveLength(4); // host_5 has nothing to report
    expect(result.stdout).not.toMatch(/\u001b/); // no spinner off a terminal
  });

  it('--json: one line per drive with its verdict and evidence, then a summary line', async () => {
    const result = await runInProcess(['analyze', cluster, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(25);
    const drives = lines.slice(0, 24);
    for (const line of drives) {
      expect(line.type).toBe('drive');
      expect(['slow', 'ok']).toContain(line.verdict);
      expect(typeof line.ratio).toBe('number');
      expect(line.days).toBe(7);
    }
    expect(drives.filter((line) => line.verdict === 'slow').map((line) => `${line.host}/${line.disk}`)).toEqual(['host_2/disk1', 'host_2/disk2']);
    expect(drives.slice(0, 3).map((line) => line.disk)).toEqual(['disk1', 'disk2', 'disk3']);
    expect(drives[0]).toMatchObject({
      host: 'host_2',
      disk: 'disk1',
      class: null,
      verdict: 'slow',
      not_judged: null,
      slow_days: 7,
      episodes: [{ from: '2021-11-21', to: '2021-12-05', days: 15, slow_days: 15, detected: '2021-11-24', days_to_detect: 4, ongoing: true }],
    });
    expect(drives[0].ratio as number).toBeGreaterThan(1.4);
    expect(drives[12]).toMatchObject({ host: 'host_5', disk: 'disk1', verdict: 'ok', episodes: [] });
    expect(lines[24]).toEqual({
      type: 'summary',
      dir: cluster,
      hosts: 2,
      drives: 24,
      slow_drives: 2,
      recovered_drives: 0,
      unjudged_drives: 0,
      slow_hosts: 1,
      files: 30,
      rows: 65160,
      bad_rows: 0,
      bad_files: 0,
      first_bad_row: null,
      first_bad_file: null,
    });
  });

  it('takes one host directory too, and exits OK when no drive is slow; --all lists every drive', async () => {
    const host = path.join(newDir(), 'host_5');
    mkdirSync(host);
    for (const file of firstWeek('host_5')) symlinkSync(path.join(cluster, 'host_5', file), path.join(host, file));
    const result = await runInProcess(['analyze', host]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('1 host, 12 drives, 0 drives slow now on 0 hosts, 0 recovered; 15204 rows, 0 bad rows, 0 bad files\n');
    const all = await runInProcess(['analyze', host, '--all']);
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('host_5: 12 drives, 7 days (2021-11-21 to 2021-11-27): 0 slow now');
    expect(lines.filter((line) => / {2}ok +latency/.test(line))).toHaveLength(12);
  });

  it('counts bad rows and bad files, reports them, and goes on', async () => {
    const dir = copyOfSlice();
    appendFileSync(path.join(dir, 'host_2', '2021-11-21.csv'), 'garbage\n1637499600,disk1,abc,5\n1637499600,,5,5\n');
    writeFileSync(path.join(dir, 'host_5', '2021-11-20.csv'), 'this is not a day file\n');
    writeFileSync(path.join(dir, 'host_5', '2021-11-19.csv'), '');
    writeFileSync(path.join(dir, 'host_5', 'notes.txt'), 'ignored: not a .csv');
    mkdirSync(path.join(dir, 'host_99'));
    writeFileSync(path.join(dir, 'host_99', '2021-11-21.csv'), 'ts,disk_id,throughput,latency\n');

    const text = await runInProcess(['analyze', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('2 hosts, 24 drives, 2 drives slow now on 1 host, 0 recovered; 30408 rows, 3 bad rows, 3 bad files');
    expect(text.stderr).toBe(
      `slowdisk: skipped 3 bad rows (first: ${path.join(dir, 'host_2', '2021-11-21.csv')}:2174: 1 field, expected 4) and 3 bad files (first: ${path.join(dir, 'host_5', '2021-11-19.csv')}: empty)\n`,
    );

    const json = await runInProcess(['analyze', dir, '--json']);
    expect(json.code).toBe(1);
    expect(json.stderr).toBe('');
    const summary = jsonLines(json.stdout).at(-1)!;
    expect(summary).toMatchObject({ type: 'summary', hosts: 2, drives: 24, slow_drives: 2, files: 17, rows: 30408, bad_rows: 3, bad_files: 3 });
  });

  /**
   * host_5 (12 healthy drives), its first week, rewritten: each drive's latency times
   * `factor(disk)`, and a `class` column from `classOf(disk)` when given (the same figures
   * without it otherwise).
   */
  function reshaped(factor: (disk: string) => number, classOf?: (disk: string) => string): string {
    const dir = newDir();
    mkdirSync(path.join(dir, 'host_5'));
    for (const file of firstWeek('host_5')) {
      const [header, ...rows] = readFileSync(path.join(cluster, 'host_5', file), 'utf8').trimEnd().split('\n');
      const out = rows.map((row) => {
        const [ts, disk, throughput, latency] = row.split(',');
        const fields = [ts, disk, throughput, (Number(latency) * factor(disk!)).toFixed(3)];
        return (classOf ? [...fields, classOf(disk!)] : fields).join(',');
      });
      writeFileSync(path.join(dir, 'host_5', file), `${classOf ? `${header},class` : header}\n${out.join('\n')}\n`);
    }
    return dir;
  }
  const diskNumber = (disk: string) => Number(disk.replace('disk', ''));

  it('a class column: 6 NVMe + 6 HDD drives, each class judged against itself, one slow drive in each', async () => {
    // NVMe drives at a tenth of the HDDs' latency; disk2 (NVMe) and disk8 (HDD) 1.6x their class.
    const factor = (disk: string) => (diskNumber(disk) <= 6 ? 0.1 : 1) * (['disk2', 'disk8'].includes(disk) ? 1.6 : 1);
    const classOf = (disk: string) => (diskNumber(disk) <= 6 ? 'nvme-ssd' : 'sata-hdd');
    const dir = reshaped(factor, classOf);
    const result = await runInProcess(['analyze', dir]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual(['host_5: 12 drives, 7 days (2021-11-21 to 2021-11-27): 2 slow now', '  judged by class: 6 nvme-ssd, 6 sata-hdd']);
    expect(lines[2]).toMatch(/^ {2}disk2 +SLOW now .*\[nvme-ssd\]$/);
    expect(lines[3]).toMatch(/^ {2}disk8 +SLOW now .*\[sata-hdd\]$/);
    const json = jsonLines((await runInProcess(['analyze', dir, '--json'])).stdout);
    expect(json.filter((line) => line.verdict === 'slow').map((line) => [line.disk, line.class])).toEqual([
      ['disk2', 'nvme-ssd'],
      ['disk8', 'sata-hdd'],
    ]);
    // The same figures without the column: one group, in which the slow HDD and the slow NVMe drive are not the ones found.
    const mixed = jsonLines((await runInProcess(['analyze', reshaped(factor), '--json'])).stdout);
    expect(mixed.filter((line) => line.verdict === 'slow').map((line) => line.disk)).not.toEqual(['disk2', 'disk8']);
  });

  it('a class column: 2 NVMe + 10 HDD drives, the NVMe class too few to judge, said so, the HDDs judged', async () => {
    const factor = (disk: string) => (diskNumber(disk) <= 2 ? 0.1 : 1) * (disk === 'disk1' ? 2 : 1) * (disk === 'disk5' ? 1.6 : 1);
    const dir = reshaped(factor, (disk) => (diskNumber(disk) <= 2 ? 'nvme-ssd' : 'sata-hdd'));
    const result = await runInProcess(['analyze', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'host_5: 12 drives, 7 days (2021-11-21 to 2021-11-27): 1 slow now',
      '  judged by class: 2 nvme-ssd, 10 sata-hdd',
      '  nvme-ssd: too few drives to judge (2 of class nvme-ssd, 4 needed)',
      expect.stringMatching(/^ {2}disk5 +SLOW now .*\[sata-hdd\]$/),
      '1 host, 12 drives, 1 drive slow now on 1 host, 0 recovered, 2 too few of their class to judge; 15204 rows, 0 bad rows, 0 bad files',
    ]);
    const json = jsonLines((await runInProcess(['analyze', dir, '--json'])).stdout);
    expect(json[0]).toMatchObject({ disk: 'disk1', class: 'nvme-ssd', verdict: null, not_judged: 'too few drives to judge (2 of class nvme-ssd, 4 needed)' });
    expect(json.at(-1)).toMatchObject({ type: 'summary', slow_drives: 1, unjudged_drives: 2 });
  });

  it('a class column naming one class: the verdicts of no class at all', async () => {
    const factor = (disk: string) => (disk === 'disk5' ? 1.6 : 1);
    const one = jsonLines((await runInProcess(['analyze', reshaped(factor, () => 'sas-hdd'), '--json'])).stdout);
    const none = jsonLines((await runInProcess(['analyze', reshaped(factor), '--json'])).stdout);
    expect(one.filter((line) => line.verdict === 'slow').map((line) => line.disk)).toEqual(['disk5']);
    const strip = (lines: typeof one) => lines.map(({ class: _class, dir: _dir, ...rest }) => rest);
    expect(strip(one)).toEqual(strip(none));
    expect(one[0]!.class).toBe('sas-hdd');
  });

  it('a drive slow and then healthy for its last days reads ok, with when it was slow, and exits OK', async () => {
    // host_2's disk1 given disk3's figures on the last 5 days of data.
    const dir = newDir();
    mkdirSync(path.join(dir, 'host_2'));
    const files = readdirSync(path.join(cluster, 'host_2')).sort();
    for (const [i, file] of files.entries()) {
      const text = readFileSync(path.join(cluster, 'host_2', file), 'utf8');
      if (i < files.length - 5) {
        writeFileSync(path.join(dir, 'host_2', file), text);
        continue;
      }
      const [header, ...rows] = text.trimEnd().split('\n');
      const kept = rows.filter((row) => !row.includes(',disk1,') && !row.includes(',disk2,'));
      const healed = rows.filter((row) => row.includes(',disk3,')).flatMap((row) => [row.replace(',disk3,', ',disk1,'), row.replace(',disk3,', ',disk2,')]);
      writeFileSync(path.join(dir, 'host_2', file), `${header}\n${[...kept, ...healed].join('\n')}\n`);
    }
    const result = await runInProcess(['analyze', dir]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('host_2: 12 drives, 15 days (2021-11-21 to 2021-12-05): 0 slow now, 2 recovered');
    expect(lines[1]).toMatch(
      /^ {2}disk1 +ok, was slow +latency \d\.\d\dx its peers' at \d\.\d\dx their load; slow on 2 of 7 days 2021-11-29\.\.2021-12-05, .*; before: slow from 2021-11-21 to 2021-11-30 \(on 10 of 10 days, 1\.\d\dx its peers\)$/,
    );
    expect(result.stdout).not.toMatch(/SLOW/);
    expect(lines.at(-1)).toMatch(/^1 host, 12 drives, 0 drives slow now on 0 hosts, 2 recovered; /);
  });

  it('exits UNKNOWN with one line when nothing under DIR is readable', async () => {
    const dir = newDir();
    mkdirSync(path.join(dir, 'host_1'));
    writeFileSync(path.join(dir, 'host_1', '2021-11-21.csv'), 'not,a,day,file\n1,2,3,4\n');
    writeFileSync(path.join(dir, 'host_1', '2021-11-22.csv'), '');
    expectUnknown(await runInProcess(['analyze', dir]), /^slowdisk: nothing readable under .*: 2 day files, none with a good row \(first: .*2021-11-21\.csv: no header/);
    expectUnknown(await runInProcess(['analyze', dir, '--json']), /nothing readable/);
  });
});

describe('slowdisk analyze on bad arguments', () => {
  it('an empty directory, a missing one, a file: exit UNKNOWN with one line', async () => {
    const empty = newDir();
    expectUnknown(await runInProcess(['analyze', empty]), /no day files under .*: expected .*host_\*\/YYYY-MM-DD\.csv or .*YYYY-MM-DD\.csv/);
    expectUnknown(await runInProcess(['analyze', path.join(empty, 'nowhere')]), /no such directory/);
    const file = path.join(empty, 'file.csv');
    writeFileSync(file, 'ts,disk_id,throughput,latency\n');
    expectUnknown(await runInProcess(['analyze', file]), /not a directory/);
  });

  it('a bad flag value or no DIR: exit UNKNOWN with one line', async () => {
    const dir = newDir();
    expectUnknown(await runInProcess(['analyze', dir, '--slow-ratio', '0.8']), /--slow-ratio.*expected a number from 1\.0001 to 100/);
    expectUnknown(await runInProcess(['analyze', dir, '--window-days', '2.5']), /expected an integer/);
    expectUnknown(await runInProcess(['analyze', dir, '--window-days', '3']), /--min-slow-days \(4\) cannot be more than --window-days \(3\)/);
    expectUnknown(await runInProcess(['analyze']), /missing required argument 'dir'/);
  });

  it('documents its exit codes in --help', async () => {
    const result = await runInProcess(['analyze', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/1 {2}WARNING {3}at least one drive slow now/);
    expect(result.stdout).toMatch(/an\s+optional class/);
    const page = readFileSync(path.join(REPO, 'docs', 'fail-slow-drives.md'), 'utf8');
    expect(page).toMatch(/^# Fail-slow drives: peer detection$/m);
    expect(page).toMatch(/^\| 1 \| at least one drive slow now/m);
    expect(readFileSync(path.join(REPO, 'README.md'), 'utf8')).toContain('](docs/fail-slow-drives.md)');
  });
});
