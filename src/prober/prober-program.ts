// Which program a probe run's prober runs: prober-with-outputs.ts, built and bundled
// (dev/build/bundle.ts; src/output and dist/bundle both sit two levels below the package
// root).
import { fileURLToPath } from 'node:url';
import type { ProberProgram } from '../probe/prober-protocol.js';
import { OUTPUT_THREADS } from '../output/output-params.js';

export const PROBER_WITH_OUTPUTS: ProberProgram = {
  entry: fileURLToPath(new URL('../../dist/bundle/prober.js', import.meta.url)),
  env: { UV_THREADPOOL_SIZE: OUTPUT_THREADS },
};
