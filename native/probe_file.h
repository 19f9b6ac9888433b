#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "probe_dir.h"
#include "unique_fd.h"

// Probe file names: the prefix, the PID, a dash and 8 random lowercase hex
// digits, so that no one can know a name before it is made.
constexpr char kProbeNamePrefix[] = ".slowdisk-probe-";
std::string NewProbeName();

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

// Unlinks `name` only if it is still the file `id` names, in its directory
// wherever that was renamed to; a file already gone is fine.
void RemoveProbeFile(const std::string& resolvedDir, const std::string& name,
                     const ProbeFileId& id);

// Unlinks `name` only while it names `ours`: whatever someone else put
// there, even under a probe name, is left alone. True if removed.
bool UnlinkIfSame(int dirFd, const std::string& name, const std::string& path,
                  const struct stat& ours);
