// The flags shared by watch and check (and later replay), mapped onto params.ts.
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  DEFAULT_PROBE_PARAMS,
  DEFAULT_SCORE_PARAMS,
  formatDuration,
  HANG_AFTER_RANGE,
  formatDurationRange,
  inDurationRange,
  parseDuration,
  SCORE_DURATION_RANGES,
  type DurationRange,
  type ProbeParams,
  type ScoreParams,
} from '../params.js';
import { DEFAULT_STATISTICAL_PARAMS, STATISTICAL_DURATION_RANGES, statisticalParams, type StatisticalParams } from '../detect/statistical-params.js';
import type { ProbeTarget } from '../prober/protocol.js';

function durationIn(range: DurationRange) {
  return (value: string): number => {
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
    if (!inDurationRange(ms, range)) throw new InvalidArgumentError(`expected a duration from ${formatDurationRange(range)}, got '${value}'`);
    return ms;
  };
}

/** A duration flag: its range in the help and enforced when parsed, its default in units. */
export function durationOption(flags: string, description: string, range: DurationRange, defaultMs?: number): Option {
  const option = new Option(flags, `${description} (${formatDurationRange(range)})`).argParser(durationIn(range));
  return defaultMs === undefined ? option : option.default(defaultMs, formatDuration(defaultMs));
}

