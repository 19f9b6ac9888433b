#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// watch and check: JS no higher than the baseline compiler (Sparkplug). Their hot code is a
// few functions per tick, and the optimising compilers' own code, paged in once they start,
// is 3 MB of memory. Not replay and analyze, whose work is all computation (a day's replay
// takes three times as long without them).
if (process.argv[2] === 'watch' || process.argv[2] === 'check') setFlagsFromString('--max-opt=1');
// status loads none of the probe's modules: it answers within its budget on a busy host.
if (process.argv[2] === 'status') {
  const { statusMain } = await import('../dist/cli/status-main.js');
  await statusMain(process.argv);
} else {
  const { main } = await import('../dist/cli/main.js');
  await main(process.argv);
}
