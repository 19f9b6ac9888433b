import { describe, expect, it } from 'vitest';
import { medianInPlace, sortedMedian } from '../../src/common/robust-stats.js';
import { detectorSeverity } from '../../src/detectors/severity.js';
import { mediansOfOthers, StatisticalDetector, type DetectorState, type StateChange } from '../../src/detectors/statistical-detector.js';
import { DEFAULT_STATISTICAL_PARAMS, statisticalParams, type StatisticalParams } from '../../src/detectors/statistical-params.js';
import { DEFAULT_FIXED_THRESHOLD_PARAMS, FixedThresholdDetector } from '../../dev/baselines/fixed-threshold.js';
import { Rng, ScenarioGenerator } from '../../dev/scenarios/index.js';
import { worseSeverity } from '../../src/score/store-score.js';

const TICK = 100;

/** A disk's latency at a tick: a number, or null for a tick without a result. */
type Latency = (tick: number, rng: Rng) => number | null;

/** Lognormal around `median` (log-space deviation 0.3): a healthy disk. */
const healthy =
  (median: number): Latency =>
  (_tick, rng) =>
    rng.lognormal(median, 0.3);

/** `before` until `fromS`, then `after` (until `toS`, then `before` again). */
const step =
  (before: Latency, after: Latency, fromS: number, toS = Infinity): Latency =>
  (tick, rng) => {
    const s = (tick * TICK) / 1000;
    return s >= fromS && s < toS ? after(tick, rng) : before(tick, rng);
  };

const times =
  (latency: Latency, factor: number): Latency =>
  (tick, rng) => {
    const ms = latency(tick, rng);
    return ms === null ? null : ms * factor;
  };

interface Run {
  detector: StatisticalDetector;
  changes: StateChange[];
  /** Each disk's state at every whole second. */
  states: Map<string, DetectorState[]>;
}

/** Feeds the disks tick by tick (100 ms) for `seconds`, as replay would. */
function run(disks: Record<string, Latency>, seconds: number, params: Partial<StatisticalParams> = {}, seed = 1): Run {
  const changes: StateChange[] = [];
  const detector = new StatisticalDetector({ ...DEFAULT_STATISTICAL_PARAMS, ...params }, { onChange: (c) => changes.push(c) });
  const rngs = Object.keys(disks).map((_, i) => new Rng(seed * 1000 + i));
  const states = new Map(Object.keys(disks).map((name) => [name, [] as DetectorState[]]));
  for (let tick = 1; tick <= (seconds * 1000) / TICK; tick += 1) {
    const t = tick * TICK;
    Object.entries(disks).forEach(([name, latency], i) => {
      const ms = latency(tick, rngs[i]);
      if (ms === null) detector.failure(name, t);
      else detector.observe(name, t, ms);
    });
    if (t % 1000 === 0) for (const name of Object.keys(disks)) states.get(name)!.push(detector.state(name));
  }
  return { detector, changes, states };
}

const changesOf = (r: Run, disk: string) => r.changes.filter((c) => c.disk === disk);
const firstChange = (r: Run, disk: string, to: DetectorState) => changesOf(r, disk).find((c) => c.to === to)?.atMs ?? null;

