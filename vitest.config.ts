import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    reporters: ['default', './test/helpers/slowest-files-reporter.ts'],
    projects: [
      {
        // Pure tests: no root, no loop device, no external tool, no network port. They may
        // run the built CLI on a temp directory or a trace.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Pure too, but checks of what development scripts make (the predictor's weights are
        // what training gives): run by npm test, left out of test:unit for its minute of CPU.
        test: {
          name: 'dev',
          include: ['test/dev/**/*.test.ts'],
          testTimeout: 300_000,
          // Alone, after the unit tests: its CPU would starve their timed runs of the CLI.
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Real disks, faults and tools, as root. One file at a time, after the others:
        // they time real disks, and two of them sharing two cores and one backing disk would
        // blur what each measures.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
