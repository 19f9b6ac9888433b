// `replay --json`: the JSON Lines of trace-format.md, for scripts that assert on the scores.
// Scores are written as JavaScript prints a double: the shortest text that reads back exactly.
import type { ScoreUpdate } from './replay-engine.js';

/** One line per disk and one for the store, each ending in a newline. */
export function scoreLines(update: ScoreUpdate): string {
  let text = '';
  for (const [disk, score] of update.scores) text += `${JSON.stringify({ tick: update.tick, disk, score })}\n`;
  return text + `${JSON.stringify({ tick: update.tick, store_score: update.storeScore, evict: update.severity === 'evict' })}\n`;
}
