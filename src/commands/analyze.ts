// `slowdisk analyze DIR`: reads every host's day files, judges each host's drives against
// their peers, and exits WARNING when a drive is slow now.
import type { Ora } from 'ora';
import type { PeerParams } from '../drives/peer-params.js';
import { analyzeHost } from '../drives/series-analysis.js';
import { newCounters } from '../drives/series-csv.js';
import { findHosts, LayoutError } from '../drives/series-files.js';
import { analyzedDriveJson, badInputLine, hostText, plural, summaryJson, summaryText, type AnalysisTotals } from '../formats/analysis-text.js';
import { fail } from '../formats/fail.js';
import { whenReaderGone } from '../terminal/stdout-flushed.js';
import { loadOra } from '../terminal/terminal.js';
import { visible, writeStderrLine } from '../common/visible-text.js';
import { EXIT_OK, EXIT_UNKNOWN, EXIT_WARNING } from '../verdict/exit-codes.js';

export interface AnalyzeRequest {
  params: PeerParams;
  /** --json: JSON lines instead of text. */
  json: boolean;
  /** --all: every host and drive, not only the slow ones. */
  all: boolean;
}

export async function runAnalyze(dir: string, request: AnalyzeRequest): Promise<void> {
  const { params, json, all } = request;
  whenReaderGone(() => process.exit(EXIT_UNKNOWN));
  const counters = newCounters();
  const hosts = await findHosts(dir, counters).catch((error: unknown) => {
    if (error instanceof LayoutError) fail(error.message, EXIT_UNKNOWN);
    throw error;
  });

  // ora redraws by its line count, which a terminal of 0 columns (a pty nobody sized) makes infinite.
  let spinner: Ora | null =
    !json && process.stdout.isTTY && process.stdout.columns > 0
      ? (await loadOra())({ text: `reading ${plural(hosts.length, 'host')}`, stream: process.stdout, discardStdin: false }).start()
      : null;
  const write = (text: string) => {
    if (text === '') return;
    spinner?.clear();
    process.stdout.write(text);
    spinner?.render();
  };

  const totals: AnalysisTotals = { hosts: 0, drives: 0, slowDrives: 0, recoveredDrives: 0, unjudgedDrives: 0, slowHosts: 0 };
  for (const [index, host] of hosts.entries()) {
    if (spinner) spinner.text = `analysing ${visible(host.host)} (${index + 1} of ${hosts.length} hosts, ${counters.rows.toLocaleString('en')} rows so far)`;
    const analysis = await analyzeHost(host, params, counters);
    if (analysis.daysRead > 0) totals.hosts += 1;
    const groupOf = new Map(analysis.verdict.groups.map((group) => [group.peerClass, group]));
    const judged = analysis.verdict.drives.filter((drive) => groupOf.get(drive.peerClass)!.judged);
    const slow = judged.filter((drive) => drive.verdict === 'slow').length;
    totals.drives += analysis.verdict.drives.length;
    totals.unjudgedDrives += analysis.verdict.drives.length - judged.length;
    totals.slowDrives += slow;
    totals.recoveredDrives += judged.filter((drive) => drive.verdict !== 'slow' && drive.episodes.length > 0).length;
    if (slow > 0) totals.slowHosts += 1;
    if (json) write(analysis.verdict.drives.map((drive) => `${analyzedDriveJson(analysis.host, drive, groupOf.get(drive.peerClass)!, params)}\n`).join(''));
    else write(hostText(analysis, params, all));
  }
  spinner?.stop();
  spinner = null;

  if (counters.rows === 0) {
    const first = counters.firstBadFile ?? counters.firstBadRow;
    fail(`nothing readable under ${dir}: ${plural(counters.files, 'day file')}, none with a good row${first ? ` (first: ${first})` : ''}`, EXIT_UNKNOWN);
  }
  if (json) {
    write(summaryJson(dir, totals, counters));
  } else {
    write(summaryText(totals, counters));
    const bad = badInputLine(counters);
    if (bad) writeStderrLine(bad);
  }
  process.exitCode = totals.slowDrives > 0 ? EXIT_WARNING : EXIT_OK;
}
