// Reads a trace as a stream, a chunk of lines at a time, so that a day-long trace is never
// held in memory, and rejects a malformed one at the line that breaks the format.
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { expectedValue, validParamValue } from '../common/param-spec.js';
import { fsPath, withTextPath } from '../common/path-text.js';
import { figuresOfLine, HEADER_SPECS, NAME_LOST, TRACE_VERSION, type RecordedDevice, type TraceHeader, type TraceLine } from './trace-format.js';

/** A line that breaks the trace format; a trace with no line to replay is one too, at no line. */
export class TraceError extends Error {
  constructor(
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = 'TraceError';
  }
}

/**
 * The longest line read, in characters: a recorded line is under 1 KiB, and a longer one is
 * refused before it is held whole, so that a file with no newline cannot fill the memory.
 */
export const MAX_LINE_CHARS = 1 << 20;

/**
 * The furthest a line's tick may be past every tick before it (the first line's, past 0): a
 * day of ticks at the default 100 ms. Replay steps through every tick in between, so a gap of
 * 1e15 ticks would never end; a live run records a line for every disk at every tick.
 */
export const MAX_TICK_GAP = 864_000;

export interface Trace {
  /** How messages name it: the path as given, or "stdin". */
  name: string;
  header: TraceHeader | null;
  /**
   * The header's block devices of each disk. A Map, as every table keyed by disk names: a
   * disk may be named `constructor` or `toString`, which a plain object already holds.
   */
  blockDevices: ReadonlyMap<string, string[]>;
  /** The lines after the header, validated, a chunk of the file at a time; iterate once. */
  batches: AsyncIterable<TraceLine[]>;
  /** The share of the file read so far, from 0 to 1; null when the size is unknown (stdin). */
  readShare(): number | null;
  /** Lets go of the file, read to its end or not (a replay refused halfway). */
  close(): void;
}

/** Big reads: a day-long trace is hundreds of megabytes, and each read is a trip to the thread pool. */
const READ_CHUNK_BYTES = 1 << 20;

/** Opens a trace file, or stdin for "-". A file that cannot be opened rejects here. */
export async function openTrace(source: string): Promise<Trace> {
  if (source === '-') return readTrace(process.stdin, 'stdin');
  const handle = await open(fsPath(source), 'r').catch((error: unknown) => {
    throw withTextPath(error, source);
  });
  const { size } = await handle.stat();
  const input = handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES });
  const close = () => input.destroy();
  const trace = await readTrace(input, source).catch((error: unknown) => {
    close();
    throw error;
  });
  return { ...trace, readShare: () => (size > 0 ? Math.min(1, input.bytesRead / size) : 1), close };
}

/** Reads a trace from any stream; the header, if any, is parsed before this resolves. */
export async function readTrace(input: Readable, name: string): Promise<Trace> {
  const parsed = parseBatches(input);
  const first = await parsed.next();
  const firstBatch = first.done ? [] : first.value;
  const header = firstBatch.length > 0 && isHeader(firstBatch[0]) ? firstBatch[0] : null;
  let rest = (header ? firstBatch.slice(1) : firstBatch) as TraceLine[];
  // Up to the first tick line, so that a trace with none is refused here, before any output.
  while (rest.length === 0) {
    const next = await parsed.next();
    if (next.done) break;
    rest = next.value as TraceLine[];
  }
  async function* batches(): AsyncGenerator<TraceLine[]> {
    yield rest;
    yield* parsed as AsyncGenerator<TraceLine[]>;
  }
  const blockDevices = new Map(Object.entries(header?.block_devices ?? {}));
  // A stream handed in belongs to the caller (stdin stays open).
  return { name, header, blockDevices, batches: batches(), readShare: () => null, close: () => undefined };
}

function isHeader(entry: TraceHeader | TraceLine): entry is TraceHeader {
  return 'slowdisk_trace' in entry;
}

