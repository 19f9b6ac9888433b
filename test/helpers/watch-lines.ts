// watch off a TTY, read as an operator's log reader would: one line per round or event,
// each stamped with when it arrived, so that tests can time what a user would see.
import { waitFor, type RunningCli } from './run-cli.js';

export interface OutputLine {
  /** The line after the time it starts with. */
  text: string;
  /** The time the line starts with, as watch wrote it. */
  time: string;
  /** performance.now() when the line arrived. */
  atMs: number;
  index: number;
}

interface RoundDisk {
  /** Absent for a skipped path, which has no score of its own. */
  score?: number;
  /** What follows the score: "up write ...", "down EROFS: ...", "waiting 3.0s ...", "skipped: ...". */
  state: string;
}

export interface RoundLine {
  disks: Map<string, RoundDisk>;
}

/** The time each plain line starts with: ISO 8601 to the second, with its offset. */
export const LINE_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)) (.*)$/;

const ROUND = /^\d+\.\ds tick \d+ store \d+ \(\d+(?:\.\d+)?\) \| (.*)$/;
// name, directory, score (a skipped path has none), state.
const DISK = /^(\S+) \S+ (?:score (\d+(?:\.\d+)?) )?(.*)$/;

/** Parses a round line of `watch`; undefined for an event line. */
function parseRoundLine(text: string): RoundLine | undefined {
  const match = ROUND.exec(text);
  if (!match) return undefined;
  const disks = new Map<string, RoundDisk>();
  for (const part of match[1]!.split(' | ')) {
    const [, name, score, state] = DISK.exec(part)!;
    disks.set(name!, { ...(score === undefined ? {} : { score: Number(score) }), state: state! });
  }
  return { disks };
}

export class WatchLines {
  readonly lines: OutputLine[] = [];
  private partial = '';

  constructor(readonly cli: RunningCli) {
    cli.child.stdout!.on('data', (chunk: Buffer) => {
      const atMs = performance.now();
      const parts = (this.partial + chunk.toString()).split('\n');
      this.partial = parts.pop()!;
      for (const line of parts) {
        const [, time = '', text = line] = LINE_TIME.exec(line) ?? [];
        this.lines.push({ text, time, atMs, index: this.lines.length });
      }
    });
  }

  /** The first line from `from` on that matches. */
  async next(pattern: RegExp, timeoutMs: number, from = 0): Promise<OutputLine> {
    let found: OutputLine | undefined;
    await this.until(() => (found = this.lines.slice(from).find((line) => pattern.test(line.text))) !== undefined, timeoutMs, `a line matching ${pattern}`);
    return found!;
  }

  /** The first round line from `from` on for which `holds` is true. */
  async nextRound(holds: (round: RoundLine) => boolean, timeoutMs: number, from = 0, what = 'a round line'): Promise<OutputLine & { round: RoundLine }> {
    let found: (OutputLine & { round: RoundLine }) | undefined;
    await this.until(() => (found = this.rounds(from).find(({ round }) => holds(round))) !== undefined, timeoutMs, what);
    return found!;
  }

  /** The round lines from `from` on. */
  rounds(from = 0): (OutputLine & { round: RoundLine })[] {
    return this.lines.slice(from).flatMap((line) => {
      const round = parseRoundLine(line.text);
      return round ? [{ ...line, round }] : [];
    });
  }

  /** Fails with what watch printed. */
  private until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return waitFor(predicate, timeoutMs, what, () => `watch printed:\n${this.lines.map((line) => `  ${line.text}`).join('\n')}\nstderr: ${this.cli.stderr()}`);
  }
}
