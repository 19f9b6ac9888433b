// Which reports a run of watch or check makes, and how: what --json, --format, --verbose,
// --textfile and --listen ask for, once parsed.
import type { ListenAddress } from '../prometheus/listen-address.js';

export type CheckFormat = 'human' | 'nagios';

export interface OutputOptions {
  /** JSON Lines on stdout, and nothing else there. */
  json: boolean;
  /** check's last line. */
  format: CheckFormat;
  /** watch: a line for each block device behind the disks, every round. */
  verbose?: boolean;
  /** watch: the plain lines' times in UTC, not local time. */
  utc?: boolean;
  /** The directory of node_exporter's textfile collector. */
  textfile?: string;
  listen?: ListenAddress;
}
