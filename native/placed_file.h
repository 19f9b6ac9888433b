#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe_file.h"

struct DeviceId {
  uint32_t major, minor;
};

// What a directory's thread needs to make its probe files: given with the
// schedule (the directory and the probe's parameters) and at placement (the
// filesystem it is placed on).
struct FileSpec {
  std::string dir;          // the directory as given
  std::string resolvedDir;  // where it led at start; empty until known
  uint32_t ioSize = 4096;
  bool direct = true;
  bool fsync = false;  // fsync instead of fdatasync
  // The filesystem the directory is placed on: a file is made there only,
  // as an inspection makes one again only on its own.
  std::optional<DeviceId> device;
};

// A probe file the thread made, as it inspects it and removes it.
struct ProbeFile {
  std::string resolvedDir;
  std::string name;
  ProbeFileId id;
  uint32_t ioSize;  // the requested size rounded up to the alignment
  uint32_t align;
};

struct MadeProbeFile {
  ProbeFile file;
  // Probe files of dead runs removed from the directory first.
  std::vector<std::string> staleRemoved;
};

// Removes the directory's stale probe files, then makes a new one under a
// new, unpredictable name. Fails with EOTHERFS when the directory is on
// another filesystem than the one it is placed on, and with EDIRCHANGED when
// it leads elsewhere than where it led at start.
MadeProbeFile MakeProbeFile(const FileSpec& spec);

// Removes the directory's stale probe files, as MakeProbeFile does first, for
// a directory let go: a run stopped before its first file was made would
// otherwise leave a dead run's file there until the next run. Fails as
// MakeProbeFile does where the directory is not where it was.
void SweepStaleProbeFiles(const FileSpec& spec);

// Unlinks the file only if its name still holds it, in its directory
// wherever that was renamed to; a file already gone is fine. Anything else
// at the name fails with ENOTOURS and is left in place.
void RemoveProbeFile(const ProbeFile& file);
