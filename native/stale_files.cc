#include "stale_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "probe_dir.h"
#include "probe_file.h"
#include "probe_header.h"
#include "sys_error.h"
#include "unique_fd.h"

namespace {

// The pid in ".slowdisk-probe-<pid>-<8 lowercase hex>", or 0 when `name` is
// not a probe file name.
pid_t PidFromProbeName(const char* name) {
  if (strncmp(name, kProbeNamePrefix, sizeof kProbeNamePrefix - 1) != 0) return 0;
  const char* p = name + sizeof kProbeNamePrefix - 1;
  if (*p < '1' || *p > '9') return 0;
  int64_t pid = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    pid = pid * 10 + (*p - '0');
    if (pid > INT_MAX) return 0;
  }
  if (*p++ != '-') return 0;
  for (int i = 0; i < 8; ++i, ++p) {
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
  }
  return *p == '\0' ? static_cast<pid_t>(pid) : 0;
}

// Filesystems other hosts may write too: a version 1 header names no host.
bool IsShared(int dirFd) {
  struct statfs fs;
  if (fstatfs(dirFd, &fs) != 0) return true;
  switch (static_cast<uint32_t>(fs.f_type)) {
    case NFS_SUPER_MAGIC:
    case SMB_SUPER_MAGIC:
    case 0xff534d42:  // cifs
    case 0xfe534d42:  // smb2
    case 0x00c36400:  // ceph
    case 0x65735546:  // fuse
    case 0x01161970:  // gfs2
    case 0x7461636f:  // ocfs2
    case V9FS_MAGIC:
    case AFS_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

bool CreatedBeforeBoot(const Header& header) {
  auto created = header.find("created");
  int64_t boot = BootTime();
  return created != header.end() && boot > 0 &&
         strtoll(created->second.c_str(), nullptr, 10) < boot;
}

// Stale means provably dead: our header, written by the pid the name
// carries, on this host, and either in an earlier boot, or in this boot and
// PID namespace by a process that no longer exists. A version 1 header
// (older slowdisk) names only a pid, so it is stale only if it was made
// before this boot on a filesystem no other host writes.
bool IsStaleProbeFile(int fd, int dirFd, pid_t pid) {
  Header header = ReadHeader(fd);
  auto field = [&](const char* key) {
    auto it = header.find(key);
    return it == header.end() ? std::string() : it->second;
  };
  if (field("pid") != std::to_string(pid)) return false;
  const std::string version = field("version");
  if (version == "1") return CreatedBeforeBoot(header) && !IsShared(dirFd);
  if (version != std::to_string(kHeaderVersion)) return false;
  const Origin& o = ThisOrigin();
  if (o.host.empty() || field("host") != o.host) return false;
  if (field("boot_id") != o.bootId) return CreatedBeforeBoot(header);
  return !o.pidNs.empty() && field("pid_ns") == o.pidNs && kill(pid, 0) != 0 &&
         errno == ESRCH;
}

}  // namespace

std::vector<std::string> RemoveStaleProbeFiles(int dirFd, const std::string& dir) {
  int listing = openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing < 0) ThrowErrno(errno, "opendir", dir);
  std::unique_ptr<DIR, int (*)(DIR*)> d(fdopendir(listing), closedir);
  if (!d) {
    int err = errno;
    close(listing);
    ThrowErrno(err, "opendir", dir);
  }
  std::vector<std::pair<std::string, pid_t>> candidates;
  for (;;) {
    errno = 0;
    const dirent* entry = readdir(d.get());
    if (entry == nullptr) {
      if (errno != 0) ThrowErrno(errno, "readdir", dir);
      break;
    }
    pid_t pid = PidFromProbeName(entry->d_name);
    if (pid != 0) candidates.emplace_back(entry->d_name, pid);
  }

  std::vector<std::string> removed;
  for (const auto& [name, pid] : candidates) {
    std::string path = JoinPath(dir, name);
    // Only regular files are opened: opening a FIFO or a device can block or
    // have side effects. O_NONBLOCK covers one swapped in after the check.
    struct stat before, opened;
    if (fstatat(dirFd, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(before.st_mode)) {
      continue;
    }
    UniqueFd fd(openat(dirFd, name.c_str(),
                       O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0 || fstat(fd.get(), &opened) != 0 ||
        opened.st_dev != before.st_dev || opened.st_ino != before.st_ino ||
        !IsStaleProbeFile(fd.get(), dirFd, pid)) {
      continue;
    }
    if (UnlinkIfSame(dirFd, name, path, opened)) removed.push_back(path);
  }
  return removed;
}