describe("the statistical detector: the article's layered rule on one disk (own history only)", () => {
  const ONSET = 120;
  /** The article's rules alone: the fast path off. */
  const RULES = { fastBudget: 0 };

  it('stays ok on a healthy disk', () => {
    const r = run({ a: healthy(1) }, 600);
    expect(r.changes).toEqual([]);
    expect(r.detector.state('a')).toBe('ok');
    expect(r.detector.judged('a')).toBe(true);
  });

  it('turns suspect after 10 s of deviating, not sooner', () => {
    const r = run({ a: step(healthy(1), healthy(2), ONSET) }, ONSET + 30);
    const suspect = firstChange(r, 'a', 'suspect');
    expect(suspect).not.toBeNull();
    // The 5 s median turns within 3 s of the onset, then 10 s of deviating steps.
    expect(suspect! - ONSET * 1000).toBeGreaterThanOrEqual(10_000);
    expect(suspect! - ONSET * 1000).toBeLessThanOrEqual(13_000);
  });

  it('confirms after 60 s more of observation, and the baseline stays frozen at the healthy disk', () => {
    const r = run({ a: step(healthy(1), healthy(2), ONSET) }, ONSET + 400, RULES);
    const suspect = firstChange(r, 'a', 'suspect')!;
    const confirmed = firstChange(r, 'a', 'confirmed')!;
    expect(confirmed - suspect).toBe(60_000);
    // Still confirmed 5 minutes in, never cleared: its own slow samples never became its baseline.
    expect(r.detector.state('a')).toBe('confirmed');
    expect(changesOf(r, 'a').map((change) => change.to)).toEqual(['suspect', 'confirmed']);
  });

  it('cancels the suspicion when the deviation falls back (a short congestion)', () => {
    const r = run({ a: step(healthy(1), healthy(3), ONSET, ONSET + 25) }, ONSET + 200, RULES);
    expect(firstChange(r, 'a', 'suspect')).not.toBeNull();
    expect(firstChange(r, 'a', 'confirmed')).toBeNull();
    const cancelled = changesOf(r, 'a').find((c) => c.from === 'suspect' && c.to === 'ok')!;
    // Falls back within the statistic's 5 s plus 10 s of steps under the threshold.
    expect(cancelled.atMs - (ONSET + 25) * 1000).toBeLessThanOrEqual(16_000);
    expect(r.detector.state('a')).toBe('ok');
  });

  it('does not even suspect a burst shorter than 10 s', () => {
    const r = run({ a: step(healthy(1), healthy(5), ONSET, ONSET + 5) }, ONSET + 60);
    expect(r.changes).toEqual([]);
  });

  it('confirms when more than 70 % of the observed steps deviate, cancels at 70 % or less', () => {
    // One-second statistic, so that each step is exactly the second it judges.
    const params = { statisticMs: 1000, ...RULES };
    // Slow, except for healthy seconds: 1 in 5 (80 % deviate), then 2 in 5 (60 % deviate).
    const pattern = (healthyEvery: number[]) =>
      step(healthy(1), (tick, rng) => (healthyEvery.includes(Math.floor((tick * TICK) / 1000) % 5) ? rng.lognormal(1, 0.3) : rng.lognormal(2, 0.3)), ONSET + 12);
    // The first 12 s slow in a row, so that both turn suspect at the same time.
    const slowFirst = (p: Latency) => step(p, healthy(2), ONSET, ONSET + 12);
    const eighty = run({ a: slowFirst(pattern([0])) }, ONSET + 120, params);
    expect(firstChange(eighty, 'a', 'suspect')).not.toBeNull();
    expect(firstChange(eighty, 'a', 'confirmed')).not.toBeNull();
    const sixty = run({ a: slowFirst(pattern([0, 2])) }, ONSET + 120, params);
    expect(firstChange(sixty, 'a', 'suspect')).not.toBeNull();
    expect(firstChange(sixty, 'a', 'confirmed')).toBeNull();
  });

  it('clears a confirmed disk once it is healthy again, and judges it against its old baseline', () => {
    const r = run({ a: step(healthy(1), healthy(3), ONSET, ONSET + 180) }, ONSET + 400);
    const confirmed = firstChange(r, 'a', 'confirmed')!;
    const cleared = changesOf(r, 'a').find((c) => c.from === 'confirmed' && c.to === 'ok')!;
    expect(confirmed).toBeLessThan((ONSET + 180) * 1000);
    // More than 70 % of a minute back under the threshold: 42 s and the statistic's lag.
    expect(cleared.atMs - (ONSET + 180) * 1000).toBeGreaterThanOrEqual(42_000);
    expect(cleared.atMs - (ONSET + 180) * 1000).toBeLessThanOrEqual(50_000);
    expect(r.detector.state('a')).toBe('ok');
  });

  it('counts a tick without a result as a 100 ms inspection: a hang is confirmed in about 70 s', () => {
    const r = run({ a: step(healthy(1), () => null, ONSET) }, ONSET + 120, RULES);
    const confirmed = firstChange(r, 'a', 'confirmed')!;
    expect(confirmed - ONSET * 1000).toBeGreaterThanOrEqual(70_000);
    expect(confirmed - ONSET * 1000).toBeLessThanOrEqual(75_000);
  });

  it('waits for a baseline: nothing is judged in the first 30 s', () => {
    const r = run({ a: step(healthy(5), healthy(50), 10) }, 29);
    expect(r.detector.judged('a')).toBe(false);
    expect(r.changes).toEqual([]);
    expect(run({ a: healthy(5) }, 40).detector.judged('a')).toBe(true);
  });
});

