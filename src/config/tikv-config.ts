// What slowdisk takes from a TiKV configuration file: the directories TiKV's disk
// inspections cover and the interval they run at, with TiKV's own defaults for what is unset.
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { readFileElsewhere } from '../common/read-file-elsewhere.js';
import { formatDuration, formatDurationRange, inDurationRange, type DurationRange } from '../common/durations.js';
import { DEFAULT_INTERVAL_MS, INTERVAL_SPEC } from '../score/score-params.js';
import { parseTikvDuration } from './tikv-duration.js';

/** A file slowdisk cannot use: the message names the file and the key or line. */
export class TikvConfigError extends Error {}

/** The keys slowdisk reads, as the file sets them; an unset (or, for paths, empty) key is absent. */
export interface TikvSettings {
  file: string;
  dataDir?: string;
  /** raft-engine.enable: TiKV's default is true. */
  raftEngineEnabled: boolean;
  raftEngineDir?: string;
  raftdbPath?: string;
  /** raftstore.inspect-interval: TiKV's default is 100ms. */
  inspectIntervalMs: number;
  /** raftstore.inspect-kvdb-interval (TiKV 8.x): 0 turns TiKV's KV disk inspection off. */
  inspectKvdbIntervalMs?: number;
}

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

class SettingsReader {
  constructor(
    private readonly file: string,
    private readonly document: Table,
  ) {}

  private value(section: string, key: string): unknown {
    const table = this.document[section];
    if (table === undefined) return undefined;
    if (!isTable(table)) throw new TikvConfigError(`${this.file}: ${section} must be a table ([${section}]), got ${shown(table)}`);
    return table[key];
  }

  string(section: string, key: string): string | undefined {
    const value = this.value(section, key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new TikvConfigError(`${this.file}: ${section}.${key} must be a string, got ${shown(value)}`);
    return value;
  }

  /**
   * TiKV leaves a path at its default when it is the empty string. A NUL (TOML's "\u0000")
   * would end the path at the syscall, so that "/d1\u0000/etc" probed /d1: refused.
   */
  path(section: string, key: string): string | undefined {
    const value = this.string(section, key);
    if (value?.includes('\0')) throw new TikvConfigError(`${this.file}: ${section}.${key} holds a NUL byte, which no path can: ${shown(value)}`);
    if (value?.includes('\ufffd')) throw new TikvConfigError(`${this.file}: ${section}.${key} ${shown(value).replaceAll('\ufffd', '\\ufffd')} holds a byte that is not UTF-8 (shown as \\ufffd): refused, rather than probe another directory`);
    return value === '' ? undefined : value;
  }

  boolean(section: string, key: string): boolean | undefined {
    const value = this.value(section, key);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw new TikvConfigError(`${this.file}: ${section}.${key} must be true or false, got ${shown(value)}`);
    return value;
  }

  /** 0 (TiKV's "off") or a duration in `range`. */
  durationMs(section: string, key: string, range: DurationRange): number | undefined {
    const value = this.string(section, key);
    if (value === undefined) return undefined;
    let ms: number;
    try {
      ms = parseTikvDuration(value);
    } catch (error) {
      throw new TikvConfigError(`${this.file}: ${section}.${key}: ${(error as Error).message}`);
    }
    if (ms !== 0 && !inDurationRange(ms, range)) {
      throw new TikvConfigError(`${this.file}: ${section}.${key} is '${value}': slowdisk takes 0 or a duration from ${formatDurationRange(range)}`);
    }
    return ms;
  }
}

/** How long the file may take to read: it may be on a disk that hangs. */
export const TIKV_CONFIG_READ_DEADLINE_MS = 3000;

/** Reads the file (in a child process: see readFileElsewhere) and checks it; a TikvConfigError names the file and the key or line. */
export async function readTikvSettings(file: string): Promise<TikvSettings> {
  let text: string;
  try {
    text = await readFileElsewhere(file, TIKV_CONFIG_READ_DEADLINE_MS);
  } catch (error) {
    throw new TikvConfigError(`${file}: cannot read the TiKV configuration: ${(error as Error).message}`);
  }
  return parseTikvSettings(file, text);
}

/** Checks the text of the file `file`; throws a TikvConfigError naming the file and the key or line. */
export function parseTikvSettings(file: string, text: string): TikvSettings {
  let document: Table;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const what = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    throw new TikvConfigError(`${file} line ${error.line}: not valid TOML: ${what}`);
  }
  const reader = new SettingsReader(file, document);
  return {
    file,
    dataDir: reader.path('storage', 'data-dir'),
    raftEngineEnabled: reader.boolean('raft-engine', 'enable') ?? true,
    raftEngineDir: reader.path('raft-engine', 'dir'),
    raftdbPath: reader.path('raftstore', 'raftdb-path'),
    inspectIntervalMs: reader.durationMs('raftstore', 'inspect-interval', INTERVAL_SPEC.range) ?? DEFAULT_INTERVAL_MS,
    inspectKvdbIntervalMs: reader.durationMs('raftstore', 'inspect-kvdb-interval', INTERVAL_SPEC.range),
  };
}

