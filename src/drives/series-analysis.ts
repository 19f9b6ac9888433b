// The offline analysis: host by host, day file by day file, into the peer detector. Only one
// host's judged days (a few numbers per drive and day) are kept at a time; the raw series of a
// day are dropped once the day is judged.
import path from 'node:path';
import { judgeDayByClass, type HostDay } from './peer-day.js';
import type { PeerParams } from './peer-params.js';
import { DayBuilder, type AlignedDay } from './aligned-series.js';
import { judgeHost, type HostVerdict } from './peer-verdict.js';
import { readDayFile, type ReadCounters } from './series-csv.js';
import { dayOfFile, type HostDir } from './series-files.js';

export interface HostAnalysis {
  host: string;
  /** Day files read with at least one good row. */
  daysRead: number;
  /** Each day once per device class. */
  days: HostDay[];
  verdict: HostVerdict;
}

/** Reads one day file of a host into aligned series; null when it gave no good row. */
export async function readDay(host: HostDir, file: string, params: PeerParams, counters: ReadCounters): Promise<AlignedDay | null> {
  const builder = new DayBuilder(dayOfFile(file), params.bucketSeconds);
  const ok = await readDayFile(path.join(host.dir, file), builder, counters);
  return ok ? builder.build() : null;
}

/** Reads and judges one host. */
export async function analyzeHost(host: HostDir, params: PeerParams, counters: ReadCounters): Promise<HostAnalysis> {
  const days: HostDay[] = [];
  let daysRead = 0;
  // The next file is read while this one is judged: at most two days of series in memory.
  let next = host.files.length > 0 ? readDay(host, host.files[0], params, counters) : null;
  for (let i = 0; i < host.files.length; i += 1) {
    const day = await next;
    next = i + 1 < host.files.length ? readDay(host, host.files[i + 1], params, counters) : null;
    if (!day) continue;
    daysRead += 1;
    days.push(...judgeDayByClass(day, params));
  }
  return { host: host.host, daysRead, days, verdict: judgeHost(days, params) };
}
