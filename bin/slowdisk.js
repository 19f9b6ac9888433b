#!/bin/bash
':' //; n=$(ulimit -n); [ "$n" = unlimited ] || [ "$n" -ge 256 ] || { echo "slowdisk: ulimit -n is $n: slowdisk needs at least 256 file descriptors (raise it: ulimit -n 1024, or LimitNOFILE= in a unit)" >&2; exit 3; }; exec node "$0" "$@"
// Run by bash first (the line above; node reads it as a string and a comment): with under 20
// file descriptors node itself crashes before any JS runs (SIGSEGV, abort), so too few is
// refused before node starts, with one line and exit 3. `node bin/slowdisk.js` checks the
// same below.
// First of all: SIGUSR1 opens no inspector here (src/common/debug-signal.ts).
import '../dist/bundle/debug-signal.js';
import { readFileSync, writeSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

const MIN_FILE_DESCRIPTORS = 256;
const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
if (soft !== undefined && Number(soft) < MIN_FILE_DESCRIPTORS) {
  process.stderr.write(`slowdisk: ulimit -n is ${soft}: slowdisk needs at least ${MIN_FILE_DESCRIPTORS} file descriptors (raise it: ulimit -n 1024, or LimitNOFILE= in a unit)\n`);
  process.exit(3);
}

// --version alone loads no CLI: the version is package.json's, as the CLI's own
// (src/common/version.ts). A stdout that cannot be written is exit 3, as for any output.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  try {
    writeSync(1, `${version}\n`);
  } catch {
    process.exit(3);
  }
  process.exit(0);
}

// watch and check: JS no higher than the baseline compiler (Sparkplug). Their hot code is a
// few functions per tick, and the optimising compilers' own code, paged in once they start,
// is 3 MB of memory. Not replay and analyze, whose work is all computation (a day's replay
// takes three times as long without them). Unoptimised, a for...of or an array destructuring
// allocates at every step: test/unit/hot-path.test.ts lists the functions run for every tick
// or inspection of every disk, and fails on one there.
if (process.argv[2] === 'watch' || process.argv[2] === 'check') setFlagsFromString('--max-opt=1');
// status loads none of the probe's modules: it answers within its budget on a busy host.
if (process.argv[2] === 'status') {
  const { statusMain } = await import('../dist/bundle/status-main.js');
  await statusMain(process.argv);
} else {
  const { main } = await import('../dist/bundle/main.js');
  await main(process.argv);
}
