#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unique_fd.h"

// Data blocks after the header block; inspections cycle through them.
constexpr uint32_t kDataBlocks = 64;

struct CreatedProbeFile {
  UniqueFd fd;
  uint64_t ino;
  uint32_t devMajor;  // the filesystem the file is on
  uint32_t devMinor;
  uint32_t ioSize;  // the requested size rounded up to the alignment
  uint32_t align;
  const char* alignSource;  // "statx", "logical-block-size" or "default"
};

// Creates `path` (never following or replacing anything already there) and
// writes its whole layout: a header block naming this process, then
// kDataBlocks data blocks written once and made durable, so that later probe
// writes land on allocated, written extents. A failure removes the file.
CreatedProbeFile CreateProbeFile(const std::string& path, uint32_t ioSize,
                                 bool direct);

struct PreparedProbeFile {
  std::string path;
  uint64_t ino;
  uint32_t devMajor;
  uint32_t devMinor;
  uint32_t ioSize;
  uint32_t align;
  const char* alignSource;
  std::vector<std::string> staleRemoved;
};

PreparedProbeFile PrepareProbeFile(const std::string& dir, uint32_t ioSize,
                                   bool direct);

// Removes the probe files in `dir` left by processes that no longer exist.
std::vector<std::string> RemoveStaleProbeFiles(const std::string& dir);

// Unlinks `path` only if it is still the regular file with inode `ino`.
// `ino` is a JS number, so it is compared as one.
void RemoveProbeFile(const std::string& path, double ino);

// The check inspect makes before writing into an existing file.
bool IsSameInode(uint64_t actual, double expected);
