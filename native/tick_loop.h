#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspection.h"
#include "placed_file.h"
#include "resolve.h"
#include "sys_error.h"
#include "tick_clock.h"

// What the probe thread does at a due tick; decided under the owner's lock.
struct DueTick {
  enum class Work {
    kNone,     // no name is placed: the round's resolution only
    kInspect,  // the armed probe file, with `request`
    // No probe file is armed (none made yet, or one could not be made): one
    // is made, under `spec`, as part of the tick's inspection, so that a disk
    // that hangs at start is scored like any other hang.
    kMakeAndInspect,
    // No probe file is armed since its name was taken: the tick is answered
    // at once as lost (neither counted nor charged).
    kLost,
  };
  Work work = Work::kNone;
  uint64_t tick = 0;
  std::string name;  // the name inspected; empty when none is
  bool resolve = false;  // the round's resolution of the directory
  std::string dir, pinned;  // when resolve
  FileSpec spec;            // kMakeAndInspect
  InspectRequest request;   // kInspect; kMakeAndInspect but for the file
};

// One outcome of a due tick, as the batch carries it to JS.
struct LoopRecord {
  enum class Kind { kInspected, kFailed, kResolved, kLost };
  Kind kind = Kind::kInspected;
  double atMs = 0;  // when it was recorded, on the shared clock
  std::string name;
  uint64_t tick = 0;
  double startedMs = 0;
  InspectResult result{};
  // kInspected: the time the thread waited for a CPU (run_delay.h) from its
  // last reading to the inspection's start, and during the inspection; -1
  // where the kernel does not say.
  int64_t startWaitNs = -1;
  int64_t waitNs = -1;
  std::optional<SysError> error;  // kFailed, kResolved, kLost: the name taken
  bool made = false;              // kInspected, kFailed: a file made first
  std::vector<std::string> staleRemoved;  // when made
  bool contested = false;         // kLost: a fresh file's name was taken too
  DirIdentity resolution{};       // kResolved without error
};

// When a tick's inspection began, on both clocks: the shared one, and the
// wall clock a registry entry says a stuck prober is stuck since on.
struct InFlight {
  double sinceMs;
  double wallMs;
};

// One directory's inspections on absolute deadlines, and the probe files
// they inspect: made, made again, kept and let go by the thread alone. Not
// thread-safe: its owner's mutex guards every call.
class TickLoop {
 public:
  // From JS.
  void Schedule(LoopClock clock, uint64_t seedBase, std::string resolveName,
                FileSpec spec);
  // Inspects under `name` from tick `fromTick` on (the CLI starts it
  // there), making its files on the filesystem `spec` names, if it does.
  void Place(std::string name, uint64_t fromTick,
             std::optional<DeviceId> device);
  std::optional<InFlight> InFlightSince() const;
  void Stop();

  // From the probe thread.
  std::optional<double> NextRunMs() const;
  DueTick Take(double nowMs);
  // Records the tick's inspection (result or error); returns its record and
  // whether it changes what a user sees. After a name race lost (the
  // error's NameLost) the tick is lost, and so is every tick until a fresh
  // probe file is armed.
  LoopRecord Inspected(const DueTick& due, const InspectResult* result,
                       const SysError* error, bool& urgent);
  // The same, for a tick that made its probe file first (`made`, if it did).
  LoopRecord Made(const DueTick& due, const MadeProbeFile* made,
                  const InspectResult* result, const SysError* error,
                  bool& urgent);
  // A tick while no probe file is armed since its name was taken.
  LoopRecord Lost(const DueTick& due) const;
  // After a lost tick: whether to make a fresh probe file now, beside the
  // ticks. One is made at most once a round, so that whoever takes each one
  // cannot make the prober write 260 KiB a tick into the directory.
  bool FreshTurn(const DueTick& due, FileSpec& spec);
  // The fresh file made (armed from the next tick on), or why not: a fault
  // of the disk (a full filesystem) is for the next tick to make and tell.
  void Fresh(const DueTick& due, const MadeProbeFile* made,
             const SysError* error);
  // The round's resolution; nullopt when it is the same as the last one.
  std::optional<LoopRecord> Resolved(const DirIdentity* identity,
                                     const SysError* error);
  // The tick's work is done and recorded at `atMs`.
  void Done(double atMs);
  // Stops inspecting and hands over the probe files to remove now: the
  // armed one, and those whose directory another took the place of; and the
  // directory let go, to sweep of dead runs' files, where it was placed.
  struct Unplaced {
    std::vector<ProbeFile> files;
    std::optional<FileSpec> swept;
  };
  Unplaced Unplace();
  // Every probe file let go so far. One let go while another filesystem was
  // mounted over it was out of reach then, and may be back by the time the
  // prober stops, which removes it.
  const std::vector<ProbeFile>& Released() const { return released_; }

 private:
  void Let(ProbeFile file);

  bool scheduled_ = false;
  LoopClock clock_;
  uint64_t seedBase_ = 0;
  std::string resolveName_;
  FileSpec spec_;  // its resolvedDir set by the first resolution or file
  std::string placed_;
  std::optional<ProbeFile> armed_;
  std::vector<ProbeFile> replaced_;
  std::vector<ProbeFile> released_;
  uint64_t nextTick_ = 1;
  std::optional<InFlight> inFlight_;
  // The name race last lost, until an inspection succeeds; whether the file
  // armed since was made after it, and whether that one was taken too.
  std::optional<SysError> lostName_;
  bool freshArmed_ = false;
  bool contested_ = false;
  uint64_t retryTick_ = 0;  // the first tick a fresh file may be made at
  bool lastFailed_ = false;
  std::string lastOutcome_;  // "" before any, "ok", or the error's code
  std::string lastResolution_;
};
