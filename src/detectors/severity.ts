// What the statistical detector's states add to a run's verdict (and so to the exit code):
// a confirmed disk makes it at least WARNING, or CRITICAL when confirmations are critical
// (`--critical-on any`). Suspect and host-wide are reported, never alarmed on: a suspect may
// still be cancelled, and host-wide is not one slow disk.
import type { Severity } from '../score/store-score.js';
import type { DetectorState } from './statistical-detector.js';

export interface DetectorSeverityOptions {
  /** A confirmed disk is CRITICAL ('evict') rather than WARNING ('slow'). */
  confirmedIsCritical?: boolean;
}

/** The statistical detector's states, or the tail detector's (a subset of them). */
export function detectorSeverity(states: Iterable<DetectorState>, options: DetectorSeverityOptions = {}): Severity {
  for (const state of states) if (state === 'confirmed') return options.confirmedIsCritical ? 'evict' : 'slow';
  return 'ok';
}

