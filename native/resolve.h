#pragma once

#include <cstdint>
#include <string>

// Which mount and device a watched directory lives on, and what filesystem.
struct DirIdentity {
  uint64_t mntId;  // 0 when the kernel predates STATX_MNT_ID (Linux 5.8)
  uint32_t devMajor;
  uint32_t devMinor;
  uint32_t fsMagic;
  std::string resolvedDir;  // realpath
};

// Fails with EDIRCHANGED when `pinned` is given and `dir` no longer leads
// there: a path that leads elsewhere through a symlink is not placed anew.
DirIdentity ResolveDir(const std::string& dir, const std::string& pinned);
