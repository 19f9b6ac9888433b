// Whether stdout is a terminal a live view can redraw, and whether colour is wanted: cron
// mail, pipes and logs get plain lines with no escape code, and NO_COLOR is honoured.
import type Ora from 'ora';

/**
 * A redrawn view needs a terminal with a width. ora itself stops drawing on TERM=dumb and
 * under CI (it would show its first and last frames only), and loops forever on a pty nobody
 * sized (0 columns, as `script` makes): those get plain lines instead.
 */
export function canRedraw(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && stream.columns > 0 && env.TERM !== 'dumb' && !('CI' in env);
}

/**
 * https://no-color.org: NO_COLOR present and not empty turns colour off. chalk (under ora)
 * does not read it, so the spinner's colour is chosen here.
 */
export function spinnerColor(env: NodeJS.ProcessEnv = process.env): 'cyan' | false {
  return env.NO_COLOR ? false : 'cyan';
}

/**
 * ora, imported only once a spinner is to be shown: it and its dependencies are a sixth of
 * a running watch's memory, which a run off a terminal never needs (dev/bench/overhead.ts).
 */
export async function loadOra(): Promise<typeof Ora> {
  return (await import('ora')).default;
}
