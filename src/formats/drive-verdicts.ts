// What watch and check print of the drives judged against their peers (--all-devices,
// --devices): a line per drive slow now or slow before and recovered, and a summary, or with --json one line per drive
// ({"type":"drive"}) and one summary ({"type":"drives"}).
import type { DriveJudgement, DriveReport } from '../drives/drive-monitor.js';
import { tooFewToJudge, type DriveVerdict, type SlowEpisode } from '../drives/peer-verdict.js';
import type { PeerParams } from '../drives/peer-params.js';

export interface DriveContext {
  stateDir: string;
  /** Whole disks --all-devices left out, by kind. */
  excluded: Record<string, string[]>;
  peer: PeerParams;
}

const finite = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? Number(value.toPrecision(4)) : null);

/** Slow now: what the exit code, the metrics and the summary follow. */
export const isSlow = (drive: DriveReport): boolean => drive.verdict?.verdict === 'slow';

/** Slow once, ok now. */
export const isRecovered = (drive: DriveReport): boolean => drive.verdict !== null && drive.verdict.verdict !== 'slow' && drive.verdict.episodes.length > 0;

const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

/** `on S of N days, 1.61x its peers`: the counts of an episode, which its dates bound. */
const episodeCounts = (episode: SlowEpisode) => `on ${episode.slowDays} of ${days(episode.days)}, ${episode.ratio.toFixed(2)}x its peers`;

/** A drive slow now, or slow once and recovered, with its evidence, for a person. */
export function driveLine(drive: DriveReport): string {
  const v = drive.verdict!;
  const now =
    `${v.ratio.toFixed(2)}x its peers' latency at ${v.loadRatio.toFixed(2)}x their load, ` +
    `slow on ${v.slowDays} of ${days(v.days)} (${v.from} to ${v.to}), confidence ${v.confidence.toFixed(2)}`;
  const ongoing = v.episodes.find((episode) => episode.ongoing);
  const past = v.episodes.filter((episode) => !episode.ongoing).map((episode) => `slow from ${episode.from} to ${episode.to} (${episodeCounts(episode)})`);
  const head = ongoing
    ? `${drive.device}: SLOW now, ${now}; slow since ${ongoing.from} (${episodeCounts(ongoing)})`
    : `${drive.device}: ok, was ${past.pop()}; now ${now}`;
  const before = past.length > 0 ? `; before: ${past.join(', ')}` : '';
  return `${head}${before}; class ${drive.peerClass}`;
}

function excludedText(excluded: Record<string, string[]>): string {
  const kinds = Object.entries(excluded).map(([kind, names]) => `${names.length} ${kind}`);
  return kinds.length === 0 ? '' : `; not watched: ${kinds.join(', ')} (name them with --devices)`;
}

function groupsText(judgement: DriveJudgement, context: DriveContext): string {
  const groups = judgement.groups.map((group) =>
    group.judged ? `${group.drives} ${group.peerClass}` : `${group.drives} ${group.peerClass} not judged: ${tooFewToJudge(group.peerClass, group.drives, context.peer)}`,
  );
  return `; judged by class: ${groups.join(', ')}`;
}

/** The summary line, for a person. */
export function driveSummaryLine(judgement: DriveJudgement, context: DriveContext): string {
  const slow = judgement.drives.filter(isSlow).map((drive) => drive.device);
  const recovered = judgement.drives.filter(isRecovered).map((drive) => drive.device);
  const judged = judgement.drives.filter((drive) => drive.notJudged === null).length;
  const verdict = slow.length === 0 ? `no drive slow of ${judged}` : `${slow.length} of ${judged} drives slow (${slow.join(', ')})`;
  const healed = recovered.length === 0 ? '' : `, ${recovered.length} slow before and recovered (${recovered.join(', ')})`;
  const perClass = judgement.groups.filter((group) => group.hostWideDays > 0).map((group) => `${group.hostWideDays} for ${group.peerClass}`);
  const hostWide = perClass.length > 0 ? `, host-wide slow days (not charged to any drive): ${perClass.join(', ')}` : '';
  const young = judgement.days < context.peer.minSlowDays ? `, a slow verdict needs at least ${context.peer.minSlowDays}` : '';
  return `drives: ${verdict}${healed}; ${days(judgement.days)} of history${hostWide}${young} in ${context.stateDir}${groupsText(judgement, context)}${excludedText(context.excluded)}`;
}

const episodeJson = (episode: SlowEpisode) => ({
  from: episode.from,
  to: episode.to,
  days: episode.days,
  slow_days: episode.slowDays,
  ratio: finite(episode.ratio),
  detected: episode.detected,
  days_to_detect: episode.daysToDetect,
  ongoing: episode.ongoing,
});

/**
 * A drive's verdict and its evidence under the names every {"type":"drive"} line gives them,
 * live (watch, check) and offline (analyze) alike; the caller adds what names the drive.
 * `verdict` is null for a drive of a class too small to judge (`notJudged` says why).
 */
export function driveVerdictFields(v: DriveVerdict | null, peerClass: string | null, notJudged: string | null): Record<string, unknown> {
  return {
    class: peerClass,
    verdict: notJudged !== null ? null : v?.verdict ?? 'ok',
    not_judged: notJudged,
    ratio: finite(v?.ratio),
    load_ratio: finite(v?.loadRatio),
    slow_days: v?.slowDays ?? 0,
    days: v?.days ?? 0,
    host_wide_days: v?.hostWideDays ?? 0,
    window_share: finite(v?.windowShare),
    z: finite(v?.z),
    confidence: finite(v?.confidence) ?? 0,
    from: v?.from || null,
    to: v?.to || null,
    episodes: (v?.episodes ?? []).map(episodeJson),
  };
}

/** One drive of watch and check as a JSON line. */
export function driveJson(drive: DriveReport, timeMs: number): Record<string, unknown> {
  return {
    type: 'drive',
    time: new Date(timeMs).toISOString(),
    device: drive.device,
    id: drive.id,
    ...driveVerdictFields(drive.verdict, drive.peerClass, drive.notJudged),
  };
}

/** The summary as a JSON line. */
export function drivesJson(judgement: DriveJudgement, context: DriveContext, timeMs: number): Record<string, unknown> {
  return {
    type: 'drives',
    time: new Date(timeMs).toISOString(),
    drives: judgement.drives.length,
    slow: judgement.drives.filter(isSlow).map((drive) => drive.device),
    recovered: judgement.drives.filter(isRecovered).map((drive) => drive.device),
    days: judgement.days,
    host_wide_days: judgement.hostWideDays,
    min_slow_days: context.peer.minSlowDays,
    groups: judgement.groups.map((group) => ({ class: group.peerClass, drives: group.drives, judged: group.judged, host_wide_days: group.hostWideDays })),
    state_dir: context.stateDir,
    excluded: context.excluded,
  };
}
