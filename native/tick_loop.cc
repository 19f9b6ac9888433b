#include "tick_loop.h"

#include <algorithm>
#include <cmath>
#include <utility>

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

void TickLoop::Schedule(LoopClock clock, uint64_t seedBase,
                        std::string resolveName, std::string dir,
                        std::string pinned) {
  scheduled_ = true;
  clock_ = clock;
  seedBase_ = seedBase;
  resolveName_ = std::move(resolveName);
  dir_ = std::move(dir);
  pinned_ = std::move(pinned);
  lastResolution_.clear();
}

void TickLoop::Place(std::string name, uint64_t fromTick) {
  // Placed anew, or told by JS that a fresh file could not be made: the next
  // tick without a file is asked of JS again.
  lostName_.reset();
  if (placed_ != name) {
    armed_.reset();
    freshArmed_ = contested_ = false;
    lastFailed_ = false;
    lastOutcome_.clear();
  }
  placed_ = std::move(name);
  nextTick_ = std::max(nextTick_, fromTick);
}

void TickLoop::Unplace() {
  placed_.clear();
  armed_.reset();
}

void TickLoop::Arm(InspectRequest file) {
  armed_ = std::move(file);
  freshArmed_ = lostName_.has_value();
}

void TickLoop::FreeAt(double atMs, bool failed,
                      std::optional<SysError> lost) {
  if (lost && !armed_) lostName_ = std::move(lost);
  askedJs_ = false;
  inFlightSinceMs_.reset();
  lastFailed_ = failed;
  lastOutcome_ = failed ? "failed" : "ok";
  nextTick_ = std::max(nextTick_, clock_.FirstTickAfter(atMs));
}

std::optional<double> TickLoop::InFlightSinceMs() const {
  return inFlightSinceMs_;
}

std::vector<ProbeFileId> TickLoop::TakeReplaced() {
  return std::exchange(replaced_, {});
}

void TickLoop::Stop() { scheduled_ = false; }

namespace {

// The first tick from `tick` on that opens a round.
uint64_t RoundTickFrom(const LoopClock& clock, uint64_t tick) {
  return tick + (clock.roundTicks - (tick - 1) % clock.roundTicks) %
                    clock.roundTicks;
}

}  // namespace

std::optional<double> TickLoop::NextRunMs() const {
  if (!scheduled_ || inFlightSinceMs_ || askedJs_) return std::nullopt;
  uint64_t tick = placed_.empty() ? RoundTickFrom(clock_, nextTick_) : nextTick_;
  return clock_.DeadlineMs(tick);
}

DueTick TickLoop::Take(double nowMs) {
  DueTick due;
  due.tick = placed_.empty() ? RoundTickFrom(clock_, nextTick_) : nextTick_;
  due.resolve = clock_.OpensRound(due.tick);
  if (due.resolve) {
    due.dir = dir_;
    due.pinned = pinned_;
  }
  nextTick_ = due.tick + 1;
  if (placed_.empty()) return due;
  due.name = placed_;
  // Once a round, and on every tick after a failure, so that a fault only a
  // new block meets (a full filesystem) is seen to lift at once.
  due.freshBlock = clock_.OpensRound(due.tick) || lastFailed_;
  inFlightSinceMs_ = nowMs;
  if (!armed_ && lostName_) {
    due.lost = true;
    return due;
  }
  if (!armed_) {
    due.askJs = true;
    askedJs_ = true;
    return due;
  }
  due.inspect = true;
  due.request = *armed_;
  due.request.block = due.tick;
  due.request.seed = seedBase_ + due.tick;
  due.request.freshBlock = due.freshBlock;
  return due;
}

LoopRecord TickLoop::Inspected(const DueTick& due, const InspectResult* result,
                               const SysError* error, bool& urgent) {
  LoopRecord record;
  record.name = due.name;
  record.tick = due.tick;
  record.startedMs = inFlightSinceMs_.value_or(0);
  if (error && error->code == "ENAMETAKEN") {
    // Someone else's file at our name stays theirs, and the tick is no fault
    // of the disk: lost, as the next ones are until JS arms a fresh file. One
    // taken before it was ever inspected makes the directory contested.
    armed_.reset();
    contested_ = contested_ || freshArmed_;
    freshArmed_ = false;
    lostName_ = *error;
    urgent = true;
    return Lost(due);
  }
  std::string outcome;
  if (result) {
    lostName_.reset();
    freshArmed_ = contested_ = false;
    record.kind = LoopRecord::Kind::kInspected;
    record.result = *result;
    if (armed_ && (result->created || result->dirReplaced)) {
      if (result->dirReplaced) replaced_.push_back(armed_->id);
      armed_->id = result->id;
    }
    outcome = "ok";
    urgent = urgent || result->created || result->dirReplaced;
  } else {
    record.kind = LoopRecord::Kind::kFailed;
    record.error = *error;
    outcome = error->code;
  }
  lastFailed_ = result == nullptr;
  urgent = urgent || outcome != lastOutcome_;
  lastOutcome_ = std::move(outcome);
  return record;
}

LoopRecord TickLoop::Lost(const DueTick& due) const {
  LoopRecord record;
  record.kind = LoopRecord::Kind::kLost;
  record.name = due.name;
  record.tick = due.tick;
  record.startedMs = inFlightSinceMs_.value_or(0);
  record.error = lostName_;
  record.contested = contested_;
  return record;
}

std::optional<LoopRecord> TickLoop::Resolved(const DirIdentity* identity,
                                             const SysError* error) {
  std::string key =
      identity ? std::to_string(identity->mntId) + ":" +
                     std::to_string(identity->devMajor) + ":" +
                     std::to_string(identity->devMinor) + ":" +
                     std::to_string(identity->fsMagic) + ":" +
                     identity->resolvedDir
               : "error:" + error->code;
  if (key == lastResolution_) return std::nullopt;
  lastResolution_ = std::move(key);
  LoopRecord record;
  record.kind = LoopRecord::Kind::kResolved;
  record.name = resolveName_;
  if (identity) record.resolution = *identity;
  if (error) record.error = *error;
  return record;
}

void TickLoop::Done(double atMs) {
  if (askedJs_) return;  // in flight until JS hands the loop back
  inFlightSinceMs_.reset();
  nextTick_ = std::max(nextTick_, clock_.FirstTickAfter(atMs));
}