/** What the command line says itself: it wins over the file. */
export interface GivenOnCommandLine {
  raft?: string;
  kv?: string;
  intervalMs?: number;
  /** tikv-server's working directory, against which TiKV resolves relative paths. */
  tikvCwd?: string;
}

export interface FromTikvConfig {
  raft: string;
  /** Absent when TiKV does not inspect the KV disk (inspect-kvdb-interval = 0) and --kv was not given. */
  kv?: string;
  intervalMs: number;
  /** What the operator should know about how the file was read: one line each, for stderr. */
  notes: string[];
}

/**
 * The directories and interval TiKV would inspect with this file, the command line winning.
 * TiKV's KV disk inspection covers storage.data-dir (also tikv-server's --data-dir, which
 * --kv stands for); the Raft disk's is raft-engine.dir, or with Raft Engine off
 * raftstore.raftdb-path, each defaulting to a directory under the data dir.
 */
export function applyTikvConfig(settings: TikvSettings, given: GivenOnCommandLine): FromTikvConfig {
  const { file } = settings;
  const notes: string[] = [];
  const absolute = (key: string, value: string): string => {
    if (path.isAbsolute(value)) return value;
    if (given.tikvCwd !== undefined) return path.resolve(given.tikvCwd, value);
    throw new TikvConfigError(
      `${file}: ${key} is the relative path '${value}', which TiKV resolves against tikv-server's working directory: give that as --tikv-cwd DIR`,
    );
  };
  const dataDir = (): string => {
    if (given.kv !== undefined) return given.kv;
    if (settings.dataDir !== undefined) return absolute('storage.data-dir', settings.dataDir);
    if (given.tikvCwd !== undefined) return path.resolve(given.tikvCwd);
    throw new TikvConfigError(
      `${file}: storage.data-dir is not set, so TiKV uses tikv-server's --data-dir or its working directory: give that as --kv DIR`,
    );
  };

  const raft =
    given.raft ??
    (settings.raftEngineEnabled
      ? settings.raftEngineDir === undefined
        ? path.join(dataDir(), 'raft-engine')
        : absolute('raft-engine.dir', settings.raftEngineDir)
      : settings.raftdbPath === undefined
        ? path.join(dataDir(), 'raft')
        : absolute('raftstore.raftdb-path', settings.raftdbPath));

  const intervalMs = given.intervalMs ?? settings.inspectIntervalMs;
  if (intervalMs === 0) {
    throw new TikvConfigError(`${file}: raftstore.inspect-interval is 0, so TiKV does not inspect its disks: give --interval to probe anyway`);
  }

  const kvdbMs = settings.inspectKvdbIntervalMs;
  let kv: string | undefined;
  if (given.kv !== undefined || kvdbMs !== 0) kv = dataDir();
  if (kv === undefined) {
    notes.push(`${file}: raftstore.inspect-kvdb-interval is 0s, so TiKV does not inspect the KV disk, and slowdisk does not either (--kv DIR probes it)`);
  } else if (kvdbMs !== undefined && kvdbMs !== 0 && kvdbMs !== intervalMs) {
    notes.push(
      `${file}: raftstore.inspect-kvdb-interval is ${formatDuration(kvdbMs)}; slowdisk inspects every disk at one interval, ${formatDuration(intervalMs)}`,
    );
  }
  return { raft, ...(kv === undefined ? {} : { kv }), intervalMs, notes };
}
