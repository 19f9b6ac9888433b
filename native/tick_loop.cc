#include "tick_loop.h"

#include <algorithm>
#include <ctime>
#include <utility>

namespace {

double WallMs() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) * 1e3 +
         static_cast<double>(now.tv_nsec) / 1e6;
}

}  // namespace

void TickLoop::Schedule(LoopClock clock, uint64_t seedBase,
                        std::string resolveName, FileSpec spec) {
  scheduled_ = true;
  clock_ = clock;
  seedBase_ = seedBase;
  resolveName_ = std::move(resolveName);
  spec.device = spec_.device;
  if (spec.resolvedDir.empty()) spec.resolvedDir = spec_.resolvedDir;
  spec_ = std::move(spec);
  lastResolution_.clear();
}

void TickLoop::Place(std::string name, uint64_t fromTick,
                     std::optional<DeviceId> device) {
  if (placed_ != name) {
    if (armed_) Let(*std::exchange(armed_, std::nullopt));
    lostName_.reset();
    freshArmed_ = contested_ = false;
    retryTick_ = 0;
    lastFailed_ = false;
    lastOutcome_.clear();
  }
  spec_.device = device;
  placed_ = std::move(name);
  nextTick_ = std::max(nextTick_, fromTick);
}

TickLoop::Unplaced TickLoop::Unplace() {
  std::optional<FileSpec> swept;
  if (!std::exchange(placed_, {}).empty()) swept = spec_;
  std::vector<ProbeFile> files = std::exchange(replaced_, {});
  if (armed_) files.push_back(*std::exchange(armed_, std::nullopt));
  released_.insert(released_.end(), files.begin(), files.end());
  return {std::move(files), std::move(swept)};
}

void TickLoop::Let(ProbeFile file) { released_.push_back(std::move(file)); }

std::optional<InFlight> TickLoop::InFlightSince() const { return inFlight_; }

void TickLoop::Stop() { scheduled_ = false; }

std::optional<double> TickLoop::NextRunMs() const {
  if (!scheduled_ || inFlight_) return std::nullopt;
  uint64_t tick = placed_.empty() ? clock_.RoundTickFrom(nextTick_) : nextTick_;
  return clock_.DeadlineMs(tick);
}

DueTick TickLoop::Take(double nowMs) {
  DueTick due;
  due.tick = placed_.empty() ? clock_.RoundTickFrom(nextTick_) : nextTick_;
  due.resolve = clock_.OpensRound(due.tick);
  if (due.resolve) {
    due.dir = spec_.dir;
    due.pinned = spec_.resolvedDir;
  }
  nextTick_ = due.tick + 1;
  if (placed_.empty()) return due;
  due.name = placed_;
  inFlight_ = InFlight{nowMs, WallMs()};
  if (!armed_ && lostName_) {
    due.work = DueTick::Work::kLost;
    return due;
  }
  InspectRequest& r = due.request;
  r.dir = spec_.dir;
  r.blocks = kDataBlocks;
  r.direct = spec_.direct;
  r.fsync = spec_.fsync;
  r.block = due.tick;
  r.seed = seedBase_ + due.tick;
  // Once a round, and on every tick after a failure, so that a fault only a
  // new block meets (a full filesystem) is seen to lift at once. A file made
  // just now has just been given all its blocks.
  r.freshBlock = armed_ && (clock_.OpensRound(due.tick) || lastFailed_);
  if (!armed_) {
    due.work = DueTick::Work::kMakeAndInspect;
    due.spec = spec_;
    return due;
  }
  due.work = DueTick::Work::kInspect;
  r.resolvedDir = armed_->resolvedDir;
  r.name = armed_->name;
  r.id = armed_->id;
  r.ioSize = armed_->ioSize;
  r.align = armed_->align;
  return due;
}

