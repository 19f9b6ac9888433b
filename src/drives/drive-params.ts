// The parameters of live drive sampling (watch/check --all-devices, --devices) and of the
// drive history kept between runs. The judgement itself is the peer detector's, with its own
// parameters (peer-params.ts), unchanged: live data is shaped like the Perseus series.

export interface DriveParams {
  /** /proc/diskstats is read this often while watch or check runs. */
  sampleIntervalMs: number;
  /**
   * The interval since the previous run (cron) is recorded only when it is at most this long:
   * a longer one would spread one average over so many minutes that the detector's 10-minute
   * windows would see a flat line instead of the drive; the counters are simply read afresh.
   */
  maxIntervalMs: number;
  /**
   * While watch or check runs, the history is saved at most this often, and always when it
   * ends: a crash loses at most this much, and a watch over 60 drives rewrites its ~3 MB file
   * once a minute rather than every sample.
   */
  saveIntervalMs: number;
  /** Judged days older than this many days are dropped from the history: its size stays bounded. */
  retentionDays: number;
}

export const DEFAULT_STATE_DIR = '/var/lib/slowdisk';

export const DEFAULT_DRIVE_PARAMS: Readonly<DriveParams> = Object.freeze({
  sampleIntervalMs: 15_000,
  maxIntervalMs: 30 * 60_000,
  saveIntervalMs: 60_000,
  retentionDays: 30,
});

/** Which drives watch and check judge against each other (--all-devices, --devices), and where their history is kept. */
export interface DriveRequest {
  /** Every whole disk, or the names given. */
  devices: 'all' | string[];
  stateDir: string;
}