/** Splits the stream into lines a chunk at a time, and parses them. Only line 1 can be a header. */
async function* parseBatches(input: Readable): AsyncGenerator<(TraceHeader | TraceLine)[]> {
  const parser = new LineParser();
  let number = 0;
  let partial = '';
  const parse = (texts: string[]) => {
    const batch: (TraceHeader | TraceLine)[] = [];
    for (const text of texts) {
      number += 1;
      if (text.length > MAX_LINE_CHARS) throw tooLong(number);
      // A blank line carries nothing; an editor's trailing newline should not break a trace.
      // A '\r' before the '\n' is JSON whitespace, so CRLF traces parse too.
      if (text.trim() !== '') batch.push(parser.parse(text, number));
    }
    return batch;
  };
  input.setEncoding('utf8');
  for await (const chunk of input as AsyncIterable<string>) {
    const texts = (partial + chunk).split('\n');
    partial = texts.pop()!;
    // Never an empty batch: the first one must hold line 1, which may be the header.
    const batch = parse(texts);
    if (partial.length > MAX_LINE_CHARS) throw tooLong(number + 1);
    if (batch.length > 0) yield batch;
  }
  const last = parse([partial]);
  if (!parser.sawTick) {
    throw new TraceError(null, parser.sawHeader ? 'has a header but no tick line: nothing to replay' : 'is empty: no header and no tick line');
  }
  yield last;
}

function tooLong(line: number): TraceError {
  return new TraceError(line, `longer than ${MAX_LINE_CHARS} characters (1 MiB): not a line slowdisk writes`);
}

type Json = Record<string, unknown>;

const isTable = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks each line against the format and what came before it: the header, each disk's last tick. */
class LineParser {
  private headerDisks: Set<string> | null = null;
  private readonly lastTicks = new Map<string, number>();
  /** The largest tick on any line so far. */
  private latestTick = 0;
  sawHeader = false;
  sawTick = false;

  parse(text: string, number: number): TraceHeader | TraceLine {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new TraceError(number, `not JSON: ${(error as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new TraceError(number, 'not a JSON object');
    }
    const json = value as Json;
    if ('slowdisk_trace' in json) return this.header(json, number);
    return this.line(json, number);
  }

  private header(json: Json, number: number): TraceHeader {
    if (number !== 1) throw new TraceError(number, 'a header ("slowdisk_trace") is allowed on the first line only');
    if (json.slowdisk_trace !== TRACE_VERSION) {
      throw new TraceError(number, `unknown trace version ${JSON.stringify(json.slowdisk_trace)}: this slowdisk reads version ${TRACE_VERSION}`);
    }
    for (const spec of HEADER_SPECS) {
      const value = json[spec.trace!];
      if (value !== undefined && !validParamValue(spec, value)) {
        throw new TraceError(number, `"${spec.trace}" must be ${expectedValue(spec)}, got ${JSON.stringify(value)}`);
      }
    }
    if (json.disks !== undefined) {
      const disks = json.disks;
      if (!Array.isArray(disks) || !disks.every((disk) => typeof disk === 'string' && disk !== '') || new Set(disks).size !== disks.length) {
        throw new TraceError(number, `"disks" must be a list of distinct disk names, got ${JSON.stringify(disks)}`);
      }
      this.headerDisks = new Set(disks as string[]);
    }
    const blockDevices = json.block_devices;
    if (
      blockDevices !== undefined &&
      !(isTable(blockDevices) && Object.values(blockDevices).every((names) => Array.isArray(names) && names.every((name) => typeof name === 'string')))
    ) {
      throw new TraceError(number, `"block_devices" must map each disk to a list of device names, got ${JSON.stringify(blockDevices)}`);
    }
    if (json.paths !== undefined && !(isTable(json.paths) && Object.values(json.paths).every((dir) => typeof dir === 'string'))) {
      throw new TraceError(number, `"paths" must map each disk to its directory, got ${JSON.stringify(json.paths)}`);
    }
    this.sawHeader = true;
    return json as unknown as TraceHeader;
  }

  private line(json: Json, number: number): TraceLine {
    const { tick, disk, ms, error, late, wait_ms: waitMs, start_wait_ms: startWaitMs } = json;
    if (tick === undefined) throw new TraceError(number, 'no "tick": every line but the header has one');
    if (typeof tick !== 'number' || !Number.isInteger(tick) || tick < 1) {
      throw new TraceError(number, `"tick" must be an integer from 1, got ${JSON.stringify(tick)}`);
    }
    if (tick - this.latestTick > MAX_TICK_GAP) {
      throw new TraceError(number, `tick ${tick} is more than ${MAX_TICK_GAP} ticks after tick ${this.latestTick}, the latest before it (a day at 100 ms): a gap replay will not step through`);
    }
    this.latestTick = Math.max(this.latestTick, tick);
    this.sawTick = true;
    if (disk === undefined) {
      if (ms !== undefined || error !== undefined) throw new TraceError(number, 'no "disk": an inspection line names its disk');
      const device = json.device === undefined ? undefined : deviceLine(json, number);
      return { line: number, tick, disk: null, ms: null, late: false, ...(device ? { device } : {}) };
    }
    if (typeof disk !== 'string' || disk === '') throw new TraceError(number, `"disk" must be a name, got ${JSON.stringify(disk)}`);
    if (ms === undefined && error === undefined) throw new TraceError(number, 'neither "ms" nor "error": an inspection either took a time or failed');
    if (ms !== undefined && error !== undefined) throw new TraceError(number, 'both "ms" and "error": an inspection either took a time or failed');
    if (ms !== undefined && !(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)) {
      throw new TraceError(number, `"ms" must be a duration in milliseconds, 0 or more, got ${JSON.stringify(ms)}`);
    }
    for (const [key, wait] of [['wait_ms', waitMs], ['start_wait_ms', startWaitMs]] as const) {
      if (wait !== undefined && !(ms !== undefined && typeof wait === 'number' && Number.isFinite(wait) && wait >= 0)) {
        throw new TraceError(number, `"${key}" must be a duration in milliseconds, 0 or more, on a line with "ms", got ${JSON.stringify(wait)}`);
      }
    }
    if (error !== undefined && typeof error !== 'string') throw new TraceError(number, `"error" must be a string, got ${JSON.stringify(error)}`);
    if (late !== undefined && typeof late !== 'boolean') throw new TraceError(number, `"late" must be true or false, got ${JSON.stringify(late)}`);
    if (this.headerDisks && !this.headerDisks.has(disk)) {
      throw new TraceError(number, `disk ${JSON.stringify(disk)} is not in the header's disks (${[...this.headerDisks].join(', ')})`);
    }
    const last = this.lastTicks.get(disk);
    if (last !== undefined && tick <= last) {
      throw new TraceError(
        number,
        tick === last
          ? `a second line for tick ${tick} of disk ${JSON.stringify(disk)}`
          : `tick ${tick} of disk ${JSON.stringify(disk)} comes after its tick ${last}: each disk's lines must be in tick order`,
      );
    }
    this.lastTicks.set(disk, tick);
    return {
      line: number,
      tick,
      disk,
      ms: typeof ms === 'number' ? ms : null,
      late: late === true,
      ...(typeof waitMs === 'number' ? { waitMs } : {}),
      ...(typeof startWaitMs === 'number' ? { startWaitMs } : {}),
      ...(error === NAME_LOST ? { lost: true } : typeof error === 'string' ? { error } : {}),
    };
  }
}

