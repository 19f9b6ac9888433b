// A prober whose batch is overdue (stuck, or gone) must not hide a hung disk: past the
// batch's deadline, the session tells the pipeline of the ticks due by then on its own clock,
// so that inspections not come back are charged as timeouts, as a late batch's would be.
// But only ticks the prober really did not complete are charged: a batch the CLI has not read
// (the CLI stopped, or starved of CPU, while the prober went on) is not a prober that did not
// answer. So an overdue batch is first asked for, and its ticks charged only once the CLI has
// run on time, reading its pipe, for ANSWER_MS without an answer; the channel keeps the
// prober's messages in order, so its answer comes after every batch it sent before. A timer
// of the watchdog's own that fires well past its time, or a batch read well past the time
// that timer was due, says the CLI was held up: told as slowdisk's, never charged to a disk.
// And a hang is told on time, not at the next batch: at the first tick by which a disk
// would be hung, the session asks the prober for its records.
import { MONOTONIC_CLOCK, type Clock } from '../common/monotonic-clock.js';
import type { TickSchedule } from '../ticks/tick-schedule.js';

/** How late a batch may be before it is asked for: an event loop held up (a GC, a loaded machine) is not a hung prober. */
const GRACE_MS = 500;
/** How long the CLI, running on time, waits for the answer to that before it charges the ticks. */
const ANSWER_MS = 500;
/** A timer this late says the CLI's own event loop was held up, its pipe unread meanwhile. */
const HELD_MS = 250;
/** A hold this long is told (a batch period at most): shorter ones are a loaded machine's. */
const TOLD_HELD_MS = 1000;

export interface WatchdogActions {
  /** Tell the pipeline of the ticks due by now: their inspections not come back are charged. */
  charge(): void;
  /** Ask the prober for its records now. */
  ask(): void;
  /** The CLI was held up for `ms` (stopped, or starved of CPU): nothing was charged for it. */
  heldUp(ms: number): void;
}

export class BatchWatchdog {
  private timer: NodeJS.Timeout | null = null;
  /** When `timer` is due. */
  private timerDueMs = Infinity;
  private hangTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly actions: WatchdogActions,
    private readonly clock: Clock = MONOTONIC_CLOCK,
  ) {}

  /**
   * Every record made before `coveredMs` has come: the next batch is due after it. `hangAtMs`:
   * when a disk would be hung if its inspection in flight does not come back before.
   */
  expect(schedule: TickSchedule, coveredMs: number, hangAtMs: number | null = null): void {
    // A CLI resumed in the middle of reading its pipe reads the batches waiting there before
    // its timers run: the timer due long ago never fires, and the hold is told here.
    this.lateness(this.timerDueMs);
    this.stop();
    if (hangAtMs !== null) {
      const tickMs = schedule.deadlineMs(schedule.dueBy(hangAtMs - 1e-6) + 1) + schedule.flushSlackMs;
      if (tickMs < schedule.nextFlushMs(coveredMs)) this.hangTimer = setTimeout(() => this.actions.ask(), Math.max(0, tickMs - this.clock.now()));
    }
    this.timer = this.at(schedule.nextFlushMs(coveredMs) + GRACE_MS, () => this.askOverdue(schedule));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.hangTimer) clearTimeout(this.hangTimer);
    this.timer = null;
    this.timerDueMs = Infinity;
    this.hangTimer = null;
  }

  /** The batch is overdue: asked for, with ANSWER_MS of the CLI's own running time to come. */
  private askOverdue(schedule: TickSchedule): void {
    this.actions.ask();
    this.timer = this.at(
      this.clock.now() + ANSWER_MS,
      () => {
        this.actions.charge();
        this.expect(schedule, this.clock.now());
      },
      // Held up while waiting: the answer may be in the pipe, unread. Asked again.
      () => this.askOverdue(schedule),
    );
  }

  /**
   * Runs `then` at `ms`; `ifHeld` instead when the timer fires HELD_MS late or more (the hold
   * told once it reaches TOLD_HELD_MS), so that nothing is charged before the pipe is read.
   */
  private at(ms: number, then: () => void, ifHeld: () => void = then): NodeJS.Timeout {
    // A time already past (a batch read late) is due now: the hold was told when it was over.
    const dueMs = Math.max(ms, this.clock.now());
    this.timerDueMs = dueMs;
    return setTimeout(() => {
      if (this.lateness(dueMs) >= HELD_MS) ifHeld();
      else then();
    }, dueMs - this.clock.now());
  }

  /** How late it is for what was due at `dueMs` (Infinity: nothing); a hold of TOLD_HELD_MS or more is told. */
  private lateness(dueMs: number): number {
    const lateMs = this.clock.now() - dueMs;
    if (lateMs >= TOLD_HELD_MS) this.actions.heldUp(lateMs);
    return lateMs;
  }
}
