// What a hang makes a run, from the clock rather than the score: a hung disk is WARNING at
// once, long before its score could reach the slow threshold (21 s at TiKV's defaults), and
// a check in which a disk completed no inspection has nothing to call OK. Eviction, and so
// CRITICAL, stays the score's alone.
import type { Severity } from '../score/store-score.js';

/** What the rule reads of a disk: whether it is inspected, hung, and how many inspections of it completed. */
export interface DiskAnswers {
  name: string;
  inspected: boolean;
  state: string;
  inspections: number;
}

export function hungDisks<Disk extends DiskAnswers>(disks: readonly Disk[]): Disk[] {
  return disks.filter((disk) => disk.state === 'hung');
}

/** Inspected disks none of whose inspections completed (a hung one counts under hungDisks). */
export function unansweredDisks<Disk extends DiskAnswers>(disks: readonly Disk[]): Disk[] {
  return disks.filter((disk) => disk.inspected && disk.state !== 'hung' && disk.inspections === 0);
}

/** During a run: WARNING while a disk is hung. */
export function hangSeverity(disks: readonly DiskAnswers[]): Severity {
  return hungDisks(disks).length > 0 ? 'slow' : 'ok';
}

/** At the end of a check: WARNING too for a disk that completed no inspection. */
export function checkEndSeverity(disks: readonly DiskAnswers[]): Severity {
  return hungDisks(disks).length > 0 || unansweredDisks(disks).length > 0 ? 'slow' : 'ok';
}

/**
 * The hang's part of check's first line: "hung: kv; contested: wal; no inspection completed:
 * raft", or ''. A contested directory (each probe file made there has its name taken by
 * someone else) is named, and changes no verdict: its ticks are neither counted nor charged.
 */
export function hangNotes(disks: readonly DiskAnswers[]): string {
  const notes: string[] = [];
  const hung = hungDisks(disks);
  const contested = disks.filter((disk) => disk.state === 'contested');
  const unanswered = unansweredDisks(disks);
  if (hung.length > 0) notes.push(`hung: ${hung.map((disk) => disk.name).join(', ')}`);
  if (contested.length > 0) notes.push(`contested: ${contested.map((disk) => disk.name).join(', ')}`);
  if (unanswered.length > 0) notes.push(`no inspection completed: ${unanswered.map((disk) => disk.name).join(', ')}`);
  return notes.join('; ');
}
