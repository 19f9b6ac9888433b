// The live view's frame as text for a terminal of a given width: the run's verdict first,
// then a line per disk. Every line fits the width: a narrow terminal gets shorter fields
// (the path, then the devices, then the long forms of the figures go first), never a line
// that wraps. States are coloured by their severity when colour is wanted. A pure function
// of what the run knows, so that every state is tested at every width.
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { DiskStatus } from '../live/session-events.js';
import type { ScoreParams } from '../score/score-params.js';
import { SEVERITY_LABELS, reportedScore, severityOf, worseSeverity, type Severity } from '../score/store-score.js';
import { visible } from '../common/visible-text.js';
import { describeError } from '../live/shown-error.js';
import { downSeverity, isUnwritable } from '../verdict/down-verdict.js';
import { actedScoreOf } from '../verdict/busy-verdict.js';
import { diskFlags, formatCause, formatDeviceLine, shownStatistical, formatElapsed, formatMs, formatPrediction, formatScore, formatWallTime } from '../formats/format.js';

/** What makes the view's verdict, in a word: the worst thing true now. */
export type ViewReason = 'ok' | 'evict' | 'hung' | 'down' | 'busy' | 'slow' | 'confirmed' | 'warning';

export interface ViewVerdict {
  severity: Severity;
  /** The worst thing true now; `earlier` when only an earlier moment of the run made the severity. */
  reason: ViewReason | 'earlier';
}

type Thresholds = Pick<ScoreParams, 'slowThreshold' | 'evictThreshold'>;

/** What is wrong now, worst first, with the severity each makes the run (as the exit code counts it). */
function reasonNow(storeScore: number, disks: readonly DiskStatus[], params: Thresholds): { reason: ViewReason; severity: Severity } {
  // A disk held busy at the eviction threshold evicts nothing (src/verdict/busy-verdict.ts).
  const held = disks.some((disk) => disk.held !== undefined);
  const store = severityOf(held ? actedScoreOf(disks) : storeScore, params);
  if (store === 'evict') return { reason: 'evict', severity: 'evict' };
  // A disk that cannot take a write (EROFS, EIO, ENOSPC, EACCES) makes the run CRITICAL at once.
  if (downSeverity(disks.map((disk) => disk.state === 'down' && isUnwritable(disk.error?.code))) === 'evict') return { reason: 'down', severity: 'evict' };
  if (disks.some((disk) => disk.state === 'hung')) return { reason: 'hung', severity: 'slow' };
  if (disks.some((disk) => disk.state === 'down')) return { reason: 'down', severity: 'slow' };
  if (held) return { reason: 'busy', severity: 'slow' };
  if (store === 'slow') return { reason: 'slow', severity: 'slow' };
  if (disks.some((disk) => disk.statistical === 'confirmed' || disk.tail === 'confirmed')) return { reason: 'confirmed', severity: 'slow' };
  if (disks.some((disk) => disk.prediction?.warning)) return { reason: 'warning', severity: 'slow' };
  return { reason: 'ok', severity: 'ok' };
}

/**
 * The run's verdict as the header shows it: the severity its exit code has now (`run`, the
 * worst so far), or worse for what is wrong now, and the reason.
 */
export function viewVerdict(run: Severity, storeScore: number, disks: readonly DiskStatus[], params: Thresholds): ViewVerdict {
  const now = reasonNow(storeScore, disks, params);
  const severity = worseSeverity(run, now.severity);
  return { severity, reason: severity === now.severity ? now.reason : 'earlier' };
}

export interface LiveFrame {
  verdict: ViewVerdict;
  storeScore: number;
  tick: number;
  elapsedMs: number;
  disks: readonly DiskStatus[];
  /** --verbose: each block device over the last round, under the first disk it is behind. */
  devices?: readonly DeviceFigures[];
  params: Thresholds;
  buffered: boolean;
  /** The terminal's width: no line is longer. */
  columns: number;
  /** Colour the states by severity (a colour terminal without NO_COLOR). */
  colour: boolean;
}

type Tone = 'good' | 'warn' | 'bad';

/** A piece of a line: its text (control characters shown as escapes) and its colour, if any. */
interface Part {
  text: string;
  tone?: Tone;
}

