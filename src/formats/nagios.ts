// check --format nagios: one line in the monitoring-plugin format that Nagios, Icinga,
// Naemon and Sensu read: "SLOWDISK <STATE> - <text> | <perfdata>", the state also being the
// exit code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
// Perfdata per https://nagios-plugins.org/doc/guidelines.html: 'label'=value[UOM];warn;crit;min;max.
import { SCORE_CEILING, SCORE_FLOOR, type ScoreParams } from '../score/score-params.js';
import { DEFAULT_PREDICTOR_PARAMS } from '../early-warning/predictor-params.js';
import { SEVERITY_LABELS, reportedScore, shownScore } from '../score/store-score.js';
import { verdictNotes } from './verdict-notes.js';
import type { DiskStatus } from '../live/session-events.js';
import { storeText, type CheckOutcome } from './check-summary.js';
import { diskFlags, formatBlockDevices, formatCause, formatElapsed, formatScore, formatState, formatTail, lastLineWaitMs, shownPrediction, shownStatistical } from './format.js';
import { LATENCY_PHASES } from './phase-latencies.js';

/** A label in single quotes, a quote in it doubled, as the guidelines ask. */
function quoteLabel(label: string): string {
  return `'${label.replaceAll("'", "''")}'`;
}

/** One perfdata item; an unknown value is "U", and unfilled trailing fields are dropped. Seconds keep microseconds. */
function perfdata(label: string, value: number | undefined, unit: string, ...limits: (number | '')[]): string {
  const shown = value === undefined ? 'U' : `${Number(value.toFixed(unit === 's' ? 6 : 3))}${unit}`;
  return `${quoteLabel(label)}=${[shown, ...limits].join(';').replace(/;+$/, '')}`;
}

function limitsText(outcome: CheckOutcome, params: ScoreParams): string {
  if (outcome.verdict.severity === 'evict') return `evict at ${params.evictThreshold}`;
  return `slow at ${params.slowThreshold}, evict at ${params.evictThreshold}`;
}

function diskText(disk: DiskStatus, buffered: boolean, shownWaitMs: number): string {
  const flags = diskFlags(disk, buffered);
  const flagText = flags.length > 0 ? ` [${flags.join('; ')}]` : '';
  const score = disk.state === 'skipped' ? '' : ` ${formatScore(disk.score)}`;
  const statistical = disk.statistical ? ` stat ${shownStatistical(disk)}` : '';
  return `${disk.name}${score} ${formatState(disk, shownWaitMs)}${statistical}${formatTail(disk.tail)}${formatCause(disk)}${shownPrediction(disk)}${formatBlockDevices(disk)}${flagText}`;
}

function statusText(outcome: CheckOutcome, params: ScoreParams, buffered: boolean): string {
  const elapsed = formatElapsed(outcome.elapsedMs);
  if (outcome.interruptedBy) return `interrupted by ${outcome.interruptedBy} after ${elapsed}`;
  const reported = reportedScore(outcome.storeScore);
  const max = outcome.verdict.maxReported > reported ? `, max ${outcome.verdict.maxReported}` : '';
  const disks = outcome.disks.map((disk) => diskText(disk, buffered, lastLineWaitMs(params))).join(', ');
  const notes = verdictNotes(outcome.disks, params);
  return `${notes ? `${notes}; ` : ''}${storeText(outcome)} score ${reported}${max} (${limitsText(outcome, params)}) after ${elapsed}; ${disks}`;
}

export function nagiosLine(
  outcome: CheckOutcome,
  params: ScoreParams,
  buffered: boolean,
  warnProbability: number = DEFAULT_PREDICTOR_PARAMS.warnProbability,
): string {
  const state = outcome.interruptedBy ? 'UNKNOWN' : SEVERITY_LABELS[outcome.verdict.severity];
  const scoreLimits = [params.slowThreshold, params.evictThreshold, SCORE_FLOOR, SCORE_CEILING] as const;
  const items = [perfdata('store_score', reportedScore(outcome.storeScore), '', ...scoreLimits)];
  for (const disk of outcome.disks) {
    items.push(perfdata(`${disk.name}_score`, shownScore(disk.score), '', ...scoreLimits));
    if (disk.state === 'skipped') continue;
    const summary = outcome.summaries.get(disk.name);
    items.push(perfdata(`${disk.name}_max_score`, shownScore(summary?.maxScore ?? disk.score), '', ...scoreLimits));
    items.push(perfdata(`${disk.name}_inspections`, disk.inspections, 'c', '', '', 0));
    items.push(perfdata(`${disk.name}_timeouts`, summary?.timeouts ?? 0, 'c', '', '', 0));
    items.push(perfdata(`${disk.name}_errors`, disk.errors, 'c', '', '', 0));
    for (const phase of LATENCY_PHASES) {
      const figures = summary?.phases[phase];
      items.push(perfdata(`${disk.name}_${phase}_median`, seconds(figures?.medianMs), 's', '', '', 0));
      items.push(perfdata(`${disk.name}_${phase}_p99`, seconds(figures?.p99Ms), 's', '', '', 0));
      items.push(perfdata(`${disk.name}_${phase}_max`, seconds(figures?.maxMs), 's', '', '', 0));
    }
    // Nothing before the predictor's first probability: a value there would read as a verdict.
    const probability = disk.prediction?.probability;
    if (probability != null) items.push(perfdata(`${disk.name}_breach_probability`, probability, '', warnProbability, '', 0, 1));
  }
  return `SLOWDISK ${state} - ${plainText(statusText(outcome, params, buffered))} | ${items.join(' ')}`;
}

function seconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : ms / 1000;
}

/** '|' starts the perfdata: none may appear in the text (a path in an error message could hold one). */
function plainText(text: string): string {
  return text.replaceAll('|', '¦');
}

const STATE_OF_EXIT = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];

/** A status line without perfdata, for an exit code (3 when it is none of the four). */
export function nagiosStatusLine(exitCode: number, text: string): string {
  return `SLOWDISK ${STATE_OF_EXIT[exitCode] ?? 'UNKNOWN'} - ${plainText(text)}`;
}