export function numberArg(min: number, max: number, integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got '${value}'`);
    }
    return n;
  };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function namedPath(value: string, previous: ProbeTarget[]): ProbeTarget[] {
  const at = value.indexOf('=');
  const name = value.slice(0, at);
  const dir = value.slice(at + 1);
  if (at < 1 || !NAME.test(name) || dir === '') {
    throw new InvalidArgumentError(`expected NAME=DIR with a name of letters, digits, '.', '_' or '-', got '${value}'`);
  }
  return [...previous, { name, dir }];
}

export function addTargetOptions(command: Command): Command {
  return command
    .option('--raft <dir>', "the Raft data directory (TiKV's raft-engine.dir or raftdb-path)")
    .option('--kv <dir>', "the KV data directory (TiKV's storage.data-dir)")
    .option('--path <name=dir>', 'another directory to probe, under a name of your choosing (repeatable)', namedPath, []);
}

export function addScoreOptions(command: Command): Command {
  const d = DEFAULT_SCORE_PARAMS;
  return command
    .addOption(durationOption('--interval <duration>', 'one inspection per disk per tick', SCORE_DURATION_RANGES.intervalMs, d.intervalMs))
    .option('--round-ticks <n>', 'ticks per round; the score is updated once a round', numberArg(1, 1e6, true), d.roundTicks)
    .option('--ratio-threshold <x>', 'a round with this share of timeouts doubles the score', numberArg(1e-6, 1, false), d.ratioThreshold)
    .addOption(durationOption('--min-ttr <duration>', 'the score falls by 100 points per this much healthy time', SCORE_DURATION_RANGES.minTtrMs, d.minTtrMs))
    .addOption(durationOption('--timeout <duration>', 'an inspection this long or longer is a timeout, by default the interval', SCORE_DURATION_RANGES.timeoutMs))
    .option('--evict-threshold <n>', 'CRITICAL at this reported store score', numberArg(1, 100, false), d.evictThreshold)
    .option('--slow-threshold <n>', 'WARNING at this reported store score', numberArg(1, 100, false), d.slowThreshold);
}

export function addProbeOptions(command: Command): Command {
  return command
    .option('--sync <call>', 'the flush after each write: fdatasync or fsync', syncArg, DEFAULT_PROBE_PARAMS.sync)
    .option('--buffered', 'probe without O_DIRECT, for a filesystem that refuses it (marked in every output)')
    .option('--io-size <bytes>', 'bytes written and read per inspection, rounded up to the O_DIRECT alignment; the probe file is 65 such blocks (a header and 64 data blocks: 260 KiB at 4096)', numberArg(512, 1 << 20, true), DEFAULT_PROBE_PARAMS.ioSize)
    .addOption(hangAfterOption());
}

/** On watch and check, and on replay, which finds the same hung disks in a trace. */
export function hangAfterOption(): Option {
  return durationOption('--hang-after <duration>', 'a disk whose inspection has been in flight this long is hung (WARNING at least)', HANG_AFTER_RANGE, DEFAULT_PROBE_PARAMS.hangAfterMs);
}

export function addStatisticalOptions(command: Command): Command {
  const d = DEFAULT_STATISTICAL_PARAMS;
  return command
    .option('--stat-window <n>', "statistical detector: each disk's baseline is its last this-many inspections", numberArg(10, 1e6, true), d.windowSamples)
    .addOption(durationOption('--stat-refresh <duration>', 'statistical detector: how often the baseline is recomputed', STATISTICAL_DURATION_RANGES.refreshMs, d.refreshMs))
    .option('--stat-threshold <x>', 'statistical detector: a deviation above this many MADs counts', numberArg(0.1, 1000, false), d.threshold)
    .addOption(durationOption('--stat-suspect-after <duration>', 'statistical detector: deviating this long makes a disk suspect', STATISTICAL_DURATION_RANGES.suspectAfterMs, d.suspectAfterMs))
    .addOption(durationOption('--stat-observe <duration>', 'statistical detector: a suspect disk is observed this much longer', STATISTICAL_DURATION_RANGES.observeMs, d.observeMs))
    .option('--stat-confirm-share <x>', 'statistical detector: confirmed when more than this share of the observation deviates', numberArg(0.01, 1, false), d.confirmShare)
    .option('--critical-on <what>', "evict: CRITICAL at the eviction threshold only (a confirmed slow disk is WARNING); any: a confirmation is CRITICAL too", criticalOnArg, 'evict');
}

export interface StatisticalOptionValues {
  statWindow: number;
  statRefresh: number;
  statThreshold: number;
  statSuspectAfter: number;
  statObserve: number;
  statConfirmShare: number;
  criticalOn: 'evict' | 'any';
}

function criticalOnArg(value: string): 'evict' | 'any' {
  if (value !== 'evict' && value !== 'any') throw new InvalidArgumentError(`expected evict or any, got '${value}'`);
  return value;
}

/** The detector's parameters; a tick with no result counts as an inspection of the timeout. */
export function statisticalParamsFrom(options: StatisticalOptionValues, score: ScoreParams): StatisticalParams {
  try {
    return statisticalParams({
      windowSamples: options.statWindow,
      refreshMs: options.statRefresh,
      threshold: options.statThreshold,
      suspectAfterMs: options.statSuspectAfter,
      observeMs: options.statObserve,
      confirmShare: options.statConfirmShare,
      failureLatencyMs: score.timeoutMs,
    });
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function addRecordOption(command: Command): Command {
  return command.option('--record <file>', 'write every inspection to this trace file, for `slowdisk replay` (never overwrites a file)');
}

function syncArg(value: string): ProbeParams['sync'] {
  if (value !== 'fdatasync' && value !== 'fsync') throw new InvalidArgumentError(`expected fdatasync or fsync, got '${value}'`);
  return value;
}

export interface ScoreOptionValues {
  interval: number;
  roundTicks: number;
  ratioThreshold: number;
  minTtr: number;
  timeout?: number;
  evictThreshold: number;
  slowThreshold: number;
}

export function scoreParamsFrom(options: ScoreOptionValues): ScoreParams {
  if (options.slowThreshold > options.evictThreshold) {
    throw new InvalidArgumentError(
      `--slow-threshold (${options.slowThreshold}) is above --evict-threshold (${options.evictThreshold})`,
    );
  }
  return {
    intervalMs: options.interval,
    roundTicks: options.roundTicks,
    ratioThreshold: options.ratioThreshold,
    minTtrMs: options.minTtr,
    timeoutMs: options.timeout ?? options.interval,
    evictThreshold: options.evictThreshold,
    slowThreshold: options.slowThreshold,
  };
}

export interface ProbeOptionValues {
  sync: ProbeParams['sync'];
  buffered?: boolean;
  ioSize: number;
  hangAfter: number;
}

export function probeParamsFrom(options: ProbeOptionValues): ProbeParams {
  return { ioSize: options.ioSize, direct: !options.buffered, sync: options.sync, hangAfterMs: options.hangAfter };
}

export interface TargetOptionValues {
  raft?: string;
  kv?: string;
  path: ProbeTarget[];
}

/**
 * The paths to probe, absolute; with none given, the current directory's filesystem, unless
 * `cwdByDefault` is false (the drives are judged instead: --all-devices, --devices).
 */
export function targetsFrom(options: TargetOptionValues, cwd: string = process.cwd(), cwdByDefault = true): ProbeTarget[] {
  const targets: ProbeTarget[] = [];
  if (options.raft !== undefined) targets.push({ name: 'raft', dir: options.raft });
  if (options.kv !== undefined) targets.push({ name: 'kv', dir: options.kv });
  targets.push(...options.path);
  if (targets.length === 0 && cwdByDefault) targets.push({ name: 'cwd', dir: cwd });
  const seen = new Set<string>();
  for (const target of targets) {
    if (target.dir === '') throw new InvalidArgumentError(`the ${target.name} directory is empty`);
    if (seen.has(target.name)) throw new InvalidArgumentError(`the name '${target.name}' is given twice`);
    seen.add(target.name);
  }
  return targets.map(({ name, dir }) => ({ name, dir: path.resolve(cwd, dir) }));
}

