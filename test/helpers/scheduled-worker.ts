// A ProbeWorker driven as the prober drives it: scheduled, placed, and read through its batch
// records, which the thread alone makes, from the probe file it makes, keeps and removes itself.
// The batches have one listener per process: this module is it, for every worker of a test file.
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { ProbeWorker, flushRecordsEvery, listenForRecords, type ErrorFields, type SyncMode } from '../../src/native/addon.js';
import type { BatchRecord, PhaseTimings } from '../../src/native/batch-records.js';

/** A batch record of an inspection, rows and objects alike. */
export interface Inspection {
  tick: number;
  atMs: number;
  timings?: PhaseTimings;
  created?: boolean;
  staleRemoved?: string[];
  error?: ErrorFields;
  lost?: ErrorFields;
  contested?: boolean;
}

const inspections = new Map<string, Inspection[]>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  listenForRecords((_coveredMs, recordsJson) => {
    for (const record of JSON.parse(recordsJson) as BatchRecord[]) {
      const [name, inspection] = Array.isArray(record)
        ? [record[0], { tick: record[1], atMs: record[2], timings: { openMs: record[3], writeMs: record[4], syncMs: record[5], readMs: record[6], closeMs: record[7], totalMs: record[8], waitMs: record[10], startWaitMs: record[11] } }]
        : record.kind === 'inspected'
          ? [record.name, record]
          : [null, null];
      if (name === null) continue;
      const list = inspections.get(name) ?? [];
      list.push(inspection);
      inspections.set(name, list);
    }
  });
  // Batches often, so that a test sees each tick's record well before the next tick.
  flushRecordsEvery(MONOTONIC_CLOCK.now(), 20, 1);
}

export interface ScheduleOptions {
  ioSize?: number;
  direct?: boolean;
  sync?: SyncMode;
  intervalMs?: number;
  roundTicks?: number;
  device?: string;
  pinned?: string;
  /** Its first tick's time on the shared clock: now unless given. */
  startMs?: number;
  /** Placed at once (true), or only scheduled, as a path another on its filesystem stands for. */
  placed?: boolean;
}

let count = 0;

/** A worker inspecting `dir` from its first tick on, and its records as they come. */
export class ScheduledWorker {
  readonly worker: ProbeWorker;
  readonly name: string;
  #seen = 0;

  constructor(dir: string, options: ScheduleOptions = {}) {
    listen();
    this.name = `w${count++}`;
    this.worker = new ProbeWorker(this.name);
    this.worker.schedule({
      startMs: options.startMs ?? MONOTONIC_CLOCK.now(),
      intervalMs: options.intervalMs ?? 150,
      roundTicks: options.roundTicks ?? 1000,
      seedBase: 1,
      resolveName: this.name,
      dir,
      ...(options.pinned === undefined ? {} : { pinned: options.pinned }),
      ioSize: options.ioSize ?? 4096,
      direct: options.direct ?? true,
      sync: options.sync ?? 'fdatasync',
    });
    if (options.placed ?? true) this.worker.place(this.name, 1, options.device);
  }

  /** Every inspection recorded so far. */
  all(): Inspection[] {
    return inspections.get(this.name) ?? [];
  }

  /** The next inspection not yet taken that `wanted` accepts (those before it are passed over). */
  async next(wanted: (inspection: Inspection) => boolean = () => true, timeoutMs = 10_000): Promise<Inspection> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const list = this.all();
      while (this.#seen < list.length) {
        const inspection = list[this.#seen++]!;
        if (wanted(inspection)) return inspection;
      }
      if (Date.now() > end) throw new Error(`no inspection of ${this.name} came within ${timeoutMs} ms; seen ${JSON.stringify(list.slice(-3))}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
