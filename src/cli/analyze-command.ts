// `slowdisk analyze DIR`: which drives of each host are fail-slow, judged against their peers
// over days, from recorded per-drive latency and throughput series (DIR/host_*/YYYY-MM-DD.csv).
import { Command } from 'commander';
import type { Ora } from 'ora';
import { DEFAULT_PEER_PARAMS, peerParams, type PeerParams } from '../peer/params.js';
import { naturalCompare, tooFewToJudge, type DriveVerdict, type PeerGroup, type SlowEpisode } from '../peer/verdict.js';
import { analyzeHost, type HostAnalysis } from '../perseus/analyze.js';
import { newCounters, type ReadCounters } from '../perseus/csv.js';
import { findHosts, LayoutError } from '../perseus/layout.js';
import { loadOra } from '../report/terminal.js';
import { visible, writeStderrLine } from '../report/visible-text.js';
import { EXIT_OK, EXIT_UNKNOWN, EXIT_WARNING } from '../verdict/exit-codes.js';
import { fail } from './fail.js';
import { numberArg } from './options.js';

interface AnalyzeValues {
  json?: boolean;
  all?: boolean;
  slowRatio: number;
  windowDays: number;
  minSlowDays: number;
}

const ANALYZE_EXIT_HELP = `Exit codes:
  0  OK        no drive slow now (a drive that was slow and recovered is listed, not counted)
  1  WARNING   at least one drive slow now (fail-slow: slow but alive, so a warning, not critical)
  3  UNKNOWN   bad arguments, or nothing readable under DIR (one line on stderr)
  Bad rows and bad files are counted and reported, and skipped; they never change the exit code
  while anything else is readable.`;

export function analyzeCommand(): Command {
  const summary = 'find the fail-slow drives of each host in recorded latency and throughput series, against their peers, over days';
  const d = DEFAULT_PEER_PARAMS;
  return new Command('analyze')
    .summary(summary)
    .description(
      `${summary}. DIR holds one directory per host (DIR/host_*/YYYY-MM-DD.csv, columns ts,disk_id,throughput,latency and an optional class: ` +
        `drives are judged against the drives of their own class), or is one host's directory.`,
    )
    .argument('<dir>', 'the directory of per-host series')
    .option('--json', 'print one JSON line per drive, then a {"type":"summary"} line')
    .option('--all', 'list every host and drive, not only the slow ones')
    .option('--slow-ratio <x>', "a window is slow when the drive's latency is at least this many times its peers'", numberArg(1.0001, 100, false), d.slowRatio)
    .option('--window-days <n>', 'the verdict looks at windows of this many days', numberArg(1, 10_000, true), d.windowDays)
    .option('--min-slow-days <n>', 'a drive is slow with at least this many slow days in a window of --window-days', numberArg(1, 10_000, true), d.minSlowDays)
    .addHelpText(
      'after',
      `
Examples:
  slowdisk analyze /var/lib/disk-series              # DIR/host_*/YYYY-MM-DD.csv
  slowdisk analyze /var/lib/disk-series/host_17      # one host
  slowdisk analyze /var/lib/disk-series --json | jq 'select(.verdict == "slow")'   # slow now

${ANALYZE_EXIT_HELP}
`,
    )
    .action((dir: string, values: AnalyzeValues) => runAnalyze(dir, values));
}