const SGR: Readonly<Record<Tone, string>> = { good: '\x1b[32m', warn: '\x1b[33m', bad: '\x1b[1;31m' };
const RESET = '\x1b[0m';

const toneOf = (severity: Severity): Tone => (severity === 'evict' ? 'bad' : severity === 'slow' ? 'warn' : 'good');

const part = (text: string, tone?: Tone): Part => ({ text: visible(text), ...(tone ? { tone } : {}) });

const width = (parts: readonly Part[]) => parts.reduce((sum, { text }) => sum + text.length, 0);

/** The first of the forms that fits, longest first; the last one cut to fit with an ellipsis. */
function fit(forms: readonly Part[][], columns: number): Part[] {
  const found = forms.find((form) => width(form) <= columns);
  if (found) return found;
  const cut: Part[] = [];
  let room = columns - 1;
  for (const each of forms[forms.length - 1]!) {
    if (room <= 0) break;
    cut.push({ ...each, text: each.text.slice(0, room) });
    room -= each.text.length;
  }
  return [...cut, part('…')];
}

function render(parts: readonly Part[], colour: boolean): string {
  return parts.map(({ text, tone }) => (colour && tone ? `${SGR[tone]}${text}${RESET}` : text)).join('');
}

/** Parts joined by a space, the empty ones left out. */
function joined(parts: readonly (Part | null)[]): Part[] {
  const out: Part[] = [];
  for (const each of parts) {
    if (!each || each.text === '') continue;
    if (out.length > 0) out.push({ text: ' ' });
    out.push(each);
  }
  return out;
}

function header(frame: LiveFrame): Part[] {
  const { verdict, params } = frame;
  const tone = toneOf(verdict.severity);
  const reason = verdict.reason === 'ok' ? null : part(verdict.reason === 'earlier' ? '(earlier)' : verdict.reason, tone);
  const head = joined([part(SEVERITY_LABELS[verdict.severity], tone), reason]);
  const store = part(`store ${reportedScore(frame.storeScore)} (${formatScore(frame.storeScore)})`);
  const tick = part(`tick ${frame.tick}`);
  const elapsed = part(formatElapsed(frame.elapsedMs));
  const limits = part(`slow ${params.slowThreshold} evict ${params.evictThreshold}`);
  // Two spaces between the header's fields, one within them.
  const form = (...rest: Part[]) => [...head, ...rest.map((each) => ({ ...each, text: `  ${each.text}` }))];
  return fit([form(store, tick, elapsed, limits), form(store, tick, elapsed), form(store, tick), form(store), head], frame.columns);
}

function scoreTone(score: number, params: Thresholds): Tone | undefined {
  const severity = severityOf(score, params);
  return severity === 'ok' ? undefined : toneOf(severity);
}

/** The disk's state in a word, coloured by what it makes the run, and what it says in a long and a short form. */
function stateParts(disk: DiskStatus): { word: Part; long: string; short: string } {
  switch (disk.state) {
    case 'skipped':
      return { word: part('skipped'), long: `same filesystem as ${disk.sameAs}`, short: `as ${disk.sameAs}` };
    case 'hung': {
      const held = disk.stuckProber === undefined ? '' : `, by the stuck prober (pid ${disk.stuckProber}) of an earlier run`;
      const waited = formatElapsed(disk.waitingMs ?? 0);
      return { word: part('hung', 'warn'), long: `in flight ${waited} since ${formatWallTime(disk.hungSinceMs ?? 0)}${held}`, short: `in flight ${waited}` };
    }
    case 'down': {
      const error = disk.error;
      return { word: part('down', 'warn'), long: error ? describeError(error, disk) : '', short: error ? `${error.code}: ${error.syscall}` : '' };
    }
    case 'starting':
      return { word: part('starting'), long: 'no inspection yet', short: '' };
    case 'contested':
      // A finding about the directory, not the disk: it changes no verdict, so no colour.
      return { word: part('contested'), long: "its probe file's name taken by someone else, not charged", short: 'name taken' };
    case 'up': {
      if (disk.waitingMs !== undefined) {
        const waited = formatElapsed(disk.waitingMs);
        return { word: part('waiting', 'warn'), long: `${waited} for an inspection`, short: waited };
      }
      const last = disk.last;
      // Up, at the eviction threshold, held from it: src/verdict/busy-verdict.ts.
      const word = disk.held === undefined ? part('up', 'good') : part(`busy (${disk.held})`, 'warn');
      if (!last) return { word, long: '', short: '' };
      return {
        word,
        long: `write ${formatMs(last.writeMs)} sync ${formatMs(last.syncMs)} read ${formatMs(last.readMs)}`,
        short: `w ${formatMs(last.writeMs)} s ${formatMs(last.syncMs)} r ${formatMs(last.readMs)}`,
      };
    }
  }
}

