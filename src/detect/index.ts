// The detectors beside the slow score: the statistical detector after CTyun's slow-disk detection article (and the
// fixed-threshold baseline it is measured against), and what their states add to a verdict.
export * from './fixed-threshold.js';
export * from '../common/robust-stats.js';
export * from './severity.js';
export * from './statistical-detector.js';
export * from './statistical-params.js';
export * from './tick-feed.js';
