#include "tick_clock.h"

#include <algorithm>
#include <cmath>

double LoopClock::DeadlineMs(uint64_t tick) const {
  return startMs + static_cast<double>(tick) * intervalMs;
}

uint64_t LoopClock::FirstTickAfter(double ms) const {
  if (ms < startMs) return 1;
  auto tick = static_cast<uint64_t>(std::floor((ms - startMs) / intervalMs)) + 1;
  // Rounding may put the division a tick either way of the deadline.
  while (tick > 1 && DeadlineMs(tick - 1) > ms) --tick;
  while (DeadlineMs(tick) <= ms) ++tick;
  return std::max<uint64_t>(tick, 1);
}

uint64_t LoopClock::RoundTickFrom(uint64_t tick) const {
  return tick + (roundTicks - (tick - 1) % roundTicks) % roundTicks;
}

double FlushClock::NextFlushMs(double ms) const {
  auto at = [this](double n) { return startMs + n * periodMs + slackMs; };
  double n = std::max(1.0, std::floor((ms - slackMs - startMs) / periodMs) + 1);
  // Rounding may put the division a batch either way of `ms`.
  while (n > 1 && at(n - 1) > ms) --n;
  while (at(n) <= ms) ++n;
  return at(n);
}
