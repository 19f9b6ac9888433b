// The act half: on eviction and on recovery, runs the operator's command through /bin/sh with
// a JSON report of the store on stdin. A hook runs beside the probing, never in its way: the
// ticks go on while it runs, and one still running at --hook-timeout is killed.
import { formatDuration } from '../common/durations.js';
import type { ScoreParams } from '../score/score-params.js';
import { reportedScore } from '../score/store-score.js';
import type { HookParams } from './hook-params.js';
import type { ProbeSession } from '../live/probe-session.js';
import type { RoundReport } from '../live/session-events.js';
import { runBounded, type ChildOutcome } from './bounded-child.js';
import { EvictionTracker, type HookEvent } from './eviction-tracker.js';
import { hookReport } from './hook-report.js';
import { SessionHistory } from './session-history.js';
import { findSmartctl } from './smart-health.js';
import { writeStderrLine } from '../common/visible-text.js';

/** What went wrong, for the one line on stderr; null for a hook that exited 0. */
function problemWith(outcome: ChildOutcome, timeoutMs: number): string | null {
  switch (outcome.kind) {
    case 'exited':
      return outcome.code === 0 ? null : `exited with code ${outcome.code}`;
    case 'signalled':
      return `was killed by ${outcome.signal}`;
    case 'timed-out':
      return `was killed after ${formatDuration(timeoutMs)} (--hook-timeout)`;
    case 'not-started':
      return `could not start: ${outcome.message}`;
  }
}

export class ActionHooks {
  private readonly tracker: EvictionTracker;
  private readonly history = new SessionHistory();
  private readonly running = new Set<Promise<void>>();
  private readonly smartctl = findSmartctl();

  static attach(session: ProbeSession, hooks: HookParams, score: ScoreParams): ActionHooks {
    const actionHooks = new ActionHooks(hooks, score);
    session.on('inspection', (record) => actionHooks.history.addInspection(record));
    session.on('round', (report) => actionHooks.onRound(report));
    return actionHooks;
  }

  private constructor(
    private readonly hooks: HookParams,
    private readonly score: ScoreParams,
  ) {
    this.tracker = new EvictionTracker(score.evictThreshold, hooks.recoverAfterMs);
  }

  /**
   * Resolves once every hook started so far has exited or been killed. The run awaits this
   * before it exits, so the hook of the round that ends the run still runs to its end.
   */
  async settle(): Promise<void> {
    await Promise.all(this.running);
  }

  private onRound(round: RoundReport): void {
    const wallMs = Date.now();
    this.history.addRound(round, wallMs);
    // A disk held busy at the eviction threshold evicts nothing (src/verdict/busy-verdict.ts).
    const event = this.tracker.observe(reportedScore(round.actedScore), round.elapsedMs);
    const command = event === 'evict' ? this.hooks.onEvict : event === 'recover' ? this.hooks.onRecover : undefined;
    if (event === null || command === undefined) return;
    const job = this.run(event, command, round, wallMs).finally(() => this.running.delete(job));
    this.running.add(job);
  }

  private async run(event: HookEvent, command: string, round: RoundReport, wallMs: number): Promise<void> {
    const timeoutMs = this.hooks.timeoutMs;
    let problem: string | null;
    try {
      const report = await hookReport({ event, round, wallMs, history: this.history, score: this.score, smartctl: this.smartctl });
      const { outcome } = await runBounded('/bin/sh', ['-c', command], {
        timeoutMs,
        stdin: `${JSON.stringify(report)}\n`,
        env: { ...process.env, SLOWDISK_EVENT: event, SLOWDISK_STORE_SCORE: String(round.reportedScore) },
        output: 'stderr',
      });
      problem = problemWith(outcome, timeoutMs);
    } catch (error) {
      problem = `could not run: ${(error as Error).message}`;
    }
    if (problem !== null) writeStderrLine(`the ${event} hook '${command}' ${problem}`);
  }
}
