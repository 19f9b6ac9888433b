#pragma once

#include <time.h>

#include <chrono>

// CLOCK_MONOTONIC in milliseconds: the clock the CLI's ticks are scheduled
// on (Node's process.hrtime reads the same), shared by both processes.
inline double MonotonicMs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) * 1e3 +
         static_cast<double>(now.tv_nsec) / 1e6;
}

// The same instant for condition-variable waits: libstdc++'s steady_clock is
// CLOCK_MONOTONIC.
inline std::chrono::steady_clock::time_point SteadyAt(double ms) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double, std::milli>(ms)));
}
