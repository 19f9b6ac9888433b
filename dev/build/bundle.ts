// Bundles what each process of slowdisk loads into dist/bundle/, the JavaScript the package
// ships: the CLI (main.js), `status` on its own (status-main.js), the prober (prober.js), the
// output writer (writer-child.js), what bin/slowdisk.js loads before any of them
// (debug-signal.js) and the native layer's typed API (addon.js), their shared code in chunks
// beside them, their dependencies inlined. The session (probe-session.js) is an entry too, so
// that the benchmarks' observer (dev/bench/observer.ts) reaches the very class the CLI
// runs. A process then reads a handful of files at start, not the 100 or so modules tsc
// writes, which is most of what a cron check or a Nagios `status` costs before it does
// anything. The code finds the package.json, the addon and the prober's and writer's entries
// from the package's root, walked up to from wherever it runs (src/common/package-root.ts),
// so those paths are the same bundled or not.
import path from 'node:path';
import { build } from 'rolldown';
import { REPO_ROOT } from '../repo-root.js';

const dist = (file: string): string => path.join(REPO_ROOT, 'dist', file);

const ENTRIES = {
  main: dist('cli/main.js'),
  'status-main': dist('cli/status-main.js'),
  prober: dist('prober/prober-with-outputs.js'),
  'writer-child': dist('output/writer-child.js'),
  'debug-signal': dist('common/debug-signal.js'),
  addon: dist('native/addon.js'),
  'probe-session': dist('live/probe-session.js'),
};

await build({
  input: ENTRIES,
  platform: 'node',
  // The addon is found at run time (node-gyp-build, from the package root): never bundled.
  external: ['node-gyp-build'],
  logLevel: 'warn',
  output: { dir: dist('bundle'), format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunk-[hash].js', cleanDir: true },
});
