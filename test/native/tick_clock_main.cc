// native/tick_clock.cc's arithmetic, one question a line on stdin, one answer
// a line on stdout, for test/e2e/tick-vectors-native.test.ts to hold to the
// shared table test/vectors/ticks.json:
//   clock START INTERVAL ROUND_TICKS | flush START PERIOD SLACK  (set, no answer)
//   deadline TICK | after MS | opens TICK | from TICK | next MS
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "../../native/tick_clock.h"

int main() {
  LoopClock clock;
  FlushClock flushes;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op, a, b, c;
    in >> op >> a >> b >> c;
    double x = std::strtod(a.c_str(), nullptr);
    auto tick = static_cast<uint64_t>(std::strtoull(a.c_str(), nullptr, 10));
    if (op == "clock") {
      clock = LoopClock{x, std::strtod(b.c_str(), nullptr),
                        static_cast<uint32_t>(std::strtoul(c.c_str(), nullptr, 10))};
    } else if (op == "flush") {
      flushes = FlushClock{x, std::strtod(b.c_str(), nullptr),
                           std::strtod(c.c_str(), nullptr)};
    } else if (op == "deadline") {
      std::printf("%.17g\n", clock.DeadlineMs(tick));
    } else if (op == "after") {
      std::printf("%llu\n", static_cast<unsigned long long>(clock.FirstTickAfter(x)));
    } else if (op == "opens") {
      std::printf("%s\n", clock.OpensRound(tick) ? "true" : "false");
    } else if (op == "from") {
      std::printf("%llu\n", static_cast<unsigned long long>(clock.RoundTickFrom(tick)));
    } else if (op == "next") {
      std::printf("%.17g\n", flushes.NextFlushMs(x));
    } else {
      std::fprintf(stderr, "unknown question: %s\n", line.c_str());
      return 2;
    }
  }
  return 0;
}
