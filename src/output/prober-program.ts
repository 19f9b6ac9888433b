// Which program a probe run's prober runs: prober-with-outputs.ts, built (both src/output and
// dist/output sit two levels below the package root).
import { fileURLToPath } from 'node:url';
import type { ProberProgram } from '../prober/protocol.js';
import { OUTPUT_THREADS } from './params.js';

export const PROBER_WITH_OUTPUTS: ProberProgram = {
  entry: fileURLToPath(new URL('../../dist/output/prober-with-outputs.js', import.meta.url)),
  env: { UV_THREADPOOL_SIZE: OUTPUT_THREADS },
};