describe('the fast path', () => {
  const ONSET = 120;

  it('confirms a x2 slowdown once four fresh statistics show it, under 20 s after the onset, and says so', () => {
    const r = run({ a: step(healthy(1), healthy(2), ONSET) }, ONSET + 60);
    const confirmed = firstChange(r, 'a', 'confirmed')!;
    expect(confirmed - ONSET * 1000).toBeGreaterThanOrEqual(15_000);
    expect(confirmed - ONSET * 1000).toBeLessThanOrEqual(20_000);
    const confirmation = r.detector.confirmation('a')!;
    expect(confirmation.path).toBe('fast');
    // Four statistics 5 s apart, the first where the slowdown had filled it: 15 s at least.
    expect(confirmation.afterMs).toBeGreaterThanOrEqual(15_000);
    expect(confirmation.afterMs).toBeLessThanOrEqual(19_000);
    // ln(5 sequences / the budget of 1e-4).
    expect(confirmation.threshold).toBeCloseTo(Math.log(5e4), 6);
    expect(confirmation.evidence).toBeGreaterThanOrEqual(confirmation.threshold);
    // The article's rules alone would take their minute of observation.
    const rules = run({ a: step(healthy(1), healthy(2), ONSET) }, ONSET + 120, { fastBudget: 0 });
    expect(firstChange(rules, 'a', 'confirmed')! - firstChange(rules, 'a', 'suspect')!).toBe(60_000);
    expect(rules.detector.confirmation('a')!.path).toBe('rules');
  });

  it('does not confirm a congestion of 12 s, however strong; one of 20 s it does', () => {
    const short = run({ a: step(healthy(1), healthy(10), ONSET, ONSET + 12) }, ONSET + 120);
    expect(firstChange(short, 'a', 'suspect')).not.toBeNull();
    expect(firstChange(short, 'a', 'confirmed')).toBeNull();
    const longer = run({ a: step(healthy(1), healthy(10), ONSET, ONSET + 20) }, ONSET + 120);
    expect(firstChange(longer, 'a', 'confirmed')).not.toBeNull();
  });

  it('does not add up bursts back to back: three of 5 s, 3 s apart, are not confirmed; the same span slow throughout is', () => {
    const burst = (from: number) => (latency: Latency) => step(latency, times(latency, 5), ONSET + from, ONSET + from + 5);
    const bursts = burst(0)(burst(8)(burst(16)(healthy(1))));
    for (const seed of [1, 2, 3]) {
      const r = run({ a: bursts }, ONSET + 120, {}, seed);
      // The 5 s statistic holds each burst through the gap after it: one deviating run of 20 s and more.
      expect(firstChange(r, 'a', 'suspect')).not.toBeNull();
      expect(firstChange(r, 'a', 'confirmed')).toBeNull();
    }
    const steady = run({ a: step(healthy(1), healthy(5), ONSET, ONSET + 21) }, ONSET + 120);
    expect(firstChange(steady, 'a', 'confirmed')).not.toBeNull();
  });

  it('confirms a x3 congestion of 25 s as the article would not, and lets it go within a minute of its end', () => {
    const r = run({ a: step(healthy(1), healthy(3), ONSET, ONSET + 25) }, ONSET + 200);
    expect(r.detector.confirmation('a')).toBeNull();
    const cleared = changesOf(r, 'a').find((c) => c.from === 'confirmed' && c.to === 'ok')!;
    expect(firstChange(r, 'a', 'confirmed')! - ONSET * 1000).toBeLessThanOrEqual(20_000);
    expect(cleared.atMs - (ONSET + 25) * 1000).toBeLessThanOrEqual(50_000);
  });

  it('leaves a deviation at the threshold to the article\'s rules: no fast confirmation', () => {
    // x1.3: 3.75 MADs of the 8 % floor, 3 standard deviations, what the test holds as doubt.
    for (const seed of [1, 2, 3]) {
      const paths: string[] = [];
      let suspicions = 0;
      const detector = new StatisticalDetector({}, {
        onChange: (c) => {
          if (c.to === 'suspect') suspicions += 1;
          if (c.to === 'confirmed') paths.push(detector.confirmation('a')!.path);
        },
      });
      const rng = new Rng(seed);
      const latency = step(healthy(1), healthy(1.3), ONSET);
      for (let tick = 1; tick <= ((ONSET + 300) * 1000) / TICK; tick += 1) detector.observe('a', tick * TICK, latency(tick, rng)!);
      // Seen: suspect at least once; never confirmed by the fast path.
      expect(suspicions).toBeGreaterThan(0);
      expect(paths).not.toContain('fast');
    }
  });

  it('a smaller budget needs more evidence: x1.5 is confirmed later, or by the rules', () => {
    const slowdown = { a: step(healthy(1), healthy(1.5), ONSET) };
    const loose = run(slowdown, ONSET + 200, { fastBudget: 1e-2 });
    const strict = run(slowdown, ONSET + 200, { fastBudget: 1e-12 });
    expect(loose.detector.confirmation('a')!.path).toBe('fast');
    expect(firstChange(strict, 'a', 'confirmed')!).toBeGreaterThan(firstChange(loose, 'a', 'confirmed')!);
  });

  it('the step share and the alternative are parameters: a congestion of 12 s is confirmed when one step may count for all', () => {
    const congestion = { a: step(healthy(1), healthy(10), ONSET, ONSET + 12) };
    expect(firstChange(run(congestion, ONSET + 120), 'a', 'confirmed')).toBeNull();
    expect(firstChange(run(congestion, ONSET + 120, { fastStepShare: 1 }), 'a', 'confirmed')).not.toBeNull();
    // x1.4 deviates by 5 MADs of the 8 % floor, 1.7 times the threshold: evidence for a deviation
    // of 1.5 times the threshold, against one of three times it, which leaves it to the rules' minute.
    const firstPath = (params: Partial<StatisticalParams>) => {
      let path: string | null = null;
      const detector: StatisticalDetector = new StatisticalDetector({ fastBudget: 1e-2, ...params }, { onChange: (c) => (path ??= c.to === 'confirmed' ? detector.confirmation('a')!.path : null) });
      const rng = new Rng(1000);
      const latency = step(healthy(1), healthy(1.4), ONSET);
      for (let tick = 1; tick <= ((ONSET + 200) * 1000) / TICK; tick += 1) detector.observe('a', tick * TICK, latency(tick, rng)!);
      return path;
    };
    expect(firstPath({})).toBe('fast');
    expect(firstPath({ fastAlternative: 3 })).toBe('rules');
    expect(() => new StatisticalDetector({ fastAlternative: 1 })).toThrow(RangeError);
    expect(() => new StatisticalDetector({ fastStepShare: 0 })).toThrow(RangeError);
  });

  it('never confirms what slows every disk together', () => {
    const r = run({ a: step(healthy(1), healthy(4), ONSET), b: step(healthy(1), healthy(4), ONSET), c: step(healthy(1), healthy(4), ONSET) }, ONSET + 200);
    expect(r.changes.filter((c) => c.to === 'confirmed')).toEqual([]);
  });
});

