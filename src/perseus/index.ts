// Reading the Perseus layout (DIR/host_*/YYYY-MM-DD.csv) and labels, and the offline analysis.
export { analyzeHost, analyzeHosts, readDay, readHostDays, type HostAnalysis } from './analyze.js';
export { cachedUnpack } from './archive.js';
export { countBadFile, newCounters, parseNumber, readDayFile, type ReadCounters } from './csv.js';
export { dayOfFile, findHosts, LayoutError, type HostDir } from './layout.js';
export { labelKey, parseLabels, readLabels, type Labels, type SlowDriveLabel } from './labels.js';
