// Every day of a host read at once, for the benchmark, which judges the same series under
// many parameters (the command reads and judges a day at a time: src/drives/series-analysis.ts).
import type { PeerParams } from '../../src/drives/peer-params.js';
import type { AlignedDay } from '../../src/drives/aligned-series.js';
import { readDay } from '../../src/drives/series-analysis.js';
import type { ReadCounters } from '../../src/drives/series-csv.js';
import type { HostDir } from '../../src/drives/series-files.js';

/** Reads every day of a host into aligned series, the days without a good row left out. */
export async function readHostDays(host: HostDir, params: PeerParams, counters: ReadCounters): Promise<AlignedDay[]> {
  const days: AlignedDay[] = [];
  for (const file of host.files) {
    const day = await readDay(host, file, params, counters);
    if (day) days.push(day);
  }
  return days;
}
