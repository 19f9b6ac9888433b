// The fitting of the shipped calibration (src/early-warning/calibration.ts), run by training on
// the validation selection's outputs.
import { logit, type PlattScaling } from '../../src/early-warning/calibration.js';

/**
 * The slope and intercept of least log-loss for these outputs and what followed them
 * (Newton's method on the two parameters; deterministic). Platt's smoothed targets keep it
 * finite when the outputs separate the labels perfectly.
 */
export function fitPlattScaling(raw: readonly number[], labels: readonly (0 | 1)[], iterations = 50): PlattScaling {
  if (raw.length === 0 || raw.length !== labels.length) throw new RangeError('calibration needs as many labels as outputs, at least one');
  const positives = labels.reduce<number>((n, y) => n + y, 0);
  const high = (positives + 1) / (positives + 2);
  const low = 1 / (raw.length - positives + 2);
  const z = raw.map(logit);
  let slope = 1;
  let intercept = 0;
  for (let it = 0; it < iterations; it += 1) {
    let [ga, gb, haa, hab, hbb] = [0, 0, 0, 0, 0];
    z.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-(slope * x + intercept)));
      const d = p - (labels[i] === 1 ? high : low);
      const w = Math.max(p * (1 - p), 1e-12);
      ga += d * x;
      gb += d;
      haa += w * x * x;
      hab += w * x;
      hbb += w;
    });
    const det = haa * hbb - hab * hab;
    if (!(Math.abs(det) > 1e-12)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    slope -= da;
    intercept -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  const rounded = (x: number): number => Number(x.toPrecision(7));
  return { slope: rounded(slope), intercept: rounded(intercept) };
}
