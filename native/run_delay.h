#pragma once

#include <cstdint>

// The time the calling thread was ready to run and waited for a CPU since it
// last asked (since it started, the first time), from the second field of
// /proc/thread-self/schedstat, in ns; -1 where the kernel does not say. An
// inspection that took long while its thread waited for a CPU was slow for
// want of a CPU, not of the disk.
int64_t ThreadRunDelaySinceLastNs();
