import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suites wait for real scores on real (slow, frozen) disks.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
