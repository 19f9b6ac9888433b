// The run's verdict: the worst severity any round (or a hang between rounds) made it.
import type { ScoreParams } from '../score/score-params.js';
import { reportedScore, severityOf, worseSeverity, type Severity } from '../score/store-score.js';

/** The worst the reported store score got over a run. */
export class RunVerdict {
  private worst: Severity = 'ok';
  maxReported = 1;

  constructor(private readonly params: Pick<ScoreParams, 'evictThreshold' | 'slowThreshold'>) {}

  /**
   * A round's store score, and what else it makes the round (the detector's verdict); its
   * severity from `actedScore`, the store's score over the disks not held busy (busy-verdict.ts).
   */
  observe(score: number, also: Severity = 'ok', actedScore = score): Severity {
    const severity = worseSeverity(severityOf(actedScore, this.params), also);
    this.maxReported = Math.max(this.maxReported, reportedScore(score));
    this.worst = worseSeverity(this.worst, severity);
    return severity;
  }

  /** Something other than a round made the run this bad (a disk hung between rounds, say). */
  note(severity: Severity): void {
    this.worst = worseSeverity(this.worst, severity);
  }

  get severity(): Severity {
    return this.worst;
  }
}
