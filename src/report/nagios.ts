// check --format nagios: one line in the monitoring-plugin format that Nagios, Icinga,
// Naemon and Sensu read: "SLOWDISK <STATE> - <text> | <perfdata>", the state also being the
// exit code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
// Perfdata per https://nagios-plugins.org/doc/guidelines.html: 'label'=value[UOM];warn;crit;min;max.
import { SCORE_CEILING, SCORE_FLOOR, type ScoreParams } from '../score/score-params.js';
import { DEFAULT_PREDICTOR_PARAMS } from '../early-warning/predictor-params.js';
import { SEVERITY_LABELS, reportedScore } from '../score/store-score.js';
import { hangNotes } from '../verdict/hang-verdict.js';
import type { DiskStatus } from '../live/probe-session.js';
import type { CheckOutcome } from './check-summary.js';
import { diskFlags, formatBlockDevices, formatElapsed, formatPrediction, formatScore, formatState, formatTail } from './format.js';
import { LATENCY_PHASES, type PhaseLatencies } from './phase-latencies.js';

/** A label in single quotes, a quote in it doubled, as the guidelines ask. */
function quoteLabel(label: string): string {
  return `'${label.replaceAll("'", "''")}'`;
}

/** One perfdata item; an unknown value is "U", and unfilled trailing fields are dropped. */
function perfdata(label: string, value: number | undefined, unit: string, ...limits: (number | '')[]): string {
  const shown = value === undefined ? 'U' : `${Number(value.toFixed(3))}${unit}`;
  return `${quoteLabel(label)}=${[shown, ...limits].join(';').replace(/;+$/, '')}`;
}

function limitsText(outcome: CheckOutcome, params: ScoreParams): string {
  if (outcome.verdict.severity === 'evict') return `evict at ${params.evictThreshold}`;
  return `slow at ${params.slowThreshold}, evict at ${params.evictThreshold}`;
}

function diskText(disk: DiskStatus, buffered: boolean): string {
  const flags = diskFlags(disk, buffered);
  const flagText = flags.length > 0 ? ` [${flags.join('; ')}]` : '';
  const score = disk.state === 'skipped' ? '' : ` ${formatScore(disk.score)}`;
  return `${disk.name}${score} ${formatState(disk)}${formatTail(disk.tail)}${formatPrediction(disk.prediction)}${formatBlockDevices(disk)}${flagText}`;
}

function statusText(outcome: CheckOutcome, params: ScoreParams, buffered: boolean): string {
  const elapsed = formatElapsed(outcome.elapsedMs);
  if (outcome.interruptedBy) return `interrupted by ${outcome.interruptedBy} after ${elapsed}`;
  const reported = reportedScore(outcome.storeScore);
  const max = outcome.verdict.maxReported > reported ? `, max ${outcome.verdict.maxReported}` : '';
  const disks = outcome.disks.map((disk) => diskText(disk, buffered)).join(', ');
  const notes = hangNotes(outcome.disks);
  return `${notes ? `${notes}; ` : ''}store score ${reported}${max} (${limitsText(outcome, params)}) after ${elapsed}; ${disks}`;
}

export function nagiosLine(
  outcome: CheckOutcome,
  params: ScoreParams,
  buffered: boolean,
  latencies: PhaseLatencies,
  timeouts: ReadonlyMap<string, number>,
  warnProbability: number = DEFAULT_PREDICTOR_PARAMS.warnProbability,
): string {
  const state = outcome.interruptedBy ? 'UNKNOWN' : SEVERITY_LABELS[outcome.verdict.severity];
  const scoreLimits = [params.slowThreshold, params.evictThreshold, SCORE_FLOOR, SCORE_CEILING] as const;
  const items = [perfdata('store_score', reportedScore(outcome.storeScore), '', ...scoreLimits)];
  for (const disk of outcome.disks) {
    items.push(perfdata(`${disk.name}_score`, disk.score, '', ...scoreLimits));
    if (disk.state === 'skipped') continue;
    for (const phase of LATENCY_PHASES) items.push(perfdata(`${disk.name}_${phase}_latency`, latencies.medianMs(disk.name, phase), 'ms', '', '', 0));
    items.push(perfdata(`${disk.name}_timeouts`, timeouts.get(disk.name) ?? 0, '', '', '', 0));
    const probability = disk.prediction?.probability ?? undefined;
    items.push(perfdata(`${disk.name}_breach_probability`, probability, '', warnProbability, '', 0, 1));
  }
  // '|' starts the perfdata: none may appear in the text (a path in an error message could hold one).
  const text = statusText(outcome, params, buffered).replaceAll('|', '¦');
  return `SLOWDISK ${state} - ${text} | ${items.join(' ')}`;
}
