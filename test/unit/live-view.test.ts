// The live view's frame in each state a disk or the run can be in, at 80 and 60 columns: the
// header is the run's verdict with its reason, every line fits the terminal, and the states
// are coloured by severity only when colour is wanted.
import { describe, expect, it } from 'vitest';
import type { DiskStatus } from '../../src/live/session-events.js';
import { eventLineText, liveViewText, viewVerdict, type LiveFrame } from '../../src/terminal/live-view-text.js';
import type { Severity } from '../../src/score/store-score.js';
import type { Prediction } from '../../src/early-warning/predictor.js';

const PARAMS = { slowThreshold: 80, evictThreshold: 100 };
const HUNG_SINCE = Date.UTC(2026, 11, 1, 8, 27, 55);

function disk(name: string, dir: string, extra: Partial<DiskStatus> = {}): DiskStatus {
  return {
    name,
    dir,
    inspected: true,
    device: '7:3',
    memoryBacked: false,
    state: 'up',
    score: 1,
    inspections: 1180,
    errors: 0,
    statistical: 'ok',
    blockDevices: [name === 'raft' ? 'nvme0n1' : 'nvme1n1'],
    stalledDevices: [],
    last: { openMs: 0.01, writeMs: 0.21, syncMs: 0.13, readMs: 0.08, closeMs: 0.01, totalMs: 0.44 },
    ...extra,
  };
}

const prediction = (probability: number, warning: boolean): Prediction => ({
  atMs: 0,
  probability,
  warning,
  cleared: null,
  model: 'network',
  samples: 20,
  p99Ms: 3,
  missing: [],
  ignored: [],
});

const raft = disk('raft', '/data/tikv/raft');
const kv = (extra: Partial<DiskStatus>) => disk('kv', '/data/tikv/db', extra);

/** Each state: the run's verdict so far, the store score, the disks. */
const STATES: Record<string, { run: Severity; storeScore: number; disks: DiskStatus[] }> = {
  healthy: { run: 'ok', storeScore: 1, disks: [raft, kv({})] },
  starting: { run: 'ok', storeScore: 1, disks: [{ ...raft, state: 'starting', inspections: 0, last: undefined }, { ...kv({}), state: 'starting', inspections: 0, last: undefined }] },
  waiting: { run: 'ok', storeScore: 1, disks: [raft, kv({ waitingMs: 1300 })] },
  hung: { run: 'slow', storeScore: 16, disks: [raft, kv({ state: 'hung', score: 16, waitingMs: 12_400, hungSinceMs: HUNG_SINCE, stalledDevices: ['nvme1n1'] })] },
  down: {
    // A disk that cannot be written (EROFS) makes the run CRITICAL at once.
    run: 'evict',
    storeScore: 4,
    disks: [
      raft,
      kv({
        state: 'down',
        score: 4,
        error: { code: 'EROFS', errno: 30, syscall: 'open', path: '/data/tikv/db/.slowdisk-probe-4242-x1y2z3', message: 'EROFS: open /data/tikv/db/.slowdisk-probe-4242-x1y2z3' },
      }),
    ],
  },
  slow: { run: 'slow', storeScore: 85.5, disks: [raft, kv({ score: 85.5 })] },
  confirmed: { run: 'slow', storeScore: 1, disks: [raft, kv({ statistical: 'confirmed', last: { openMs: 0.01, writeMs: 0.4, syncMs: 3.1, readMs: 0.2, closeMs: 0.01, totalMs: 3.7 } })] },
  warning: { run: 'slow', storeScore: 1, disks: [raft, kv({ prediction: prediction(0.13, true) })] },
  evicted: { run: 'evict', storeScore: 100, disks: [raft, kv({ state: 'hung', score: 100, waitingMs: 21_300, hungSinceMs: HUNG_SINCE })] },
  // At the eviction threshold only because others' I/O keeps its device busy: held, not evicted.
  busy: { run: 'slow', storeScore: 100, disks: [raft, kv({ score: 100, cause: 'load', held: 'load' })] },
  earlier: { run: 'slow', storeScore: 12, disks: [raft, kv({ score: 12 })] },
};

