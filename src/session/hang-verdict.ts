// What a hang makes a run, from the clock rather than the score: a hung disk is WARNING at
// once, long before its score could reach the slow threshold (21 s at TiKV's defaults), and
// a check in which a disk completed no inspection has nothing to call OK. Eviction, and so
// CRITICAL, stays the score's alone.
import type { Severity } from '../score/store-score.js';
import type { DiskStatus } from './probe-session.js';

export function hungDisks(disks: readonly DiskStatus[]): DiskStatus[] {
  return disks.filter((disk) => disk.state === 'hung');
}

/** Inspected disks none of whose inspections completed (a hung one counts under hungDisks). */
export function unansweredDisks(disks: readonly DiskStatus[]): DiskStatus[] {
  return disks.filter((disk) => disk.inspected && disk.state !== 'hung' && disk.inspections === 0);
}

/** During a run: WARNING while a disk is hung. */
export function hangSeverity(disks: readonly DiskStatus[]): Severity {
  return hungDisks(disks).length > 0 ? 'slow' : 'ok';
}

/** At the end of a check: WARNING too for a disk that completed no inspection. */
export function checkEndSeverity(disks: readonly DiskStatus[]): Severity {
  return hungDisks(disks).length > 0 || unansweredDisks(disks).length > 0 ? 'slow' : 'ok';
}

/** The hang's part of check's first line: "hung: kv; no inspection completed: raft", or ''. */
export function hangNotes(disks: readonly DiskStatus[]): string {
  const notes: string[] = [];
  const hung = hungDisks(disks);
  const unanswered = unansweredDisks(disks);
  if (hung.length > 0) notes.push(`hung: ${hung.map((disk) => disk.name).join(', ')}`);
  if (unanswered.length > 0) notes.push(`no inspection completed: ${unanswered.map((disk) => disk.name).join(', ')}`);
  return notes.join('; ');
}