/**
 * A disk's line in the forms it may take, longest first: the first also names its directory,
 * then the block devices go, then the figures take their short forms, a detector state of
 * `ok` goes, and the early warning's figure.
 */
function diskForms(disk: DiskStatus, nameWidth: number, frame: LiveFrame): Part[][] {
  const name = part(`  ${disk.name.padEnd(nameWidth)}`);
  const where = part(disk.resolvedDir === undefined ? disk.dir : `${disk.dir} (-> ${disk.resolvedDir})`);
  const flags = diskFlags(disk, frame.buffered);
  const flagPart = flags.length > 0 ? part(`[${flags.join('; ')}]`, 'warn') : null;
  const state = stateParts(disk);
  if (disk.state === 'skipped') {
    return [joined([name, state.word, part(state.long), where, flagPart]), joined([name, state.word, part(state.long), flagPart]), joined([name, state.word, part(state.short), flagPart])];
  }
  const score = part(formatScore(disk.score).padStart(5), scoreTone(disk.score, frame.params));
  const statistical = disk.statistical ? part(`stat ${shownStatistical(disk)}`, disk.statistical === 'confirmed' ? 'warn' : undefined) : null;
  const notOk = disk.statistical === 'ok' ? null : statistical;
  const prediction = part(formatPrediction(disk.prediction, disk.warningOf).trim(), disk.prediction?.warning ? 'warn' : undefined);
  const causeText = formatCause(disk).trim();
  const cause = causeText === '' ? null : part(causeText, 'warn');
  const stalled = disk.stalledDevices?.length ? part(`STALLED ${disk.stalledDevices.join(',')}`, 'warn') : null;
  const devices = disk.blockDevices?.length ? part(`on ${disk.blockDevices.join(',')}`) : null;
  const line = (detail: string, ...more: (Part | null)[]) => joined([name, score, state.word, part(detail), ...more]);
  return [
    line(state.long, statistical, cause, prediction, stalled, flagPart, devices, where),
    line(state.long, statistical, cause, prediction, stalled, flagPart, devices),
    line(state.long, statistical, cause, prediction, stalled, flagPart),
    line(state.short, statistical, cause, prediction, stalled, flagPart),
    line(state.short, notOk, cause, prediction, stalled, flagPart),
    line(state.short, notOk, cause, disk.prediction?.warning ? part('warning', 'warn') : null, stalled, flagPart),
  ];
}

/** The frame: the header, then each disk (and, with --verbose, its block devices under it). */
export function liveViewText(frame: LiveFrame): string {
  const nameWidth = Math.min(12, Math.max(0, ...frame.disks.map((disk) => disk.name.length)));
  const forms = frame.disks.map((disk) => diskForms(disk, nameWidth, frame));
  // The directories are named when every disk's line has room for its own, so that they line up.
  const named = forms.every((each) => width(each[0]!) <= frame.columns);
  const lines = [header(frame)];
  for (const [i, disk] of frame.disks.entries()) {
    lines.push(fit(named ? forms[i]! : forms[i]!.slice(1), frame.columns));
    // A device behind two disks is shown under the first.
    for (const device of frame.devices?.filter((each) => each.disks[0] === disk.name) ?? []) {
      lines.push(fit([[part(`    ${formatDeviceLine(device)}`, device.stalled ? 'warn' : undefined)]], frame.columns));
    }
  }
  return lines.map((parts) => render(parts, frame.colour)).join('\n');
}

/** An event line written above the view: the time of day and the event, cut to the width rather than wrapped. */
export function eventLineText(timeOfDay: string, event: string, columns: number): string {
  return render(fit([[part(`${timeOfDay} ${event}`)]], columns), false);
}
