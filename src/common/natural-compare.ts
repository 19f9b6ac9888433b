// Names with their numbers compared as numbers (sdb2 before sdb10, host_9 before host_10), as
// people sort device, drive and host names. In plain code: ICU's collator, made at start, paged
// some 3 MB of its data into every CLI process, for names that are ASCII.

const RUNS = /\d+|\D+/g;
const isDigits = (run: string): boolean => run.charCodeAt(0) >= 48 && run.charCodeAt(0) <= 57;

/** Runs of digits by their value, before letters; other runs by their letters, case aside. */
function compareRuns(p: string, q: string): number {
  const digits = isDigits(p);
  if (digits !== isDigits(q)) return digits ? -1 : 1;
  if (digits) {
    const x = p.replace(/^0+/, '');
    const y = q.replace(/^0+/, '');
    if (x.length !== y.length) return x.length - y.length;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = p.toLowerCase();
  const y = q.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Compares names with their numbers as numbers: disk2 before disk10. */
export function naturalCompare(a: string, b: string): number {
  const x = a.match(RUNS) ?? [];
  const y = b.match(RUNS) ?? [];
  for (let i = 0; i < x.length && i < y.length; i += 1) {
    const order = compareRuns(x[i]!, y[i]!);
    if (order !== 0) return order;
  }
  if (x.length !== y.length) return x.length - y.length;
  // Told apart by case or leading zeros alone: lower case first, as the collator has it.
  const p = swapCase(a);
  const q = swapCase(b);
  return p < q ? -1 : p > q ? 1 : 0;
}

const swapCase = (text: string): string => text.replace(/[A-Za-z]/g, (c) => (c < 'a' ? c.toLowerCase() : c.toUpperCase()));
