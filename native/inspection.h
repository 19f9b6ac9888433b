#pragma once

#include <cstdint>
#include <string>

struct InspectRequest {
  std::string path;
  double ino;  // as JS holds it; see IsSameInode
  // The filesystem the probe file was made on: a missing file is made again
  // only there.
  uint32_t devMajor;
  uint32_t devMinor;
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
  uint64_t ino;
};

// One timed write-sync-read round trip on one block of the probe file.
// Fails with EOTHERFS when the file is missing and its directory is no
// longer on the filesystem the file was made on.
InspectResult Inspect(const InspectRequest& request);
