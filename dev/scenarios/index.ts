// The seeded scenario generator: trace lines for a host's disks, healthy and faulty.
export * from './media.js';
export * from './prng.js';
export * from './scenario.js';
