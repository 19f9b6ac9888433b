// Streams one `ts,disk_id,throughput,latency[,class]` CSV file (a host's day) into a
// DayBuilder: read in chunks, numbers parsed straight from the bytes, no string per row (a
// drive's class is read from its first row only).

import { open } from 'node:fs/promises';
import { fsPath } from '../common/path-text.js';
import type { DayBuilder } from './aligned-series.js';

/** What was read, over any number of files; bad input is counted, never thrown. */
export interface ReadCounters {
  files: number;
  badFiles: number;
  rows: number;
  badRows: number;
  /** `file:line: reason` of the first bad row. */
  firstBadRow?: string;
  /** `file: reason` of the first bad file. */
  firstBadFile?: string;
}

export function newCounters(): ReadCounters {
  return { files: 0, badFiles: 0, rows: 0, badRows: 0 };
}

/** Counts a file that could not be used at all. */
export function countBadFile(counters: ReadCounters, file: string, reason: string): void {
  counters.badFiles += 1;
  counters.firstBadFile ??= `${file}: ${reason}`;
}

const CHUNK_BYTES = 1 << 20;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** The accepted names of each needed column (lower case, quotes and spaces trimmed). */
const COLUMN_NAMES = {
  ts: ['ts', 'timestamp', 'time'],
  disk: ['disk_id', 'disk', 'device', 'serialno'],
  throughput: ['throughput', 'tp'],
  latency: ['latency', 'lat'],
} as const;

type Column = keyof typeof COLUMN_NAMES;

/** The accepted names of the optional device class column: drives are judged against the drives of their own class. */
const CLASS_COLUMN_NAMES: readonly string[] = ['class', 'device_class', 'disk_class'];

class FileFormatError extends Error {}

/**
 * Parses a decimal number from `buf[start, end)`: an optional sign, digits, an optional
 * fraction, on the fast path; anything else (an exponent, quotes) through Number(). NaN when
 * the field is empty or not a number.
 */
export function parseNumber(buf: Buffer, start: number, end: number): number {
  while (start < end && (buf[start] === SPACE || buf[start] === TAB)) start += 1;
  while (end > start && (buf[end - 1] === SPACE || buf[end - 1] === TAB)) end -= 1;
  if (start === end) return NaN;
  let i = start;
  let negative = false;
  if (buf[i] === MINUS || buf[i] === PLUS) {
    negative = buf[i] === MINUS;
    i += 1;
  }
  let value = 0;
  let digits = 0;
  while (i < end && buf[i] >= ZERO && buf[i] <= NINE) {
    value = value * 10 + (buf[i] - ZERO);
    digits += 1;
    i += 1;
  }
  if (i < end && buf[i] === DOT) {
    i += 1;
    let fraction = 0;
    let scale = 1;
    while (i < end && buf[i] >= ZERO && buf[i] <= NINE) {
      if (scale < 1e15) {
        fraction = fraction * 10 + (buf[i] - ZERO);
        scale *= 10;
      }
      digits += 1;
      i += 1;
    }
    value += fraction / scale;
  }
  if (i === end && digits > 0 && digits <= 15) return negative ? -value : value;
  let text = buf.toString('latin1', start, end);
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1).trim();
  if (text === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return NaN;
  return Number(text);
}

function fieldText(buf: Buffer, start: number, end: number): string {
  let text = buf.toString('utf8', start, end).trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1).trim();
  return text;
}

/** Parses one file; the state of one file's parse. */
class DayCsvParser {
  private columns: Record<Column, number> | null = null;
  private classColumn = -1;
  private needed = 0;
  private line = 0;
  get lineCount(): number {
    return this.line;
  }
  private lastDisk: Buffer | null = null;
  private lastDiskIndex = -1;
  goodRows = 0;

  constructor(
    private readonly file: string,
    private readonly builder: DayBuilder,
    private readonly counters: ReadCounters,
  ) {}

  /** Parses every complete line of `buf`; returns where the unfinished last line starts. */
  lines(buf: Buffer, final: boolean): number {
    let start = 0;
    for (;;) {
      const newline = buf.indexOf(LF, start);
      if (newline < 0) {
        if (final && start < buf.length) {
          this.parseLine(buf, start, buf.length);
          return buf.length;
        }
        return start;
      }
      this.parseLine(buf, start, newline);
      start = newline + 1;
    }
  }

