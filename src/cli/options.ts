// The flags shared by watch and check (and, for the score and the detectors, replay): the
// targets by hand, the parameters from their stages' specs.
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { SCORE_SPECS, type ScoreParams } from '../score/score-params.js';
import { PROBE_SPECS, type ProbeParams } from '../probe/probe-params.js';
import { CRITICAL_ON_SPEC, STATISTICAL_SPECS, statisticalParams, type CriticalOn, type StatisticalParams } from '../detectors/statistical-params.js';
import { TAIL_SPECS, tailParams, type TailParams } from '../detectors/tail-params.js';
import { BUSY_SPEC, type BusyVerdict } from '../verdict/busy-verdict.js';
import type { VerdictParams } from '../verdict/verdict-pipeline.js';
import type { ProbeTarget } from '../probe/prober-protocol.js';
import { rawArgument } from '../common/path-text.js';
import type { MountRequirement } from '../layout/mount-requirement.js';
import { addParamOptions, asArgument, attributeOf, HELP_HEADINGS, paramsFrom, type OptionValues } from './param-options.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * A byte that is not UTF-8 in a path (`/data/\xff`) reaches slowdisk as U+FFFD, which names
 * another directory; where it cannot be read again as it is, refused, rather than probe that one.
 */
export function notUtf8(what: string, dir: string, instead = 'probe another directory'): string {
  return `${what} ${JSON.stringify(dir).replaceAll('\ufffd', '\\ufffd')} holds a byte that is not UTF-8 (shown as \\ufffd), which slowdisk cannot pass on as it is: refused, rather than ${instead}`;
}

/**
 * A path given on the command line as its bytes are (path-text.ts): Node decoded a byte that
 * is not UTF-8 as U+FFFD, another file; read again from the command line, or refused.
 */
export function rawPath(what: string, given: string, instead = 'use another file'): string {
  if (!given.includes('\ufffd')) return given;
  const raw = rawArgument(given);
  if (raw === null) throw new InvalidArgumentError(notUtf8(what, given, instead));
  return raw;
}

function namedPath(value: string, previous: ProbeTarget[] = []): ProbeTarget[] {
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
    .optionsGroup(HELP_HEADINGS.targets)
    .option('--raft <dir>', "the Raft data directory (TiKV's raft-engine.dir or raftdb-path)")
    .option('--kv <dir>', "the KV data directory (TiKV's storage.data-dir)")
    .option('--path <name=dir>', 'another directory to probe, under a name of your choosing (repeatable)', namedPath)
    .option(
      '--mountpoint <[name=]dir>',
      'the paths (or the one named) must be on the filesystem mounted at DIR, or on the device /dev/...: otherwise CRITICAL, naming what is there (repeatable)',
      mountRequirement,
    );
}

function mountRequirement(value: string, previous: MountRequirement[] = []): MountRequirement[] {
  const at = value.indexOf('=');
  const name = at > 0 && NAME.test(value.slice(0, at)) ? value.slice(0, at) : undefined;
  const dir = name === undefined ? value : value.slice(at + 1);
  if (!dir.startsWith('/')) throw new InvalidArgumentError(`expected an absolute mount point or device, optionally after NAME=, got '${value}'`);
  const normalised = dir === '/' ? dir : dir.replace(/\/+$/, '');
  return [...previous, { ...(name === undefined ? {} : { name }), at: normalised }];
}

/** The verdict's parameters: the score's, the statistical detector's, --critical-on, --busy and the tail detector's. */
const STATISTICAL_FLAG_SPECS = [...STATISTICAL_SPECS, CRITICAL_ON_SPEC, BUSY_SPEC, ...TAIL_SPECS];

export function addScoreOptions(command: Command): Command {
  return addParamOptions(command, SCORE_SPECS);
}

export function addProbeOptions(command: Command): Command {
  return addParamOptions(command, PROBE_SPECS);
}

export function addStatisticalOptions(command: Command): Command {
  return addParamOptions(command, STATISTICAL_FLAG_SPECS);
}

/** --critical-on and --busy. */
export function verdictParamsFrom(values: OptionValues): VerdictParams {
  return { criticalOn: values[attributeOf(CRITICAL_ON_SPEC)] as CriticalOn, busy: values[attributeOf(BUSY_SPEC)] as BusyVerdict };
}

/** The detector's parameters; a tick with no result counts as an inspection of the timeout. */
export function statisticalParamsFrom(values: OptionValues, score: ScoreParams): StatisticalParams {
  return asArgument(() => statisticalParams({ ...(paramsFrom(STATISTICAL_SPECS, values) as Partial<StatisticalParams>), failureLatencyMs: score.timeoutMs }));
}

/** The tail detector's parameters; a tick with no result counts as an inspection of the timeout. */
export function tailParamsFrom(values: OptionValues, score: ScoreParams): TailParams {
  return asArgument(() => tailParams({ ...(paramsFrom(TAIL_SPECS, values) as Partial<TailParams>), failureLatencyMs: score.timeoutMs }));
}

export function addRecordOption(command: Command): Command {
  return command.optionsGroup(HELP_HEADINGS.outputs).option('--record <file>', 'write every inspection to this trace file, for `slowdisk replay` (never overwrites a file)');
}

/** The score's parameters; the timeout is the interval unless given. */
export function scoreParamsFrom(values: OptionValues): ScoreParams {
  const given = paramsFrom(SCORE_SPECS, values) as Omit<ScoreParams, 'timeoutMs'> & { timeoutMs?: number };
  if (given.slowThreshold > given.evictThreshold) {
    throw new InvalidArgumentError(`--slow-threshold (${given.slowThreshold}) is above --evict-threshold (${given.evictThreshold})`);
  }
  return { ...given, timeoutMs: given.timeoutMs ?? given.intervalMs };
}

export function probeParamsFrom(values: OptionValues): ProbeParams {
  return paramsFrom(PROBE_SPECS, values) as ProbeParams;
}

export interface TargetOptionValues {
  raft?: string;
  kv?: string;
  path?: ProbeTarget[];
  mountpoint?: MountRequirement[];
}

/**
 * The paths to probe, absolute; with none given, the current directory's filesystem, unless
 * `cwdByDefault` is false (the drives are judged instead: --all-devices, --devices).
 */
export function targetsFrom(options: TargetOptionValues, cwd: string = process.cwd(), cwdByDefault = true): ProbeTarget[] {
  const targets: ProbeTarget[] = [];
  if (options.raft !== undefined) targets.push({ name: 'raft', dir: options.raft });
  if (options.kv !== undefined) targets.push({ name: 'kv', dir: options.kv });
  targets.push(...(options.path ?? []));
  if (targets.length === 0 && cwdByDefault) targets.push({ name: 'cwd', dir: cwd });
  const seen = new Set<string>();
  for (const target of targets) {
    if (target.dir === '') throw new InvalidArgumentError(`the ${target.name} directory is empty`);
    // The syscall would end the path there: "/d1\0/etc" would probe /d1.
    if (target.dir.includes('\0')) throw new InvalidArgumentError(`the ${target.name} directory holds a NUL byte, which no path can: ${JSON.stringify(target.dir)}`);
    target.dir = rawPath(`the ${target.name} directory`, target.dir, 'probe another directory');
    if (seen.has(target.name)) throw new InvalidArgumentError(`the name '${target.name}' is given twice`);
    seen.add(target.name);
  }
  return targets.map(({ name, dir }) => ({ name, dir: path.resolve(cwd, dir) }));
}
