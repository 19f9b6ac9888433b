import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suites wait for real scores on real (slow, frozen) disks.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file at a time: the end-to-end suites time real disks, and two of them sharing
    // two cores and one backing disk would blur what each measures.
    fileParallelism: false,
  },
});