  private parseLine(buf: Buffer, start: number, end: number): void {
    this.line += 1;
    if (end > start && buf[end - 1] === CR) end -= 1;
    let blank = true;
    for (let i = start; i < end && blank; i += 1) if (buf[i] !== SPACE && buf[i] !== TAB) blank = false;
    if (blank) return;
    if (this.columns === null) {
      this.parseHeader(buf, start, end);
      return;
    }
    const columns = this.columns;
    let field = 0;
    let fieldStart = start;
    let ts = NaN;
    let throughput = NaN;
    let latency = NaN;
    let disk = -1;
    let classStart = -1;
    let classEnd = -1;
    for (let i = start; i <= end; i += 1) {
      if (i < end && buf[i] !== COMMA) continue;
      if (field === this.classColumn) {
        classStart = fieldStart;
        classEnd = i;
      }
      if (field === columns.ts) ts = parseNumber(buf, fieldStart, i);
      else if (field === columns.throughput) throughput = parseNumber(buf, fieldStart, i);
      else if (field === columns.latency) latency = parseNumber(buf, fieldStart, i);
      else if (field === columns.disk) disk = this.diskIndex(buf, fieldStart, i);
      field += 1;
      fieldStart = i + 1;
    }
    if (field < this.needed) return this.bad(`${field} field${field === 1 ? '' : 's'}, expected ${this.needed}`);
    if (disk < 0) return this.bad('no disk id');
    if (!Number.isFinite(ts)) return this.bad('the timestamp is not a number');
    if (!(throughput >= 0) || throughput === Infinity) return this.bad('the throughput is not a number of 0 or more');
    if (!(latency >= 0) || latency === Infinity) return this.bad('the latency is not a number of 0 or more');
    this.builder.add(ts, disk, throughput, latency);
    if (classStart >= 0 && this.builder.classOf(disk) === '') this.builder.setClass(disk, fieldText(buf, classStart, classEnd));
    this.goodRows += 1;
  }

  private parseHeader(buf: Buffer, start: number, end: number): void {
    const names = buf
      .toString('utf8', start, end)
      .replace(/^\uFEFF/, '')
      .split(',')
      .map((name) => name.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase());
    const columns = {} as Record<Column, number>;
    const missing: string[] = [];
    for (const column of Object.keys(COLUMN_NAMES) as Column[]) {
      const at = names.findIndex((name) => (COLUMN_NAMES[column] as readonly string[]).includes(name));
      if (at < 0) missing.push(COLUMN_NAMES[column][0]);
      columns[column] = at;
    }
    if (missing.length > 0) {
      const shown = buf.toString('utf8', start, Math.min(end, start + 60));
      throw new FileFormatError(`no header naming ts, disk_id, throughput, latency (line 1 is '${shown}'; missing ${missing.join(', ')})`);
    }
    this.columns = columns;
    this.classColumn = names.findIndex((name) => CLASS_COLUMN_NAMES.includes(name));
    this.needed = Math.max(columns.ts, columns.disk, columns.throughput, columns.latency) + 1;
  }

  private diskIndex(buf: Buffer, start: number, end: number): number {
    const last = this.lastDisk;
    if (last !== null && last.length === end - start) {
      let same = true;
      for (let i = 0; i < last.length && same; i += 1) same = last[i] === buf[start + i];
      if (same) return this.lastDiskIndex;
    }
    const name = fieldText(buf, start, end);
    if (name === '') return -1;
    this.lastDisk = Buffer.from(buf.subarray(start, end));
    this.lastDiskIndex = this.builder.indexOf(name);
    return this.lastDiskIndex;
  }

  private bad(reason: string): void {
    this.counters.badRows += 1;
    this.counters.firstBadRow ??= `${this.file}:${this.line}: ${reason}`;
  }

  finish(): void {
    if (this.columns === null) throw new FileFormatError('empty');
    if (this.goodRows === 0) throw new FileFormatError('no readable rows');
  }
}

/**
 * Reads one host-day file into `builder`. Bad rows are counted and skipped; a file that cannot
 * be read, has no header, or has no good row, is counted as a bad file (its good rows, if any,
 * are still kept). Returns true when the file gave at least one good row.
 */
export async function readDayFile(file: string, builder: DayBuilder, counters: ReadCounters): Promise<boolean> {
  counters.files += 1;
  const parser = new DayCsvParser(file, builder, counters);
  let handle;
  try {
    handle = await open(fsPath(file), 'r');
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      const final = bytesRead === 0;
      const data = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const used = parser.lines(data, final);
      if (final) break;
      if (data.length - used > CHUNK_BYTES) throw new FileFormatError(`line ${parser.lineCount + 1} is longer than ${CHUNK_BYTES} bytes`);
      carry = Buffer.from(data.subarray(used));
    }
    parser.finish();
  } catch (error) {
    const reason =
      error instanceof FileFormatError ? error.message : (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    countBadFile(counters, file, reason);
  } finally {
    await handle?.close();
  }
  counters.rows += parser.goodRows;
  return parser.goodRows > 0;
}