LoopRecord TickLoop::Inspected(const DueTick& due, const InspectResult* result,
                               const SysError* error, bool& urgent) {
  LoopRecord record;
  record.name = due.name;
  record.tick = due.tick;
  record.startedMs = inFlight_ ? inFlight_->sinceMs : 0;
  if (error && error->NameLost()) {
    // Someone else's file at our name stays theirs, and the tick is no fault
    // of the disk: lost, as the next ones are until a fresh file is armed.
    // Ours is still ours to remove wherever it was put, if it comes back.
    // One taken before it was ever inspected makes the directory contested.
    if (armed_) Let(*std::exchange(armed_, std::nullopt));
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
      if (result->dirReplaced) replaced_.push_back(*armed_);
      armed_->id = result->id;
    }
    outcome = "ok";
    urgent = urgent || result->created || result->dirReplaced;
  } else {
    record.kind = LoopRecord::Kind::kFailed;
    record.error = *error;
    outcome = error->Code();
  }
  lastFailed_ = result == nullptr;
  urgent = urgent || outcome != lastOutcome_;
  lastOutcome_ = std::move(outcome);
  return record;
}

LoopRecord TickLoop::Made(const DueTick& due, const MadeProbeFile* made,
                          const InspectResult* result, const SysError* error,
                          bool& urgent) {
  if (made) {
    // Let go meanwhile: the file made is removed with the others.
    if (placed_ == due.name && !armed_) {
      armed_ = made->file;
      if (spec_.resolvedDir.empty()) spec_.resolvedDir = made->file.resolvedDir;
    } else {
      Let(made->file);
    }
  }
  LoopRecord record = Inspected(due, result, error, urgent);
  if (made) {
    record.made = true;
    record.staleRemoved = made->staleRemoved;
  }
  urgent = true;
  return record;
}

LoopRecord TickLoop::Lost(const DueTick& due) const {
  LoopRecord record;
  record.kind = LoopRecord::Kind::kLost;
  record.name = due.name;
  record.tick = due.tick;
  record.startedMs = inFlight_ ? inFlight_->sinceMs : 0;
  record.error = lostName_;
  record.contested = contested_;
  return record;
}

bool TickLoop::FreshTurn(const DueTick& due, FileSpec& spec) {
  if (armed_ || !lostName_ || placed_ != due.name || due.tick < retryTick_) {
    return false;
  }
  retryTick_ = due.tick + clock_.roundTicks;
  spec = spec_;
  return true;
}

void TickLoop::Fresh(const DueTick& due, const MadeProbeFile* made,
                     const SysError* error) {
  if (made) {
    if (placed_ == due.name && !armed_) {
      armed_ = made->file;
      freshArmed_ = lostName_.has_value();
    } else {
      Let(made->file);
    }
    return;
  }
  // Failing to make one (a full disk) is the disk's: the next tick makes one
  // as part of its inspection, and says why it could not.
  if (!error->NameLost() && placed_ == due.name) lostName_.reset();
}

std::optional<LoopRecord> TickLoop::Resolved(const DirIdentity* identity,
                                             const SysError* error) {
  std::string key =
      identity ? std::to_string(identity->mntId) + ":" +
                     std::to_string(identity->devMajor) + ":" +
                     std::to_string(identity->devMinor) + ":" +
                     std::to_string(identity->fsMagic) + ":" +
                     identity->resolvedDir
               : "error:" + error->Code();
  if (key == lastResolution_) return std::nullopt;
  lastResolution_ = std::move(key);
  if (identity && spec_.resolvedDir.empty()) {
    spec_.resolvedDir = identity->resolvedDir;
  }
  LoopRecord record;
  record.kind = LoopRecord::Kind::kResolved;
  record.name = resolveName_;
  if (identity) record.resolution = *identity;
  if (error) record.error = *error;
  return record;
}

void TickLoop::Done(double atMs) {
  inFlight_.reset();
  nextTick_ = std::max(nextTick_, clock_.FirstTickAfter(atMs));
}
