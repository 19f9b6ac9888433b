// A threshold event fires once per crossing: a score that hovers at the threshold is one
// event, and its -cleared comes once the score has come down by a tenth of the threshold.
import { describe, expect, it } from 'vitest';
import { ThresholdCrossings } from '../../src/verdict/threshold-crossings.js';

const PARAMS = { slowThreshold: 80, evictThreshold: 100 };

/** The events of a run whose store score (kv's) takes these values round after round. */
function eventsOf(scores: number[]): string[] {
  const crossings = new ThresholdCrossings(PARAMS);
  return scores.flatMap((score) => crossings.round(score, new Map([['raft', 1], ['kv', score]])).map((crossing) => `${crossing.event}@${score} ${crossing.disk}`));
}

describe('threshold events', () => {
  // PD sees the integer part: 90.9 is reported as 90, at which eviction is cleared.
  it('a score hovering at 99 and 100 gives one evict, and one evict-cleared once it has come down', () => {
    const hovering = [1, 2, 4, 8, 16, 32, 64, 100, 99.5, 100, 99, 100, 99.9, 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90.9, 90, 89, 88];
    expect(eventsOf(hovering)).toEqual(['slow@100 kv', 'evict@100 kv', 'evict-cleared@90.9 kv']);
  });

  it('slow clears at 72 (a tenth under 80), after evict has; both on a fall straight through', () => {
    expect(eventsOf([85, 79, 80, 73, 72, 80])).toEqual(['slow@85 kv', 'slow-cleared@72 kv', 'slow@80 kv']);
    expect(eventsOf([100, 2])).toEqual(['slow@100 kv', 'evict@100 kv', 'evict-cleared@2 kv', 'slow-cleared@2 kv']);
  });

  it('names the disk whose score is the store\'s', () => {
    const crossings = new ThresholdCrossings(PARAMS);
    expect(crossings.round(100, new Map([['raft', 100], ['kv', 3]]))).toMatchObject([
      { event: 'slow', disk: 'raft', threshold: 'slow', thresholdScore: 80, clearScore: 72, reportedScore: 100 },
      { event: 'evict', disk: 'raft', threshold: 'evict', thresholdScore: 100, clearScore: 90, reportedScore: 100 },
    ]);
  });
});