describe('the MAD floor', () => {
  it('does not divide by zero on quantised latencies, and still sees a change of the quantum', () => {
    const flat = run({ a: () => 1 }, 300);
    expect(flat.detector.judged('a')).toBe(true);
    expect(flat.changes).toEqual([]);

    const doubled = run({ a: step(() => 1, () => 2, 120) }, 300);
    expect(firstChange(doubled, 'a', 'confirmed')).not.toBeNull();
  });

  it('uses the absolute floor when the median itself is 0', () => {
    const r = run({ a: () => 0 }, 120);
    expect(r.detector.judged('a')).toBe(true);
    expect(r.changes).toEqual([]);
    // Under the floor (0.01 ms x the threshold), a change is not a deviation; well over it, it is.
    expect(run({ a: step(() => 0, () => 0.02, 120) }, 300).changes).toEqual([]);
    expect(firstChange(run({ a: step(() => 0, () => 1, 120) }, 300), 'a', 'confirmed')).not.toBeNull();
  });

  it('does not flag a change smaller than threshold x madFloorRatio on a steady disk', () => {
    const r = run({ a: step(() => 1, () => 1.2, 120) }, 400);
    expect(r.changes).toEqual([]);
  });
});

describe('the peer condition and host-wide', () => {
  const ONSET = 120;
  const host = (n: number, slow: (name: string, base: Latency) => Latency) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`d${i}`, slow(`d${i}`, healthy(1 + i / 10))]));

  it('confirms the one disk that is slower than its peers, and only that one', () => {
    const r = run(
      host(6, (name, base) => (name === 'd2' ? step(base, times(base, 2), ONSET) : base)),
      ONSET + 120,
    );
    expect(r.detector.state('d2')).toBe('confirmed');
    for (const name of ['d0', 'd1', 'd3', 'd4', 'd5']) expect(changesOf(r, name)).toEqual([]);
  });

  it('reports host-wide, not slow, when most disks deviate together (a peak, a controller)', () => {
    const r = run(
      host(6, (_name, base) => step(base, times(base, 4), ONSET, ONSET + 120)),
      ONSET + 240,
    );
    for (const name of Object.keys(host(6, (_n, b) => b))) {
      expect(firstChange(r, name, 'suspect')).toBeNull();
      expect(firstChange(r, name, 'confirmed')).toBeNull();
      const hostWide = firstChange(r, name, 'host-wide');
      expect(hostWide).not.toBeNull();
      expect(hostWide! - ONSET * 1000).toBeLessThanOrEqual(15_000);
      expect(r.detector.state(name)).not.toBe('confirmed');
    }
    // The baselines follow a lasting load change: host-wide ends by itself, before the peak does.
    const ended = changesOf(r, 'd0').find((c) => c.from === 'host-wide' && c.to === 'ok');
    expect(ended).toBeDefined();
    expect(ended!.atMs).toBeLessThan((ONSET + 120) * 1000);
    expect(r.detector.state('d0')).toBe('ok');
  });

  it('with two disks, both slower together are host-wide; one slower is confirmed', () => {
    const both = run({ raft: step(healthy(0.5), healthy(2), ONSET), kv: step(healthy(0.8), healthy(3.2), ONSET) }, ONSET + 120);
    expect(firstChange(both, 'raft', 'confirmed')).toBeNull();
    expect(firstChange(both, 'kv', 'confirmed')).toBeNull();
    expect(firstChange(both, 'raft', 'host-wide')).not.toBeNull();

    const one = run({ raft: healthy(0.5), kv: step(healthy(0.8), healthy(1.6), ONSET) }, ONSET + 120);
    expect(one.detector.state('kv')).toBe('confirmed');
    expect(changesOf(one, 'raft')).toEqual([]);
  });

  it('without the peer condition, a shared slowdown is confirmed on every disk (own history only)', () => {
    const r = run(
      { a: step(healthy(1), healthy(3), ONSET), b: step(healthy(1), healthy(3), ONSET), c: healthy(1) },
      ONSET + 120,
      { peerCondition: false, hostWideShare: 0.9 },
    );
    expect(r.detector.state('a')).toBe('confirmed');
    expect(r.detector.state('b')).toBe('confirmed');
  });

  it('does not take a drop in the host load as a recovery of the slow disk', () => {
    // d2 is x1.5 slower from ONSET; from ONSET+30 the whole host gets 30 % faster.
    const load = (base: Latency): Latency => step(base, times(base, 0.7), ONSET + 30);
    const r = run(
      host(6, (name, base) => (name === 'd2' ? load(step(base, times(base, 1.5), ONSET)) : load(base))),
      ONSET + 300,
    );
    expect(r.detector.state('d2')).toBe('confirmed');
    expect(changesOf(r, 'd2').filter((c) => c.to === 'ok')).toEqual([]);
    for (const name of ['d0', 'd1', 'd3', 'd4', 'd5']) expect(firstChange(r, name, 'confirmed')).toBeNull();
  });

  it('forgets a disk: it is no longer anyone\'s peer', () => {
    const r = run({ a: healthy(1), b: healthy(1) }, 60);
    r.detector.forget('b');
    expect(r.detector.state('b')).toBe('ok');
    expect(r.detector.judged('b')).toBe(false);
    expect(r.detector.judged('a')).toBe(true);
  });
});

