#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "probe_dir.h"
#include "unique_fd.h"

// Data blocks after the header block; inspections cycle through them.
constexpr uint32_t kDataBlocks = 64;

// What makes a probe file this prober's: more than a name, or an inode
// number, which a filesystem hands out again once the file is gone.
struct ProbeFileId {
  ProbeDirId dir;
  uint64_t ino;
  // One of the two tells a new file with a reused inode number from ours:
  // the birth time (statx) where the filesystem keeps one, else the inode
  // generation (FS_IOC_GETVERSION).
  bool hasBtime;
  int64_t btimeSec;
  uint32_t btimeNsec;
  bool hasGeneration;
  uint32_t generation;
  // Random, in the header: read back before any write into the file.
  std::string token;
};

// An opaque string for JS to hold and hand back.
std::string EncodeFileId(const ProbeFileId& id);
// Throws std::invalid_argument on a string EncodeFileId did not make.
ProbeFileId DecodeFileId(const std::string& text);

struct CreatedProbeFile {
  UniqueFd fd;
  ProbeFileId id;
  uint32_t ioSize;  // the requested size rounded up to the alignment
  uint32_t align;
  const char* alignSource;  // "statx", "logical-block-size" or "default"
};

// Creates `name` in `dirFd` (never following or replacing anything already
// there) and writes its whole layout: a header block naming this process,
// its host, boot and PID namespace and the file's token, then kDataBlocks
// data blocks written once and made durable, so that later probe writes land
// on allocated, written extents. A failure removes the file.
CreatedProbeFile CreateProbeFile(int dirFd, const std::string& name,
                                 const std::string& path, uint32_t ioSize,
                                 bool direct);

// `name` in `dirFd` opened read-write (`ioFlags` added) if it is the file
// `id` names; an invalid fd if nothing is there. Anything else there fails
// with ENAMETAKEN, saying what it is, and is left untouched.
UniqueFd OpenOwnProbeFile(int dirFd, const std::string& name,
                          const std::string& path, const ProbeFileId& id,
                          int ioFlags);

struct PreparedProbeFile {
  std::string path;
  std::string resolvedDir;
  std::string name;
  ProbeFileId id;
  uint32_t ioSize;
  uint32_t align;
  const char* alignSource;
  std::vector<std::string> staleRemoved;
};

// `resolvedDir` is where `dir` led at start, or empty to resolve it now.
PreparedProbeFile PrepareProbeFile(const std::string& dir,
                                   const std::string& resolvedDir,
                                   uint32_t ioSize, bool direct);

// Removes the probe files in `dir` whose writers are provably gone: made on
// this host, in this boot and PID namespace by a process that no longer
// exists, or in an earlier boot of this host.
std::vector<std::string> RemoveStaleProbeFiles(const std::string& dir);

// Unlinks `name` only if it is still the file `id` names, in its directory
// wherever that was renamed to; a file already gone is fine.
void RemoveProbeFile(const std::string& resolvedDir, const std::string& name,
                     const ProbeFileId& id);
