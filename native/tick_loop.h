#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspection.h"
#include "probe_file.h"
#include "resolve.h"
#include "sys_error.h"

// The ticks of a session: tick k is due at startMs + k * intervalMs (k >= 1),
// on the CLI's clock (CLOCK_MONOTONIC ms), so lateness never accumulates.
struct LoopClock {
  double startMs = 0;
  double intervalMs = 1;
  uint32_t roundTicks = 1;

  double DeadlineMs(uint64_t tick) const;
  // The first tick due strictly after `ms`: a result that came at a tick's
  // deadline is the CLI's after that tick began, so it starts the next one.
  uint64_t FirstTickAfter(double ms) const;
  bool OpensRound(uint64_t tick) const { return (tick - 1) % roundTicks == 0; }
};

// What the probe thread does at a due tick; decided under the owner's lock.
struct DueTick {
  uint64_t tick = 0;
  std::string name;      // the name inspected; empty when none is
  bool inspect = false;  // natively, with `request`
  // No probe file is armed (none made yet): JS makes one and inspects, then
  // hands the loop back (FreeAt).
  bool askJs = false;
  // No probe file is armed since its name was taken: the tick is answered at
  // once as lost (neither counted nor charged) while JS makes a fresh one.
  bool lost = false;
  bool freshBlock = false;
  bool resolve = false;  // the round's resolution of the directory
  std::string dir, pinned;  // when resolve
  InspectRequest request;
};

// One outcome of a due tick, as the batch carries it to JS.
struct LoopRecord {
  enum class Kind { kInspected, kFailed, kAskJs, kResolved, kExternal, kLost };
  Kind kind = Kind::kInspected;
  double atMs = 0;  // when it was recorded, on the shared clock
  std::string name;
  uint64_t tick = 0;
  double startedMs = 0;
  InspectResult result{};
  std::optional<SysError> error;  // kFailed, kResolved, kLost: the name taken
  bool freshBlock = false;        // kAskJs
  bool contested = false;         // kLost: a fresh file's name was taken too
  DirIdentity resolution{};       // kResolved without error
  std::string json;               // kExternal: a result JS made
};

// One directory's inspections on absolute deadlines. Not thread-safe: its
// owner's mutex guards every call.
class TickLoop {
 public:
  // From JS.
  void Schedule(LoopClock clock, uint64_t seedBase, std::string resolveName,
                std::string dir, std::string pinned);
  // Inspects under `name` from tick `fromTick` on (the CLI starts it there).
  void Place(std::string name, uint64_t fromTick);
  void Unplace();
  // The probe file to inspect; its per-tick fields are set at each tick.
  void Arm(InspectRequest file);
  // JS has finished the tick it was asked (at `atMs`, `failed` or not;
  // `lost`: its probe file's name was taken, and no fresh one is armed).
  void FreeAt(double atMs, bool failed,
              std::optional<SysError> lost = std::nullopt);
  std::optional<double> InFlightSinceMs() const;
  const std::optional<InspectRequest>& Armed() const { return armed_; }
  // Probe files another directory took the place of, since the last call.
  std::vector<ProbeFileId> TakeReplaced();
  void Stop();

  // From the probe thread.
  std::optional<double> NextRunMs() const;
  DueTick Take(double nowMs);
  // Records the tick's inspection (result or error); returns its record and
  // whether it changes what a user sees. After ENAMETAKEN the tick is lost
  // (kLost, the error attached), and so is every tick until JS arms a fresh
  // probe file.
  LoopRecord Inspected(const DueTick& due, const InspectResult* result,
                       const SysError* error, bool& urgent);
  // A tick while no probe file is armed since its name was taken.
  LoopRecord Lost(const DueTick& due) const;
  // The round's resolution; nullopt when it is the same as the last one.
  std::optional<LoopRecord> Resolved(const DirIdentity* identity,
                                     const SysError* error);
  // The tick's work is done and recorded at `atMs`.
  void Done(double atMs);

 private:
  bool scheduled_ = false;
  LoopClock clock_;
  uint64_t seedBase_ = 0;
  std::string resolveName_, dir_, pinned_;
  std::string placed_;
  std::optional<InspectRequest> armed_;
  std::vector<ProbeFileId> replaced_;
  uint64_t nextTick_ = 1;
  std::optional<double> inFlightSinceMs_;
  bool askedJs_ = false;
  // The name race last lost, until an inspection succeeds; whether the file
  // armed since was made after it, and whether that one was taken too.
  std::optional<SysError> lostName_;
  bool freshArmed_ = false;
  bool contested_ = false;
  bool lastFailed_ = false;
  std::string lastOutcome_;  // "" before any, "ok", or the error's code
  std::string lastResolution_;
};
