// A host's /proc/diskstats as a function of time: per minute, a host load that follows the
// day with noise, each drive's share of it, and each drive's latency at that load times a
// factor (a fail-slow drive, a host-wide slow day). The counters at any instant are the
// integral of those rates, so a watch sampling every 15 s and cron checks sampling every few
// minutes read the very same counters.
import type { DiskCounters } from '../../src/kernel/diskstats.js';
import { mixSeed, Rng } from '../../dev/scenarios/prng.js';

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
const IO_BYTES = 65_536;

export interface SyntheticHostOptions {
  devices: string[];
  seed: number;
  /** Latency factor of a drive on a day (day 0 is the day of the first minute). */
  factor: (device: string, day: number) => number;
}

interface Accumulated {
  sectors: number;
  ios: number;
  ms: number;
}

export class SyntheticHost {
  private readonly acc = new Map<string, Accumulated>();
  private atMs: number;
  private readonly startMinute: number;

  constructor(
    private readonly options: SyntheticHostOptions,
    startMs: number,
  ) {
    this.atMs = startMs;
    this.startMinute = Math.floor(startMs / MINUTE_MS);
    for (const device of options.devices) this.acc.set(device, { sectors: 0, ios: 0, ms: 0 });
  }

  /** Per device, the rates of one minute: bytes/s, I/Os per s, ms per I/O. */
  private minuteRates(minute: number): Map<string, { bytes: number; iops: number; latency: number }> {
    const rng = new Rng(mixSeed(this.options.seed, 'host', minute));
    const hostLoad = 50e6 * (1 + 0.6 * Math.sin((2 * Math.PI * minute) / DAY_MINUTES)) * rng.lognormal(1, 0.2);
    const day = Math.floor((minute - this.startMinute) / DAY_MINUTES);
    const rates = new Map<string, { bytes: number; iops: number; latency: number }>();
    for (const device of this.options.devices) {
      const own = new Rng(mixSeed(this.options.seed, device, minute));
      const bytes = hostLoad * own.lognormal(1, 0.15);
      const latency = 5 * Math.sqrt(bytes / hostLoad) * own.lognormal(1, 0.1) * this.options.factor(device, day);
      rates.set(device, { bytes, iops: bytes / IO_BYTES, latency });
    }
    return rates;
  }

  /** Runs the devices up to `toMs`. */
  advanceTo(toMs: number): void {
    while (this.atMs < toMs) {
      const minute = Math.floor(this.atMs / MINUTE_MS);
      const end = Math.min(toMs, (minute + 1) * MINUTE_MS);
      const seconds = (end - this.atMs) / 1000;
      for (const [device, rate] of this.minuteRates(minute)) {
        const acc = this.acc.get(device)!;
        const ios = rate.iops * seconds;
        acc.sectors += (rate.bytes * seconds) / 512;
        acc.ios += ios;
        acc.ms += ios * rate.latency;
      }
      this.atMs = end;
    }
  }

  /** The counters now, as /proc/diskstats gives them (whole numbers). */
  diskstats(): Map<string, DiskCounters> {
    const out = new Map<string, DiskCounters>();
    this.options.devices.forEach((name, index) => {
      const acc = this.acc.get(name)!;
      out.set(`8:${index * 16}`, countersOf(`8:${index * 16}`, name, acc.sectors, acc.ios, acc.ms));
    });
    return out;
  }
}

/** A device's counters with all its I/O as writes. */
export function countersOf(device: string, name: string, sectors: number, ios: number, ms: number): DiskCounters {
  const none = { completed: 0, merged: 0, sectors: 0, ms: 0 };
  return {
    device,
    name,
    reads: none,
    writes: { completed: Math.floor(ios), merged: 0, sectors: Math.floor(sectors), ms: Math.floor(ms) % 2 ** 32 },
    inFlight: 0,
    ioTicksMs: 0,
    timeInQueueMs: 0,
    discards: none,
    flushes: { completed: 0, ms: 0 },
  };
}
