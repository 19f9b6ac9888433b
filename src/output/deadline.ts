// The output deadline applied to one write: the CLI stops waiting for it, the write goes on.
import { OUTPUT_DEADLINE_MS } from './output-params.js';

/** 'done' once `work` settles (either way: its outcome is the caller's), 'late' after OUTPUT_DEADLINE_MS. */
export async function withinDeadline(work: Promise<unknown>, deadlineMs: number = OUTPUT_DEADLINE_MS): Promise<'done' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  const outcome = await Promise.race([work.then(
    () => 'done' as const,
    () => 'done' as const,
  ), late]);
  clearTimeout(timer);
  return outcome;
}

/** "3 s": the deadline as the lines that report it say it. */
export function deadlineText(deadlineMs: number = OUTPUT_DEADLINE_MS): string {
  return `${deadlineMs / 1000} s`;
}
