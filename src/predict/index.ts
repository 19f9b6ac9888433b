// The early-warning predictor of CTyun's slow-disk detection article (its section 3; docs/early-warning.md): per disk, from 15 s samples of its
// inspections, the probability that its P99 exceeds the SLA within 5 minutes, and a warning that lets go.
export * from './calibration.js';
export * from './evidence-window.js';
export * from './labels.js';
export * from './linear-trend.js';
export * from './network.js';
export * from './prediction-severity.js';
export * from './predictor.js';
export * from './predictor-feed.js';
export * from './predictor-params.js';
export * from './sample-features.js';
export * from './shipped-network.js';
export * from './trace-samples.js';
export * from './training.js';
