#include "placed_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "probe_dir.h"
#include "resolve.h"
#include "stale_files.h"
#include "sys_error.h"

namespace {

void RequirePlacedDevice(const FileSpec& spec) {
  if (!spec.device) return;
  const DeviceId& placed = *spec.device;
  DirIdentity id = ResolveDir(spec.dir, spec.resolvedDir);
  if (id.devMajor == placed.major && id.devMinor == placed.minor) return;
  ThrowSlowdisk(ProbeErrc::kOtherFs, "statx", spec.dir,
                "is on another filesystem (" + std::to_string(id.devMajor) +
                    ":" + std::to_string(id.devMinor) +
                    ") than the one it is placed on (" +
                    std::to_string(placed.major) + ":" +
                    std::to_string(placed.minor) +
                    "); no probe file made there");
}

// `dir` opened where it led at start (`resolvedDir`, or now if empty), its
// current resolution checked against the descriptor.
UniqueFd OpenDirAsResolved(const std::string& dir, std::string& resolvedDir) {
  if (resolvedDir.empty()) {
    resolvedDir = ResolvedPath(dir);
  } else {
    RequireSameResolution(dir, resolvedDir);
  }
  UniqueFd fd = OpenResolvedDir(dir, resolvedDir);
  struct stat now, held;
  if (stat(dir.c_str(), &now) != 0) ThrowErrno(errno, "stat", dir);
  if (fstat(fd.get(), &held) != 0) ThrowErrno(errno, "fstat", resolvedDir);
  if (now.st_dev != held.st_dev || now.st_ino != held.st_ino) {
    ThrowSlowdisk(ProbeErrc::kDirChanged, "open", dir,
                  "changed while it was opened as " + resolvedDir +
                      "; not probed there");
  }
  return fd;
}

// The directory, checked to be on the filesystem it is placed on and to lead
// where it led at start.
UniqueFd OpenPlacedDir(const FileSpec& spec, std::string& resolvedDir) {
  RequirePlacedDevice(spec);
  resolvedDir = spec.resolvedDir;
  return OpenDirAsResolved(spec.dir, resolvedDir);
}

}  // namespace

MadeProbeFile MakeProbeFile(const FileSpec& spec) {
  std::string resolvedDir;
  UniqueFd dirFd = OpenPlacedDir(spec, resolvedDir);
  std::vector<std::string> stale = RemoveStaleProbeFiles(dirFd.get(), resolvedDir);
  std::string name = NewProbeName();
  std::string path = JoinPath(resolvedDir, name);
  CreatedProbeFile created =
      CreateProbeFile(dirFd.get(), name, path, spec.ioSize, spec.direct);
  ProbeFile file{resolvedDir, name, std::move(created.id), created.ioSize,
                 created.align};
  if (created.fd.Close() != 0) {
    int err = errno;
    try {
      RemoveProbeFile(file);
    } catch (const SysError&) {
      // The close error is the one worth reporting.
    }
    ThrowErrno(err, "close", path);
  }
  return {std::move(file), std::move(stale)};
}

void RemoveProbeFile(const ProbeFile& file) {
  RemoveProbeFile(file.resolvedDir, file.name, file.id);
}

void SweepStaleProbeFiles(const FileSpec& spec) {
  std::string resolvedDir;
  UniqueFd dirFd = OpenPlacedDir(spec, resolvedDir);
  RemoveStaleProbeFiles(dirFd.get(), resolvedDir);
}
