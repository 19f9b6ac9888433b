// The output writer's parameters. Outputs (--textfile, --record, --state-dir) are written by
// a helper process (the prober of a probe run, writer-child.ts for the drives alone), so that a
// disk that hangs under one stalls that helper, never the command.

/**
 * How long a write to an output (a textfile replaced, the trace created or closed, the drive
 * history read or saved) may take before it is reported as not written: one line on stderr
 * naming the output and its path, and the run goes on. At the end of a run, an output that
 * is late already is not waited for again, so a check ends at most this long after its
 * --duration even with every output on a frozen disk. Long enough for a healthy disk under
 * load to fsync a few MB of drive history.
 */
export const OUTPUT_DEADLINE_MS = 3000;

/** libuv's threads in a process that writes outputs: enough for every output to have one stuck on a hung disk and still write the others. */
export const OUTPUT_THREADS = '16';
