import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/helpers/long-first-sequencer.js';

// The unit files that replace a module (vi.mock): in a worker that keeps its modules from one
// file to the next, the replaced module would reach a file that did not ask for it. Those that
// replace only node:child_process, with the stub prober and nothing else, replace it alike:
// they share a worker, as the files that replace nothing do (the stub's state is one per
// process and each file leaves it healthy). The few others get a worker of their own each. A
// shared worker spares each file a process and the cold import of the same sources (about a
// second of CPU a file). A file that runs the CLI in-process shares too: each run starts on
// fresh modules (vi.resetModules), which costs it tens of milliseconds in a warm worker,
// against a second in a fresh one.
const UNIT_DIR = new URL('./test/unit/', import.meta.url);
const STUB_PROBER_MOCK = "vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));";
const unitTexts = readdirSync(UNIT_DIR)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => ({ file: `test/unit/${name}`, text: readFileSync(new URL(name, UNIT_DIR), 'utf8') }));
const mocks = (text: string) => text.split('vi.mock(').length - 1;
const mocksOnlyChildProcess = (text: string) => mocks(text) === 1 && text.includes(STUB_PROBER_MOCK);
const STUB_PROBER_UNIT = unitTexts.filter(({ text }) => mocksOnlyChildProcess(text)).map(({ file }) => file);
const ISOLATED_UNIT = unitTexts.filter(({ text }) => mocks(text) > 0 && !mocksOnlyChildProcess(text)).map(({ file }) => file);
// What the three unit projects share: they run first, two files at a time.
const UNIT_RUN = { testTimeout: 60_000, hookTimeout: 60_000, maxWorkers: 2, sequence: { groupOrder: 0 } };

// The e2e files that time the machine itself to the millisecond or to a second's window: a
// wait shown or not within 20 ms ticks, a CLI held up for 25 s and charged nothing, the 21 s
// from a hang to eviction and a hang named within --hang-after and 0.7 s, a loop disk's write
// rate and latency against dd's within 10 to 30 per cent, a stuck tick's own timings, a
// healthy disk that keeps score 1 for a minute beside a slow or frozen one (an inspection of
// over 100 ms, a prober starved of CPU that long, would raise it). They run alone, after the
// others, so that no other file's CPU or I/O is in what they measure. The other e2e files
// judge what a disk does over seconds to minutes (a tail, an early warning, a hook's run),
// with room for a busy machine, and run beside each other.
const TIMING_E2E = [
  'test/e2e/check-e2e.test.ts',
  'test/e2e/cli-held-up.test.ts',
  'test/e2e/faults-hung.test.ts',
  'test/e2e/faults-slow-hang.test.ts',
  'test/e2e/kernel-counters-e2e.test.ts',
  'test/e2e/live-view-no-phantom-wait.test.ts',
  'test/e2e/native-ticks.test.ts',
  'test/e2e/native.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    experimental: { fsModuleCache: true },
    sequence: { sequencer: LongFirstSequencer },
    reporters: ['default', './test/helpers/slowest-files-reporter.ts'],
    projects: [
      {
        // Pure tests: no root, no loop device, no external tool, no network port. They may
        // run the built CLI on a temp directory or a trace.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...STUB_PROBER_UNIT, ...ISOLATED_UNIT],
          isolate: false,
          ...UNIT_RUN,
        },
      },
      {
        test: {
          name: 'unit-stub-prober',
          include: STUB_PROBER_UNIT,
          isolate: false,
          ...UNIT_RUN,
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: ISOLATED_UNIT,
          ...UNIT_RUN,
        },
      },
      {
        // Pure too, but checks of what development scripts make (the predictor's weights are
        // what training gives, and calibrated on the benchmark's held-out runs): run by npm
        // test, left out of test:unit. Beside the unit tests: it trains (a minute of CPU) only
        // when the training's inputs changed.
        test: {
          name: 'dev',
          include: ['test/dev/**/*.test.ts'],
          testTimeout: 300_000,
          // A group's projects share one pool: the unit tests' size.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Real disks, faults and tools, as root, five files at a time on two cores: each file
        // makes its own loop disks, cgroups, state directories, store names and ports, and most
        // of the time waits on a disk's ticks rather than on the CPU (the group's files use
        // about a third of the two cores). The tail file waits five minutes on its disk's
        // baseline: the other four workers get through the rest of the group in that time.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: TIMING_E2E,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 5,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The timing files above: one at a time, once the others are done.
        test: {
          name: 'e2e-timing',
          include: TIMING_E2E,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
