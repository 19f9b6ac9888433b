#pragma once

#include <cstdint>
#include <string>

struct InspectRequest {
  std::string path;
  double ino;  // as JS holds it; see IsSameInode
  uint64_t block;
  uint32_t blocks;
  uint32_t ioSize;
  uint32_t align;
  bool direct;
  bool fsync;  // fsync instead of fdatasync
  uint64_t seed;
};

struct InspectResult {
  uint64_t openNs;
  uint64_t writeNs;
  uint64_t syncNs;
  uint64_t readNs;
  uint64_t closeNs;
  uint64_t totalNs;
  bool created;
  uint64_t ino;
};

// One timed write-sync-read round trip on one block of the probe file.
InspectResult Inspect(const InspectRequest& request);
