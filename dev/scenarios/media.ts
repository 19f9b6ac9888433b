// Healthy latency of one inspection (an O_DIRECT write, an fdatasync, an O_DIRECT read of
// 4 KiB) on an SSD-like and an HDD-like disk. Each disk of a host draws its own parameters
// from the ranges below, once; then each inspection draws a latency. The ranges come from
// the usual orders of magnitude of such devices, not from any detector's thresholds.
import type { Rng } from './prng.js';

export type Media = 'ssd' | 'hdd';

export const MEDIA: readonly Media[] = ['ssd', 'hdd'];

/** The ranges each disk's parameters are drawn from (uniformly), and the fixed shape of the tail. */
export const MEDIA_RANGES = Object.freeze({
  ssd: Object.freeze({
    /** Median inspection latency: flash write + flush + read, 0.2 to 1 ms. */
    medianMs: [0.2, 1.0] as const,
    /** Log-space standard deviation of the lognormal body. */
    sigma: [0.2, 0.45] as const,
    /** Share of inspections that hit an internal pause (garbage collection, a flush of the mapping table). */
    spikeProbability: 0.002,
    /** Such an inspection is this many times slower (lognormal: median, log-space deviation): 8x, often 3x to 20x. */
    spikeFactorMedian: 8,
    spikeFactorSigma: 0.8,
  }),
  hdd: Object.freeze({
    /** Controller, command and transfer overhead per inspection. */
    overheadMs: [0.3, 1.0] as const,
    /** Average seek of the flush and of the read (a seek is uniform in [0, 2 x average]). */
    avgSeekMs: [2, 5] as const,
    /** One revolution at 7200 rpm; the rotational latency of an access is uniform in [0, this]. */
    rotationMs: 60_000 / 7200,
    /** The read finds the block still in the drive's cache after the flush (0.1 ms instead of a seek and a rotation). */
    readCacheHit: 0.5,
    readCacheMs: 0.1,
    /** Share of inspections queued behind other work or a recalibration. */
    spikeProbability: 0.003,
    /** The extra delay of such an inspection (lognormal: median, log-space deviation). */
    spikeDelayMedianMs: 30,
    spikeDelaySigma: 0.7,
  }),
});

export interface SsdModel {
  media: 'ssd';
  medianMs: number;
  sigma: number;
}

export interface HddModel {
  media: 'hdd';
  overheadMs: number;
  avgSeekMs: number;
}

export type DiskModel = SsdModel | HddModel;

export function drawDiskModel(media: Media, rng: Rng): DiskModel {
  if (media === 'ssd') {
    const r = MEDIA_RANGES.ssd;
    return { media, medianMs: rng.uniform(...r.medianMs), sigma: rng.uniform(...r.sigma) };
  }
  const r = MEDIA_RANGES.hdd;
  return { media, overheadMs: rng.uniform(...r.overheadMs), avgSeekMs: rng.uniform(...r.avgSeekMs) };
}

/**
 * One healthy inspection's latency, with the spike probability multiplied by `spikeBoost`
 * (a business peak has a heavier tail). Always makes the same number of draws whatever the
 * outcome, so that two scenarios with the same seed stay draw for draw in step.
 */
export function drawLatency(model: DiskModel, rng: Rng, spikeBoost: number): number {
  if (model.media === 'ssd') {
    const r = MEDIA_RANGES.ssd;
    const body = model.medianMs * Math.exp(model.sigma * rng.normal());
    const spike = rng.next() < r.spikeProbability * spikeBoost;
    const factor = rng.lognormal(r.spikeFactorMedian, r.spikeFactorSigma);
    return spike ? body * Math.max(1, factor) : body;
  }
  const r = MEDIA_RANGES.hdd;
  const flush = rng.uniform(0, 2 * model.avgSeekMs) + rng.uniform(0, r.rotationMs);
  const seekRead = rng.uniform(0, 2 * model.avgSeekMs) + rng.uniform(0, r.rotationMs);
  const read = rng.next() < r.readCacheHit ? r.readCacheMs : seekRead;
  const spike = rng.next() < r.spikeProbability * spikeBoost;
  const delay = rng.lognormal(r.spikeDelayMedianMs, r.spikeDelaySigma);
  return model.overheadMs + flush + read + (spike ? delay : 0);
}
