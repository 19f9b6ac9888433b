#pragma once

#include <string>
#include <vector>

// Removes the probe files in the directory `dirFd` (`dir` as shown) whose
// writers are provably gone: made on this host, in this boot and PID
// namespace by a process that no longer exists, or in an earlier boot of
// this host. Returns their paths.
std::vector<std::string> RemoveStaleProbeFiles(int dirFd, const std::string& dir);