/** 3 significant decimals, null for no value (JSON has no NaN). */
const num = (value: number, digits = 3): number | null => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');
const percent = (value: number) => (Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function episodeJson(episode: SlowEpisode) {
  return {
    from: episode.from,
    to: episode.to,
    days: episode.days,
    slow_days: episode.slowDays,
    ratio: num(episode.ratio),
    detected: episode.detected,
    days_to_detect: episode.daysToDetect,
    ongoing: episode.ongoing,
  };
}

function driveJson(host: string, drive: DriveVerdict, group: PeerGroup, params: PeerParams): string {
  return JSON.stringify({
    type: 'drive',
    host,
    disk: drive.disk,
    class: drive.peerClass === '' ? null : drive.peerClass,
    verdict: group.judged ? drive.verdict : null,
    not_judged: group.judged ? null : tooFewToJudge(group.peerClass, group.drives, params),
    ratio: num(drive.ratio),
    load_ratio: num(drive.loadRatio),
    slow_days: drive.slowDays,
    days: drive.days,
    host_wide_days: drive.hostWideDays,
    window_share: num(drive.windowShare),
    z: num(drive.z, 1),
    confidence: num(drive.confidence, 2),
    from: drive.from,
    to: drive.to,
    episodes: drive.episodes.map(episodeJson),
  });
}

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

function hostText(analysis: HostAnalysis, params: PeerParams, all: boolean): string {
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

function badInputLine(counters: ReadCounters): string | null {
  const parts: string[] = [];
  if (counters.badRows > 0) parts.push(`${plural(counters.badRows, 'bad row')} (first: ${counters.firstBadRow})`);
  if (counters.badFiles > 0) parts.push(`${plural(counters.badFiles, 'bad file')} (first: ${counters.firstBadFile})`);
  return parts.length === 0 ? null : `skipped ${parts.join(' and ')}`;
}

async function runAnalyze(dir: string, values: AnalyzeValues): Promise<void> {
  if (values.minSlowDays > values.windowDays) {
    fail(`--min-slow-days (${values.minSlowDays}) cannot be more than --window-days (${values.windowDays})`, EXIT_UNKNOWN);
  }
  let params: PeerParams;
  try {
    params = peerParams({ slowRatio: values.slowRatio, windowDays: values.windowDays, minSlowDays: values.minSlowDays });
  } catch (error) {
    fail((error as Error).message, EXIT_UNKNOWN);
  }
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_UNKNOWN);
    throw error;
  });
  const counters = newCounters();
  const hosts = await findHosts(dir, counters).catch((error: unknown) => {
    if (error instanceof LayoutError) fail(error.message, EXIT_UNKNOWN);
    throw error;
  });

  // ora redraws by its line count, which a terminal of 0 columns (a pty nobody sized) makes infinite.
  let spinner: Ora | null =
    !values.json && process.stdout.isTTY && process.stdout.columns > 0
      ? (await loadOra())({ text: `reading ${plural(hosts.length, 'host')}`, stream: process.stdout, discardStdin: false }).start()
      : null;
  const write = (text: string) => {
    if (text === '') return;
    spinner?.clear();
    process.stdout.write(text);
    spinner?.render();
  };

  let drives = 0;
  let slowDrives = 0;
  let recoveredDrives = 0;
  let unjudgedDrives = 0;
  let slowHosts = 0;
  let readHosts = 0;
  for (const [index, host] of hosts.entries()) {
    if (spinner) spinner.text = `analysing ${visible(host.host)} (${index + 1} of ${hosts.length} hosts, ${counters.rows.toLocaleString('en')} rows so far)`;
    const analysis = await analyzeHost(host, params, counters);
    if (analysis.daysRead > 0) readHosts += 1;
    const groupOf = new Map(analysis.verdict.groups.map((group) => [group.peerClass, group]));
    const judged = analysis.verdict.drives.filter((drive) => groupOf.get(drive.peerClass)!.judged);
    const slow = judged.filter((drive) => drive.verdict === 'slow').length;
    drives += analysis.verdict.drives.length;
    unjudgedDrives += analysis.verdict.drives.length - judged.length;
    slowDrives += slow;
    recoveredDrives += judged.filter((drive) => drive.verdict !== 'slow' && drive.episodes.length > 0).length;
    if (slow > 0) slowHosts += 1;
    if (values.json) write(analysis.verdict.drives.map((drive) => `${driveJson(analysis.host, drive, groupOf.get(drive.peerClass)!, params)}\n`).join(''));
    else write(hostText(analysis, params, values.all === true));
  }
  spinner?.stop();
  spinner = null;

  if (counters.rows === 0) {
    const first = counters.firstBadFile ?? counters.firstBadRow;
    fail(`nothing readable under ${dir}: ${plural(counters.files, 'day file')}, none with a good row${first ? ` (first: ${first})` : ''}`, EXIT_UNKNOWN);
  }
  if (values.json) {
    write(
      `${JSON.stringify({
        type: 'summary',
        dir,
        hosts: readHosts,
        drives,
        slow_drives: slowDrives,
        recovered_drives: recoveredDrives,
        unjudged_drives: unjudgedDrives,
        slow_hosts: slowHosts,
        files: counters.files,
        rows: counters.rows,
        bad_rows: counters.badRows,
        bad_files: counters.badFiles,
        first_bad_row: counters.firstBadRow ?? null,
        first_bad_file: counters.firstBadFile ?? null,
      })}\n`,
    );
  } else {
    write(
      `${plural(readHosts, 'host')}, ${plural(drives, 'drive')}, ${plural(slowDrives, 'drive')} slow now on ${plural(slowHosts, 'host')}, ` +
        `${recoveredDrives} recovered${unjudgedDrives > 0 ? `, ${unjudgedDrives} too few of their class to judge` : ''}; ` +
        `${plural(counters.rows, 'row')}, ${plural(counters.badRows, 'bad row')}, ${plural(counters.badFiles, 'bad file')}\n`,
    );
    const bad = badInputLine(counters);
    if (bad) writeStderrLine(bad);
  }
  process.exitCode = slowDrives > 0 ? EXIT_WARNING : EXIT_OK;
}
