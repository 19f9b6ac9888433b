// Which program a probe run's prober runs: prober-with-outputs.ts, built and bundled by
// dev/build/bundle.ts.
import path from 'node:path';
import { PACKAGE_ROOT } from '../common/package-root.js';
import type { ProberProgram } from '../probe/prober-protocol.js';
import { OUTPUT_THREADS } from '../output/output-params.js';

export const PROBER_WITH_OUTPUTS: ProberProgram = {
  entry: path.join(PACKAGE_ROOT, 'dist/bundle/prober.js'),
  env: { UV_THREADPOOL_SIZE: OUTPUT_THREADS },
};
