// Every day of a host read at once, for the benchmark, which judges the same series under
// many parameters (the command reads and judges a day at a time: src/perseus/analyze.ts).
import type { PeerParams } from '../../src/peer/params.js';
import type { AlignedDay } from '../../src/peer/series.js';
import { readDay } from '../../src/perseus/analyze.js';
import type { ReadCounters } from '../../src/perseus/csv.js';
import type { HostDir } from '../../src/perseus/layout.js';

/** Reads every day of a host into aligned series, the days without a good row left out. */
export async function readHostDays(host: HostDir, params: PeerParams, counters: ReadCounters): Promise<AlignedDay[]> {
  const days: AlignedDay[] = [];
  for (const file of host.files) {
    const day = await readDay(host, file, params, counters);
    if (day) days.push(day);
  }
  return days;
}
