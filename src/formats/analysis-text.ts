// What `slowdisk analyze` prints: for a person, a block per host with its slow and recovered
// drives and a summary line; with --json, one {"type":"drive"} line per drive and a summary.
import type { PeerParams } from '../drives/peer-params.js';
import { naturalCompare } from '../common/natural-compare.js';
import { tooFewToJudge, type DriveVerdict, type PeerGroup, type SlowEpisode } from '../drives/peer-verdict.js';
import type { HostAnalysis } from '../drives/series-analysis.js';
import type { ReadCounters } from '../drives/series-csv.js';
import { driveVerdictFields } from './drive-verdicts.js';
import { visible } from '../common/visible-text.js';

const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');
const percent = (value: number) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a');
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `on S of N days, 1.61x its peers`: the counts of an episode, which its dates bound. */
const episodeCounts = (episode: SlowEpisode) => `on ${episode.slowDays} of ${plural(episode.days, 'day')}, ${x(episode.ratio)} its peers`;

/** `slow from D1 to D2 (on S of N days, 1.61x its peers)`: the dates and the counts of one past episode. */
const episodeText = (episode: SlowEpisode) => `slow from ${episode.from} to ${episode.to} (${episodeCounts(episode)})`;

/** Slow now, ok (with the past episodes), or ok: the headline follows the verdict now, the history beside it. */
function driveLine(drive: DriveVerdict, width: number): string {
  const past = drive.episodes.filter((episode) => !episode.ongoing);
  const ongoing = drive.episodes.find((episode) => episode.ongoing);
  const head = `  ${drive.disk.padEnd(width)}  ${drive.verdict === 'slow' ? 'SLOW now' : past.length > 0 ? 'ok, was slow' : 'ok'}`.padEnd(width + 16);
  if (drive.days === 0 && drive.episodes.length === 0) return `${head}  not enough comparable data`;
  const evidence =
    `latency ${x(drive.ratio)} its peers' at ${x(drive.loadRatio)} their load; slow on ${drive.slowDays} of ${drive.days} days ` +
    `${drive.from}..${drive.to}, ${percent(drive.windowShare)} of windows; z ${drive.z.toFixed(1)}; confidence ${drive.confidence.toFixed(2)}`;
  const parts = [evidence];
  if (ongoing) parts.push(`slow since ${ongoing.from} (${episodeCounts(ongoing)}), judged slow as of ${ongoing.detected} (day ${ongoing.daysToDetect} of the data)`);
  if (past.length > 0) parts.push(`before: ${past.map(episodeText).join(', ')}`);
  return `${head}  ${parts.join('; ')}`;
}

const CLASS_SEP = ', ';

export function hostText(analysis: HostAnalysis, params: PeerParams, all: boolean): string {
  const { verdict } = analysis;
  const judged = new Set(verdict.groups.filter((group) => group.judged).map((group) => group.peerClass));
  const inJudged = verdict.drives.filter((drive) => judged.has(drive.peerClass));
  const slow = inJudged.filter((drive) => drive.verdict === 'slow');
  const recovered = inJudged.filter((drive) => drive.verdict !== 'slow' && drive.episodes.length > 0);
  const small = verdict.groups.filter((group) => !group.judged && group.drives > 0);
  if (!all && slow.length === 0 && recovered.length === 0 && verdict.hostWideDays === 0 && small.length === 0) return '';
  if (verdict.drives.length === 0) return all ? `${visible(analysis.host)}: no readable day\n` : '';
  const days = verdict.days;
  const lines = [
    `${analysis.host}: ${plural(verdict.drives.length, 'drive')}, ${plural(days.length, 'day')} (${days[0]} to ${days[days.length - 1]}): ` +
      `${slow.length} slow now${recovered.length > 0 ? `, ${recovered.length} recovered` : ''}`,
  ];
  const classed = verdict.groups.length > 1 || verdict.groups.some((group) => group.peerClass !== '');
  if (classed) lines.push(`  judged by class: ${verdict.groups.map((group) => `${group.drives} ${group.peerClass || 'unclassed'}`).join(CLASS_SEP)}`);
  for (const group of small) lines.push(`  ${group.peerClass === '' ? '' : `${group.peerClass}: `}${tooFewToJudge(group.peerClass, group.drives, params)}`);
  for (const group of verdict.groups) {
    if (group.hostWideDays === 0) continue;
    const of = classed ? ` of ${group.peerClass || 'unclassed'}` : '';
    lines.push(`  ${plural(group.hostWideDays, 'host-wide day')}${of}: too many drives slow together, charged to none of them`);
  }
  const width = Math.max(...verdict.drives.map((drive) => drive.disk.length));
  const shown = all ? inJudged : [...slow, ...recovered].sort((a, b) => naturalCompare(a.disk, b.disk));
  for (const drive of shown) lines.push(`${driveLine(drive, width)}${classed ? `  [${drive.peerClass || 'unclassed'}]` : ''}`);
  return `${lines.map(visible).join('\n')}\n`;
}

export function badInputLine(counters: ReadCounters): string | null {
  const parts: string[] = [];
  if (counters.badRows > 0) parts.push(`${plural(counters.badRows, 'bad row')} (first: ${counters.firstBadRow})`);
  if (counters.badFiles > 0) parts.push(`${plural(counters.badFiles, 'bad file')} (first: ${counters.firstBadFile})`);
  return parts.length === 0 ? null : `skipped ${parts.join(' and ')}`;
}


/** What `analyze` read and found, over every host. */
export interface AnalysisTotals {
  hosts: number;
  drives: number;
  slowDrives: number;
  recoveredDrives: number;
  unjudgedDrives: number;
  slowHosts: number;
}

/** The last line, for a person. */
export function summaryText(totals: AnalysisTotals, counters: ReadCounters): string {
  return (
    `${plural(totals.hosts, 'host')}, ${plural(totals.drives, 'drive')}, ${plural(totals.slowDrives, 'drive')} slow now on ${plural(totals.slowHosts, 'host')}, ` +
    `${totals.recoveredDrives} recovered${totals.unjudgedDrives > 0 ? `, ${totals.unjudgedDrives} too few of their class to judge` : ''}; ` +
    `${plural(counters.rows, 'row')}, ${plural(counters.badRows, 'bad row')}, ${plural(counters.badFiles, 'bad file')}\n`
  );
}

/** The {"type":"summary"} line. */
export function summaryJson(dir: string, totals: AnalysisTotals, counters: ReadCounters): string {
  return `${JSON.stringify({
    type: 'summary',
    dir,
    hosts: totals.hosts,
    drives: totals.drives,
    slow_drives: totals.slowDrives,
    recovered_drives: totals.recoveredDrives,
    unjudged_drives: totals.unjudgedDrives,
    slow_hosts: totals.slowHosts,
    files: counters.files,
    rows: counters.rows,
    bad_rows: counters.badRows,
    bad_files: counters.badFiles,
    first_bad_row: counters.firstBadRow ?? null,
    first_bad_file: counters.firstBadFile ?? null,
  })}\n`;
}

/** One drive of `analyze` as a JSON line: the host and the drive's name, then its verdict as live runs give it. */
export function analyzedDriveJson(host: string, drive: DriveVerdict, group: PeerGroup, params: PeerParams): string {
  const notJudged = group.judged ? null : tooFewToJudge(group.peerClass, group.drives, params);
  return JSON.stringify({ type: 'drive', host, disk: drive.disk, ...driveVerdictFields(drive, drive.peerClass === '' ? null : drive.peerClass, notJudged) });
}
