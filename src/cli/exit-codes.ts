// What each exit code means, for --help; the codes themselves are the verdict's (src/verdict/exit-codes.ts).
export const EXIT_CODE_HELP = `Exit codes:
  0  OK        the store score stayed below the slow threshold
  1  WARNING   the reported store score reached the slow threshold (default 80), not the eviction threshold;
               or a disk was in state warning (its predicted chance of exceeding --sla within 5 minutes
               went above --warn-probability at two samples in a row, its P99 rising); or the statistical detector confirmed a slow disk;
               or (--all-devices, --devices) a drive is slow now against the peers of its class;
               or a disk was hung (an inspection in flight for --hang-after, default 5s), or (check)
               completed no inspection at all
  2  CRITICAL  the reported store score reached the eviction threshold (default 100)
  3  UNKNOWN   bad arguments, a path that cannot be probed at start, no class of 4 drives to judge,
               or a state directory that cannot be used (the drives' history not saved)
  130, 143     interrupted by SIGINT, SIGTERM (probe files removed)`;