describe('detector plumbing', () => {
  it('rejects parameters the rules cannot work with', () => {
    expect(() => statisticalParams({ threshold: 0 })).toThrow(RangeError);
    expect(() => statisticalParams({ confirmShare: 1 })).toThrow(RangeError);
    expect(() => statisticalParams({ madFloorMs: 0, madFloorRatio: 0 })).toThrow(/divide by zero/);
    expect(() => statisticalParams({ suspectAfterMs: 500 })).toThrow(RangeError);
    expect(() => new StatisticalDetector().observe('a', 0, NaN)).toThrow(RangeError);
    expect(statisticalParams()).toEqual(DEFAULT_STATISTICAL_PARAMS);
  });

  it('maps states to a severity: confirmed is WARNING, or CRITICAL when asked', () => {
    expect(detectorSeverity(['ok', 'suspect', 'host-wide'])).toBe('ok');
    expect(detectorSeverity(['ok', 'confirmed'])).toBe('slow');
    expect(detectorSeverity(new Map([['a', 'confirmed' as const]]).values(), { confirmedIsCritical: true })).toBe('evict');
    expect(worseSeverity('slow', 'ok')).toBe('slow');
    expect(worseSeverity('slow', 'evict')).toBe('evict');
  });

  it('medianInPlace and mediansOfOthers agree with sorting', () => {
    const rng = new Rng(7);
    for (let n = 1; n < 40; n += 1) {
      const values = Array.from({ length: n }, () => Math.round(rng.uniform(0, 20)));
      const sorted = [...values].sort((a, b) => a - b);
      expect(medianInPlace(Float64Array.from(values))).toBe(sortedMedian(sorted));
      const others = mediansOfOthers(values);
      values.forEach((_, i) => {
        const rest = values.filter((_, j) => j !== i).sort((a, b) => a - b);
        expect(others[i]).toBe(n === 1 ? NaN : sortedMedian(rest));
      });
    }
  });
});

