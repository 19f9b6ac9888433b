#pragma once

#include <cstdint>
#include <string>

#include "probe_file.h"

struct InspectRequest {
  std::string dir;          // the directory as given
  std::string resolvedDir;  // where it led at start
  std::string name;         // of the probe file in it
  ProbeFileId id;
  uint64_t block;
  uint32_t blocks;
  uint32_t ioSize;
  uint32_t align;
  bool direct;
  bool fsync;  // fsync instead of fdatasync
  uint64_t seed;
  // After the timed round trip, untimed: write one block that the filesystem
  // has to allocate (see WriteFreshBlock).
  bool freshBlock;
};

struct InspectResult {
  uint64_t openNs;
  uint64_t writeNs;
  uint64_t syncNs;
  uint64_t readNs;
  uint64_t closeNs;
  uint64_t totalNs;
  bool created;
  // Another directory had taken the path's place: the old file is in the old
  // directory, wherever that went.
  bool dirReplaced;
  ProbeFileId id;  // a new one when created
};

// One timed write-sync-read round trip on one block of the probe file, all
// through a descriptor of the directory where the path led at start.
// Fails with EDIRCHANGED when the path leads elsewhere now, with EOTHERFS
// when its directory is no longer on the filesystem the file was made on,
// and with ENAMETAKEN when the file's name holds something not this
// prober's file.
InspectResult Inspect(const InspectRequest& request);
