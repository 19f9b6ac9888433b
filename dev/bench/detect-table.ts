// The detection benchmark's table (dev/bench/detect.ts), as it prints it.
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { DEFAULT_FIXED_THRESHOLD_PARAMS } from '../baselines/fixed-threshold.js';
import { fmtS, pct, type DetectorSummary, type Row } from './detect-figures.js';
import { DETECTORS, type DetectorName } from './detect-runs.js';
import type { Target } from './detect-targets.js';

const DETECTOR_TITLES: Readonly<Record<DetectorName, string>> = {
  statistical: 'statistical (confirmed)',
  rules: "article's rules alone",
  tail: 'tail (confirmed)',
  slowScore: `slow score (evict at ${DEFAULT_SCORE_PARAMS.evictThreshold})`,
  fixed: `fixed (${DEFAULT_FIXED_THRESHOLD_PARAMS.alarmCount} IOs >=${DEFAULT_FIXED_THRESHOLD_PARAMS.slowMs}ms/min)`,
};

interface SeedFigure {
  meanDetectionS: number;
  falseAlarmPercent: number;
  note?: string;
}

/** The figures CTyun's slow-disk detection article publishes (its own simulation; not the same scenarios). */
export const SEED_FIGURES: Readonly<Partial<Record<DetectorName, SeedFigure>>> = {
  rules: { meanDetectionS: 92, falseAlarmPercent: 1.3, note: 'false-alarm rate "within 1.3 %"' },
  fixed: { meanDetectionS: 12 * 60, falseAlarmPercent: 7.8 },
};

const fmtFa = (x: number | null) => (x === null ? '-' : x === 0 ? '0' : x < 10 ? x.toFixed(2) : x.toFixed(1));

/** The table the benchmark prints: a row per scenario and host, a group of columns per detector, then the targets. */
export function table(rows: readonly Row[], options: Readonly<{ runs: number; diskHours: number; seed: number }>, summaryFigures: Record<DetectorName, DetectorSummary>, targetList: readonly Target[], elapsedS: number): string {
  const lines: string[] = [];
  const W = { scenario: 14, host: 7, cell: [5, 6, 6, 8] };
  const group = (cells: readonly string[]) => cells.map((c, i) => String(c).padStart(W.cell[i])).join(' ');
  const groupWidth = W.cell.reduce((a, w) => a + w, 0) + W.cell.length - 1;
  lines.push(
    `Detection benchmark: ${options.runs} runs per fault scenario and host (onset at 5-6 min, 15 min observed after it), ` +
      `>= ${options.diskHours} disk-hours per host of each scenario without a fault (1 h runs); seeds from ${options.seed}; ${elapsedS.toFixed(0)} s.`,
  );
  lines.push(
    `${''.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map((d) => DETECTOR_TITLES[d].padEnd(groupWidth).slice(0, groupWidth)).join(' | ')}`,
  );
  lines.push(
    `${'scenario'.padEnd(W.scenario)} ${'host'.padEnd(W.host)}  ${DETECTORS.map(() => group(['rate', 'median', 'p90', 'FA/100dh'])).join(' | ')}`,
  );
  lines.push('-'.repeat(W.scenario + W.host + 3 + DETECTORS.length * (groupWidth + 3) - 3));
  for (const row of rows) {
    const cells = DETECTORS.map((d) => {
      const x = row.detectors[d];
      return group(row.faulty ? [pct(x.detectionRate), fmtS(x.medianS), fmtS(x.p90S), fmtFa(x.falseAlarmsPer100DiskHours)] : ['', '', '', fmtFa(x.falseAlarmsPer100DiskHours)]);
    });
    lines.push(`${row.scenario.padEnd(W.scenario)} ${row.host.padEnd(W.host)}  ${cells.join(' | ')}`);
  }
  lines.push('-'.repeat(W.scenario + W.host + 3 + DETECTORS.length * (groupWidth + 3) - 3));
  const s = summaryFigures;
  const sumCell = (d: DetectorName) =>
    `mean ${fmtS(s[d].meanDetectionS)} (${pct(s[d].detectionRate)}), FA ${s[d].falseAlarmSharePercent.toFixed(1)}%`.padEnd(groupWidth).slice(0, groupWidth);
  lines.push(`${'all faults'.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map(sumCell).join(' | ')}`);
  const seedCell = (d: DetectorName) => {
    const seed = SEED_FIGURES[d];
    return (seed ? `mean ${fmtS(seed.meanDetectionS)}, FA ${seed.falseAlarmPercent}%` : 'not in the article').padEnd(groupWidth).slice(0, groupWidth);
  };
  lines.push(`${'CTyun article'.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map(seedCell).join(' | ')}`);
  lines.push('');
  lines.push('rate: runs whose faulty disk alarmed after the onset; median, p90: onset to alarm over the runs that alarmed;');
  lines.push('FA/100dh: alarms on healthy disks (and on the faulty disk before its onset) per 100 disk-hours.');
  lines.push('all faults: mean onset-to-alarm over every fault run that alarmed (share of runs), FA: share of all alarms that were false.');
  lines.push("CTyun article: the article's own simulation (other scenarios; its false-alarm rate is a share, its basis unstated).");
  const heal = rows.filter((r) => r.kind === 'heal');
  const CLEARED: Readonly<Record<DetectorName, string>> = { statistical: 'statistical back to ok', rules: "article's rules back to ok", tail: 'tail back to ok', slowScore: 'slow score back to 1', fixed: 'fixed threshold cleared' };
  for (const r of heal) {
    const parts = DETECTORS.map((d) => {
      const c = r.detectors[d].clearedAfterHeal!;
      const alarmed = r.detectors[d].detected ?? 0;
      return `${CLEARED[d]} in ${c.runs} of ${alarmed} alarmed runs${c.runs ? ` (median ${fmtS(c.medianS)} after the heal)` : ''}`;
    });
    lines.push(`heal, ${r.host}: ${parts.join('; ')}.`);
  }
  const hostWide = rows.filter((r) => r.kind === 'peak');
  for (const r of hostWide) {
    lines.push(`peak, ${r.host}: statistical reported host-wide ${r.hostWideEpisodes} times (disk episodes) over ${r.runs} peaks; suspect ${r.suspectEpisodes} times.`);
  }
  lines.push('');
  lines.push('Targets:');
  for (const t of targetList) lines.push(`  ${t.met === null ? '   ' : t.met ? 'MET' : 'NOT'}  ${t.target}: ${t.figures}`);
  return lines.join('\n');
}