function frame(state: keyof typeof STATES, columns: number, colour = false): LiveFrame {
  const { run, storeScore, disks } = STATES[state]!;
  return { verdict: viewVerdict(run, storeScore, disks, PARAMS), storeScore, tick: 1230, elapsedMs: 123_000, disks, params: PARAMS, buffered: false, columns, colour };
}

describe('the live view', () => {
  for (const columns of [80, 60]) {
    for (const state of Object.keys(STATES)) {
      it(`${state} at ${columns} columns`, () => {
        const text = liveViewText(frame(state, columns));
        for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
        expect(text).not.toMatch(/\x1b/);
        expect(text).toMatchSnapshot();
      });
    }
  }

  it('the header is the run verdict and its reason, the severity the exit code has now', () => {
    const header = (state: string) => liveViewText(frame(state, 80)).split('\n')[0];
    expect(header('healthy')).toMatch(/^OK {2}store 1 /);
    expect(header('hung')).toMatch(/^WARNING hung {2}store 16 /);
    expect(header('down')).toMatch(/^CRITICAL down {2}store 4 /);
    expect(header('slow')).toMatch(/^WARNING slow {2}store 85 /);
    expect(header('confirmed')).toMatch(/^WARNING confirmed /);
    expect(header('warning')).toMatch(/^WARNING warning /);
    expect(header('evicted')).toMatch(/^CRITICAL evict {2}store 100 /);
    expect(header('busy')).toMatch(/^WARNING busy {2}store 100 /);
    // A hang that is over still makes the run WARNING: its exit code says so.
    expect(header('earlier')).toMatch(/^WARNING \(earlier\) {2}store 12 /);
  });

  it('a warning whose probability fell since shows the state, the figure as today\'s, not as the warning\'s', () => {
    expect(liveViewText(frame('warning', 80))).toMatch(/^ {2}kv +1\.00 up .* warning \(predict 0\.13\)/m);
  });

  it('colours the states by severity on a colour terminal', () => {
    const yellow = '\x1b[33m';
    const red = '\x1b[1;31m';
    const green = '\x1b[32m';
    expect(liveViewText(frame('healthy', 80, true))).toContain(`${green}OK\x1b[0m`);
    const hung = liveViewText(frame('hung', 80, true));
    expect(hung).toContain(`${yellow}WARNING\x1b[0m ${yellow}hung\x1b[0m`);
    expect(hung).toMatch(new RegExp(`kv .*\\x1b\\[33mhung\\x1b\\[0m`));
    const evicted = liveViewText(frame('evicted', 80, true));
    expect(evicted).toContain(`${red}CRITICAL\x1b[0m`);
    expect(evicted).toContain(`${red}  100\x1b[0m`);
    // Colour takes no column: the same text without it.
    expect(evicted.replace(/\x1b\[[\d;]*m/g, '')).toBe(liveViewText(frame('evicted', 80)));
  });

  it('a terminal narrower still cuts a line with an ellipsis rather than wrap it', () => {
    const text = liveViewText(frame('down', 30));
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(30);
    expect(text).toMatch(/…$/m);
  });

  it('an event above the view starts with the time of day and is cut to the width, not wrapped', () => {
    const hung = 'kv is hung: an inspection in flight for 5.0s since 2026-12-01T08:27:55Z';
    expect(eventLineText('08:28:00', hung, 80)).toBe(`08:28:00 ${hung}`);
    const narrow = eventLineText('08:28:00', hung, 60);
    expect(narrow).toHaveLength(60);
    expect(narrow).toMatch(/^08:28:00 kv is hung: an inspection in flight for 5\.0s .*…$/);
    expect(eventLineText('08:28:00', 'kv\x1b[2J is back', 80)).toBe('08:28:00 kv\\x1b[2J is back');
  });
});
