// When the reported store score crosses a threshold, told once per crossing: `slow` or
// `evict` as it reaches the threshold from below, `slow-cleared` or `evict-cleared` only once
// it has fallen a tenth of the threshold under it (to 90 for the eviction threshold of 100,
// to 72 for the slow threshold of 80). A score that hovers at 99 and 100, as a disk that
// times out every other round makes it, is one `evict` and, once it has come down, one
// `evict-cleared`, not an event a round. Each names the disk whose score is the store's.
import type { ScoreParams } from '../score/score-params.js';
import { reportedScore } from '../score/store-score.js';

export type ThresholdName = 'slow' | 'evict';
export type CrossingName = ThresholdName | `${ThresholdName}-cleared`;

export const CROSSING_NAMES: readonly CrossingName[] = ['slow', 'slow-cleared', 'evict', 'evict-cleared'];

/** How far under its threshold a reported score must fall for the threshold to be cleared, as a fraction of it. */
export const CLEAR_MARGIN = 0.1;

export interface ThresholdCrossing {
  event: CrossingName;
  threshold: ThresholdName;
  /** The threshold's score, and the score at or below which it is cleared. */
  thresholdScore: number;
  clearScore: number;
  reportedScore: number;
  /** The disk whose score is the store's (the highest; the first of equals); none without disks. */
  disk?: string;
}

type Thresholds = Pick<ScoreParams, 'slowThreshold' | 'evictThreshold'>;

/** The reported score at or below which a threshold is cleared. */
export function clearScoreOf(threshold: number): number {
  return Math.floor(threshold * (1 - CLEAR_MARGIN));
}

export class ThresholdCrossings {
  private readonly reached: Record<ThresholdName, boolean> = { slow: false, evict: false };

  constructor(private readonly params: Thresholds) {}

  /** A round's store score and its disks' scores: the crossings it makes, the slow threshold's first on the way up. */
  round(storeScore: number, scores: ReadonlyMap<string, number>): ThresholdCrossing[] {
    const reported = reportedScore(storeScore);
    const crossings: ThresholdCrossing[] = [];
    const order: ThresholdName[] = this.reached.evict && reported <= clearScoreOf(this.params.evictThreshold) ? ['evict', 'slow'] : ['slow', 'evict'];
    for (const threshold of order) {
      const thresholdScore = threshold === 'slow' ? this.params.slowThreshold : this.params.evictThreshold;
      const clearScore = clearScoreOf(thresholdScore);
      const reached = this.reached[threshold] ? reported > clearScore : reported >= thresholdScore;
      if (reached === this.reached[threshold]) continue;
      this.reached[threshold] = reached;
      const disk = worstDisk(scores);
      crossings.push({ event: reached ? threshold : `${threshold}-cleared`, threshold, thresholdScore, clearScore, reportedScore: reported, ...(disk === undefined ? {} : { disk }) });
    }
    return crossings;
  }
}

function worstDisk(scores: ReadonlyMap<string, number>): string | undefined {
  let worst: string | undefined;
  let max = -Infinity;
  for (const [name, score] of scores) {
    if (score > max) {
      max = score;
      worst = name;
    }
  }
  return worst;
}
