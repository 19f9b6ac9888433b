// A prober whose batch is overdue (stuck, or gone) must not hide a hung disk: past the
// batch's deadline, the session tells the pipeline of the ticks due by then on its own clock,
// so that inspections not come back are charged as timeouts, as a late batch's would be.
// And a hang is told on time, not at the next batch: at the first tick by which a disk
// would be hung, the session asks the prober for its records.
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';
import type { TickSchedule } from '../ticks/tick-schedule.js';

/** How late a batch may be before its ticks are charged: an event loop held up (a GC, a loaded machine) is not a hung prober. */
const GRACE_MS = 500;

export class BatchWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private hangTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly onOverdue: () => void,
    private readonly onHangDue: () => void,
  ) {}

  /**
   * Every record made before `coveredMs` has come: the next batch is due after it. `hangAtMs`:
   * when a disk would be hung if its inspection in flight does not come back before.
   */
  expect(schedule: TickSchedule, coveredMs: number, hangAtMs: number | null = null): void {
    this.stop();
    if (hangAtMs !== null) {
      const tickMs = schedule.deadlineMs(schedule.dueBy(hangAtMs - 1e-6) + 1) + schedule.flushSlackMs;
      if (tickMs < schedule.nextFlushMs(coveredMs)) this.hangTimer = setTimeout(this.onHangDue, Math.max(0, tickMs - MONOTONIC_CLOCK.now()));
    }
    const deadlineMs = schedule.nextFlushMs(coveredMs) + GRACE_MS;
    this.timer = setTimeout(() => {
      this.onOverdue();
      this.expect(schedule, MONOTONIC_CLOCK.now());
    }, Math.max(0, deadlineMs - MONOTONIC_CLOCK.now()));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.hangTimer) clearTimeout(this.hangTimer);
    this.timer = null;
    this.hangTimer = null;
  }
}