describe('the fixed-threshold baseline', () => {
  it('alarms at 10 slow IOs within a minute and clears below 5', () => {
    const fixed = new FixedThresholdDetector();
    expect(DEFAULT_FIXED_THRESHOLD_PARAMS.slowMs).toBe(100);
    for (let i = 0; i < 9; i += 1) expect(fixed.observe('a', i * 1000, 150)).toBe(false);
    expect(fixed.failure('a', 9000)).toBe(true);
    expect(fixed.observe('a', 30_000, 1)).toBe(true);
    // 60 s after the sixth one, only four are left in the window.
    expect(fixed.observe('a', 65_001, 1)).toBe(false);
    expect(fixed.alarmed('b')).toBe(false);
  });
});

describe('end to end on generated scenarios', () => {
  function detect(kind: 'slow' | 'healthy', seed: number) {
    const gen = new ScenarioGenerator({ kind, factor: 2, seed, disks: 2, media: 'ssd', durationMs: kind === 'slow' ? 900_000 : 3_600_000 });
    const changes: StateChange[] = [];
    const detector = new StatisticalDetector(DEFAULT_STATISTICAL_PARAMS, { onChange: (c) => changes.push(c) });
    const { intervalMs, disks } = gen.info;
    for (const { tick, lines } of gen.ticks()) {
      for (const disk of disks) {
        const line = lines.find((l) => l.disk === disk);
        if (line) detector.observe(disk, tick * intervalMs, line.ms);
        else detector.failure(disk, tick * intervalMs);
      }
    }
    return { info: gen.info, changes };
  }

  it('confirms a x2 slow disk within 90 s of the onset, and nothing else', () => {
    const { info, changes } = detect('slow', 11);
    const confirmed = changes.filter((c) => c.to === 'confirmed');
    expect(confirmed.map((c) => c.disk)).toEqual([info.slowDisk]);
    expect(confirmed[0].atMs - info.onsetMs!).toBeGreaterThan(0);
    expect(confirmed[0].atMs - info.onsetMs!).toBeLessThanOrEqual(90_000);
  });

  it('confirms nothing in an hour of a healthy host', () => {
    const { changes } = detect('healthy', 11);
    expect(changes.filter((c) => c.to === 'confirmed')).toEqual([]);
  });
});
