#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// JS no higher than the baseline compiler (Sparkplug): a run's hot code is a few functions per
// tick, and the optimising compilers' own code, paged in once they start, is 3 MB of memory.
setFlagsFromString('--max-opt=1');
const { main } = await import('../dist/cli/main.js');

await main(process.argv);
