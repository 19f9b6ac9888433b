#pragma once

#include <cstdint>

// The tick and round arithmetic, as src/ticks/tick-schedule.ts has it too;
// test/vectors/ticks.json holds the two together.

// The ticks of a session: tick k is due at startMs + k * intervalMs (k >= 1),
// on the CLI's clock (CLOCK_MONOTONIC ms), so lateness never accumulates.
// A round opens at ticks 1, 1 + roundTicks, ...
struct LoopClock {
  double startMs = 0;
  double intervalMs = 1;
  uint32_t roundTicks = 1;

  double DeadlineMs(uint64_t tick) const;
  // The first tick due strictly after `ms`: a result that came at a tick's
  // deadline is the CLI's after that tick began, so it starts the next one.
  uint64_t FirstTickAfter(double ms) const;
  bool OpensRound(uint64_t tick) const { return (tick - 1) % roundTicks == 0; }
  // The first tick from `tick` on that opens a round.
  uint64_t RoundTickFrom(uint64_t tick) const;
};

// When batches of records are due: at startMs + n * periodMs + slackMs
// (n >= 1), just after each round's close.
struct FlushClock {
  double startMs = 0;
  double periodMs = 1000;
  double slackMs = 0;

  // The first flush after `ms`.
  double NextFlushMs(double ms) const;
};
