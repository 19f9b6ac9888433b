#include "probe_file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <utility>

#include "block_io.h"
#include "dio_alignment.h"
#include "probe_header.h"
#include "sys_error.h"

namespace {

void FillAge(int fd, const struct statx& stx, ProbeFileId& id) {
  id.hasBtime = (stx.stx_mask & STATX_BTIME) != 0;
  id.btimeSec = id.hasBtime ? stx.stx_btime.tv_sec : 0;
  id.btimeNsec = id.hasBtime ? stx.stx_btime.tv_nsec : 0;
  int generation = 0;
  id.hasGeneration =
      !id.hasBtime && ioctl(fd, FS_IOC_GETVERSION, &generation) == 0;
  id.generation = id.hasGeneration ? static_cast<uint32_t>(generation) : 0;
}

struct statx StatxFd(int fd, const std::string& path, unsigned mask) {
  struct statx stx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | mask, &stx) != 0) {
    ThrowErrno(errno, "statx", path);
  }
  return stx;
}

std::string Kind(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    default: return "a file";
  }
}

// What was found at a probe name that is not this prober's file, for the
// event that reports it.
std::string Describe(int dirFd, const std::string& name, const struct stat& st,
                     const char* why) {
  std::string what;
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlinkat(dirFd, name.c_str(), target, sizeof target - 1);
    what = "a symbolic link to " +
           (n >= 0 ? std::string(target, static_cast<size_t>(n)) : "?");
  } else if (S_ISREG(st.st_mode)) {
    what = (st.st_nlink > 1 ? "a hard link (" + std::to_string(st.st_nlink) +
                                  " links) to a regular file"
                            : std::string("a regular file")) +
           " of " + std::to_string(st.st_size) + " bytes, inode " +
           std::to_string(st.st_ino) + ", owner uid " +
           std::to_string(st.st_uid);
  } else {
    what = Kind(st.st_mode);
  }
  return "is taken by someone else: " + what + (why[0] ? std::string(" (") + why + ")" : "") +
         "; left untouched";
}

[[noreturn]] void ThrowNameTaken(int dirFd, const std::string& name,
                                 const std::string& path, const struct stat& st,
                                 const char* why = "") {
  ThrowSlowdisk(ProbeErrc::kNameTaken, "open", path, Describe(dirFd, name, st, why));
}

bool SameDevIno(const struct stat& st, const ProbeFileId& id) {
  return major(st.st_dev) == id.dir.devMajor &&
         minor(st.st_dev) == id.dir.devMinor && st.st_ino == id.ino;
}

// Why the open file `fd` is not `id`'s; null if it is. "" for another inode
// (there is nothing more to say of it than what it is).
const char* NotOurs(int fd, const std::string& path, const ProbeFileId& id) {
  struct statx stx = StatxFd(fd, path, STATX_BTIME);
  if (!S_ISREG(stx.stx_mode) || stx.stx_dev_major != id.dir.devMajor ||
      stx.stx_dev_minor != id.dir.devMinor || stx.stx_ino != id.ino) {
    return "";
  }
  if (id.hasBtime && ((stx.stx_mask & STATX_BTIME) == 0 ||
                      stx.stx_btime.tv_sec != id.btimeSec ||
                      stx.stx_btime.tv_nsec != id.btimeNsec)) {
    return "same inode number, another birth time";
  }
  int generation = 0;
  if (id.hasGeneration && (ioctl(fd, FS_IOC_GETVERSION, &generation) != 0 ||
                           static_cast<uint32_t>(generation) != id.generation)) {
    return "same inode number, another generation";
  }
  if (!HeaderHasToken(fd, id.token)) {
    return "same inode number, not this prober's header";
  }
  return nullptr;
}

// Unlinks `name` only while it names `ours`: whatever someone else put


// A creation that fails part-way must not leave a probe file behind.
class RemoveUnlessKept {
 public:
  RemoveUnlessKept(int dirFd, const std::string& name, const std::string& path,
                   int fd)
      : dirFd_(dirFd), name_(name), path_(path), fd_(fd) {}
  ~RemoveUnlessKept() {
    struct stat ours;
    if (kept_ || fstat(fd_, &ours) != 0) return;
    try {
      UnlinkIfSame(dirFd_, name_, path_, ours);
    } catch (...) {
      // The creation error is the one worth reporting.
    }
  }
  void Keep() { kept_ = true; }

 private:
  int dirFd_;
  const std::string& name_;
  const std::string& path_;
  int fd_;
  bool kept_ = false;
};

void WriteLayout(int fd, const std::string& path, uint32_t ioSize,
                 uint32_t align, const std::string& token) {
  IoBuffer buf = AllocateIoBuffer(ioSize, align, path);
  std::string header = HeaderText(token);
  std::memset(buf.get(), 0, ioSize);
  std::memcpy(buf.get(), header.data(), std::min<size_t>(header.size(), ioSize));
  WriteBlock(fd, buf.get(), ioSize, 0, path);

  off_t size = static_cast<off_t>(ioSize) * (1 + kDataBlocks);
  if (fallocate(fd, 0, 0, size) != 0 && errno != EOPNOTSUPP) {
    ThrowErrno(errno, "fallocate", path);
  }
  uint64_t seed = RandomU64();
  for (uint32_t block = 0; block < kDataBlocks; ++block) {
    FillPattern(buf.get(), ioSize, seed, block);
    WriteBlock(fd, buf.get(), ioSize, uint64_t{ioSize} * (1 + block), path);
  }
  if (fdatasync(fd) != 0) ThrowErrno(errno, "fdatasync", path);
}

}  // namespace

