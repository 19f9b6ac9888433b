// npm run bench: every part of the probe benchmark in one run, one table on stdout and
// the figures in bench-results/probe.json (see docs/benchmarks.md, "Performance"). The parts run
// alone too: npm run bench:fidelity | bench:overhead | bench:ticks | bench:scale | bench:replay.
// npm then runs memory.py (bench:memory): no Node process, and slowdisk on a private copy of
// node, so that nothing else shares its pages of the binary when its PSS is read.
import { fidelity } from './fidelity.js';
import { runParts } from './lib.js';
import { overhead } from './overhead.js';
import { replay } from './replay.js';
import { SCALE_PART, scale } from './scale.js';
import { ticks } from './ticks.js';

await runParts([
  { name: 'fidelity', run: fidelity },
  { name: 'overhead', run: overhead },
  { name: 'ticks', run: ticks },
  { name: SCALE_PART, run: scale },
  { name: 'replay', run: replay },
]);
