// The time each plain line of a live run starts with, so that a log of them says when each
// round and event happened: ISO 8601 to the second, in local time with its offset
// (2026-12-01T09:27:55+01:00), or in UTC with --utc (2026-12-01T08:27:55Z).

const two = (n: number) => String(n).padStart(2, '0');

/** A wall-clock time as the plain lines start with it. */
export function formatLineTime(ms: number, utc: boolean): string {
  const date = new Date(ms);
  if (utc) return date.toISOString().replace(/\.\d+Z$/, 'Z');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day}T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}${zone}`;
}

export class LineClock {
  constructor(
    private readonly utc: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** The time now, as a line starts with it. */
  stamp(): string {
    return formatLineTime(this.now(), this.utc);
  }

  /** The time of day now, to the second, in the same zone: what an event above the live view starts with. */
  timeOfDay(): string {
    return this.stamp().slice(11, 19);
  }
}