const DEVICE_ROLES = new Set(['filesystem', 'whole-disk', 'member', 'backing']);
const DEVICE_COUNTS = ['r_iops', 'w_iops', 'in_flight', 'avg_in_flight', 'util'] as const;
const DEVICE_COUNTS_OR_NULL = ['f_iops', 'r_ms', 'w_ms', 'f_ms'] as const;

/** A block device's figures over a round (RecordedDevice). */
function deviceLine(json: Json, number: number): TraceLine['device'] {
  const { device, major_minor: majorMinor, disks, role, stalled } = json;
  const expect = (valid: boolean, key: string, expected: string) => {
    if (!valid) throw new TraceError(number, `a device line's "${key}" must be ${expected}, got ${JSON.stringify(json[key])}`);
  };
  expect(typeof device === 'string' && device !== '', 'device', 'a device name');
  expect(typeof majorMinor === 'string' && /^\d+:\d+$/.test(majorMinor), 'major_minor', '"MAJOR:MINOR"');
  expect(Array.isArray(disks) && disks.every((disk) => typeof disk === 'string' && disk !== ''), 'disks', 'a list of disk names');
  expect(typeof role === 'string' && DEVICE_ROLES.has(role), 'role', `one of ${[...DEVICE_ROLES].join(', ')}`);
  expect(typeof stalled === 'boolean', 'stalled', 'true or false');
  const count = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  for (const key of DEVICE_COUNTS) expect(count(json[key]), key, 'a number, 0 or more');
  for (const key of DEVICE_COUNTS_OR_NULL) expect(json[key] === null || count(json[key]), key, 'a number, 0 or more, or null');
  expect(json.limit_use === undefined || count(json.limit_use), 'limit_use', 'a number, 0 or more');
  return figuresOfLine(json as unknown as RecordedDevice);
}