std::string NewProbeName() {
  char name[64];
  snprintf(name, sizeof name, "%s%d-%08" PRIx32, kProbeNamePrefix,
           static_cast<int>(getpid()), static_cast<uint32_t>(RandomU64()));
  return name;
}

// there, even under a probe name, is left alone. True if removed.
bool UnlinkIfSame(int dirFd, const std::string& name, const std::string& path,
                  const struct stat& ours) {
  struct stat now;
  if (fstatat(dirFd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    ThrowErrno(errno, "fstatat", path);
  }
  if (now.st_dev != ours.st_dev || now.st_ino != ours.st_ino) return false;
  if (unlinkat(dirFd, name.c_str(), 0) != 0) {
    if (errno == ENOENT) return false;
    ThrowErrno(errno, "unlink", path);
  }
  return true;
}

CreatedProbeFile CreateProbeFile(int dirFd, const std::string& name,
                                 const std::string& path, uint32_t ioSize,
                                 bool direct) {
  int flags = O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_RDWR |
              (direct ? O_DIRECT : 0);
  UniqueFd fd(openat(dirFd, name.c_str(), flags, 0600));
  if (fd.get() < 0) {
    int err = errno;
    // A filesystem without O_DIRECT (ramfs, some FUSE) refuses the open only
    // after creating the file. O_EXCL means an empty file there is that one.
    struct stat st;
    if (err == EINVAL && direct &&
        fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_size == 0) {
      unlinkat(dirFd, name.c_str(), 0);
    }
    ThrowErrno(err, "open", path);
  }
  RemoveUnlessKept cleanup(dirFd, name, path, fd.get());

  struct statx stx = StatxFd(fd.get(), path, STATX_BTIME | kStatxDioAlign);
  Alignment alignment = ChooseAlignment(stx);
  auto size = static_cast<uint32_t>((uint64_t{ioSize} + alignment.align - 1) /
                                    alignment.align * alignment.align);
  ProbeFileId id{IdentifyDir(dirFd, path), stx.stx_ino, false, 0, 0, false, 0,
                 NewToken()};
  FillAge(fd.get(), stx, id);
  WriteLayout(fd.get(), path, size, alignment.align, id.token);
  cleanup.Keep();
  return {std::move(fd), std::move(id), size, alignment.align,
          alignment.source};
}

UniqueFd OpenOwnProbeFile(int dirFd, const std::string& name,
                          const std::string& path, const ProbeFileId& id,
                          int ioFlags) {
  // Looked at before it is opened: opening a FIFO or a device can block or
  // have side effects.
  struct stat st;
  if (fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return UniqueFd();
    ThrowErrno(errno, "fstatat", path);
  }
  if (!S_ISREG(st.st_mode) || !SameDevIno(st, id)) {
    ThrowNameTaken(dirFd, name, path, st);
  }
  // Opened through the page cache, where the header stays, so that reading
  // it back costs no device read; O_DIRECT is set once it is checked.
  UniqueFd fd(openat(dirFd, name.c_str(),
                     O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) return UniqueFd();
    ThrowErrno(errno, "open", path);
  }
  if (const char* why = NotOurs(fd.get(), path, id)) {
    // What took the name is described as it is now, on this rare path only.
    if (fstat(fd.get(), &st) != 0) ThrowErrno(errno, "fstat", path);
    ThrowNameTaken(dirFd, name, path, st, why);
  }
  // F_SETFL changes only O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME and
  // O_NONBLOCK, and of those the file was opened with O_NONBLOCK alone:
  // setting ioFlags clears it, with no F_GETFL first.
  if (fcntl(fd.get(), F_SETFL, ioFlags) != 0) ThrowErrno(errno, "fcntl", path);
  return fd;
}

void RemoveProbeFile(const std::string& resolvedDir, const std::string& name,
                     const ProbeFileId& id) {
  const std::string path = JoinPath(resolvedDir, name);
  UniqueFd dirFd = ReopenDir(id.dir, resolvedDir);
  // Its directory is gone, or out of reach (under another mount): nothing
  // of it can be removed from here.
  if (dirFd.get() < 0) return;
  struct stat st;
  if (fstatat(dirFd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    ThrowErrno(errno, "fstatat", path);
  }
  UniqueFd fd;
  if (S_ISREG(st.st_mode) && SameDevIno(st, id)) {
    fd = UniqueFd(openat(dirFd.get(), name.c_str(),
                         O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  }
  if (fd.get() < 0 || NotOurs(fd.get(), path, id) != nullptr) {
    ThrowSlowdisk(ProbeErrc::kNotOurs, "unlink", path,
                  "is not this prober's probe file; left in place");
  }
  // Whatever replaced it since is left alone as well.
  UnlinkIfSame(dirFd.get(), name, path, st);
}
