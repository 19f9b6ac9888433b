#pragma once

#include <cstdint>
#include <string>

#include "unique_fd.h"

// Where a probed directory was found at start, and how it is reached since.
// Every probe-file syscall is made relative to a descriptor of that very
// directory, so that a path swapped for a symlink later can never redirect
// one; none is held between requests, which would keep its filesystem busy
// for umount.

// `dir` with every symlink resolved (realpath), as a request shows it.
std::string ResolvedPath(const std::string& dir);

// Fails with EDIRCHANGED unless `dir` still resolves to `resolvedDir`.
void RequireSameResolution(const std::string& dir,
                           const std::string& resolvedDir);

// `resolvedDir` opened O_PATH, no component of it followed as a symlink (a
// symlink put in its way fails with EDIRCHANGED).
UniqueFd OpenResolvedDir(const std::string& dir,
                         const std::string& resolvedDir);

// The directory's identity, and a file handle that finds it again wherever
// it is renamed to on its filesystem (empty where the filesystem has none).
struct ProbeDirId {
  uint32_t devMajor;
  uint32_t devMinor;
  uint64_t ino;
  int32_t handleType;
  std::string handle;
};

ProbeDirId IdentifyDir(int dirFd, const std::string& path);

// The directory `id` names, reached through its file handle when it can be
// (it may have been renamed), else through `resolvedDir`. An invalid fd when
// it is out of reach.
UniqueFd ReopenDir(const ProbeDirId& id, const std::string& resolvedDir);

// Whether `dirFd` is the directory `id` names.
bool IsDir(int dirFd, const ProbeDirId& id);

std::string JoinPath(const std::string& dir, const std::string& name);
