#include "probe_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <utility>

#include "block_io.h"
#include "sys_error.h"

namespace {

constexpr char kNamePrefix[] = ".slowdisk-probe-";
constexpr char kMagicLine[] = "slowdisk probe file\n";
constexpr uint32_t kDefaultAlign = 4096;

// Headers older than Linux 6.1 lack DIO alignment in statx; sysfs answers.
#ifdef STATX_DIOALIGN
constexpr unsigned kStatxDioAlign = STATX_DIOALIGN;
#else
constexpr unsigned kStatxDioAlign = 0;
#endif

std::string JoinPath(const std::string& dir, const std::string& name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Names and fill data only need to be unlikely to repeat (O_EXCL guards the
// rest), so an entropy pool that is not ready yet must not block a prober
// started early in boot.
uint64_t RandomU64() {
  uint64_t value;
  if (getrandom(&value, sizeof value, GRND_NONBLOCK) == sizeof value) {
    return value;
  }
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (static_cast<uint64_t>(now.tv_sec) * 1000000000ull +
          static_cast<uint64_t>(now.tv_nsec)) ^
         (static_cast<uint64_t>(getpid()) << 40);
}

std::string NewProbePath(const std::string& dir) {
  char name[64];
  snprintf(name, sizeof name, "%s%d-%08" PRIx32, kNamePrefix,
           static_cast<int>(getpid()), static_cast<uint32_t>(RandomU64()));
  return JoinPath(dir, name);
}

std::string HeaderText() {
  return std::string(kMagicLine) + "version=1\npid=" +
         std::to_string(getpid()) + "\ncreated=" +
         std::to_string(time(nullptr)) +
         "\nThis file belongs to a running slowdisk prober; it is removed "
         "when the prober exits.\n";
}

uint32_t LogicalBlockSize(uint32_t major, uint32_t minor) {
  std::string dev = "/sys/dev/block/" + std::to_string(major) + ":" +
                    std::to_string(minor) + "/";
  // A partition has no queue/ of its own: its disk's is one level up.
  for (const char* queue : {"queue/", "../queue/"}) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(
        fopen((dev + queue + "logical_block_size").c_str(), "re"), fclose);
    unsigned size = 0;
    if (f && fscanf(f.get(), "%u", &size) == 1 && size > 0) return size;
  }
  return 0;
}

struct Alignment {
  uint32_t align;
  const char* source;
};

Alignment ChooseAlignment(const struct statx& stx) {
  // Memory alignment never exceeds offset alignment on real devices; taking
  // the larger keeps a single number valid for both.
#ifdef STATX_DIOALIGN
  if ((stx.stx_mask & STATX_DIOALIGN) != 0 && stx.stx_dio_offset_align > 0) {
    return {std::max(stx.stx_dio_offset_align, stx.stx_dio_mem_align),
            "statx"};
  }
#endif
  uint32_t size = LogicalBlockSize(stx.stx_dev_major, stx.stx_dev_minor);
  if (size > 0) return {size, "logical-block-size"};
  return {kDefaultAlign, "default"};
}

// Unlinks `path` only while it names the very file `ours`: whatever someone
// else put there, even under a probe name, is left alone. True if removed.
bool UnlinkIfSame(const std::string& path, const struct stat& ours) {
  struct stat now;
  if (fstatat(AT_FDCWD, path.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    ThrowErrno(errno, "fstatat", path);
  }
  if (now.st_dev != ours.st_dev || now.st_ino != ours.st_ino) return false;
  if (unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return false;
    ThrowErrno(errno, "unlink", path);
  }
  return true;
}

// A creation that fails part-way must not leave a probe file behind.
class RemoveUnlessKept {
 public:
  RemoveUnlessKept(const std::string& path, int fd) : path_(path), fd_(fd) {}
  ~RemoveUnlessKept() {
    struct stat ours;
    if (kept_ || fstat(fd_, &ours) != 0) return;
    try {
      UnlinkIfSame(path_, ours);
    } catch (...) {
      // The creation error is the one worth reporting.
    }
  }
  void Keep() { kept_ = true; }

 private:
  const std::string& path_;
  int fd_;
  bool kept_ = false;
};

void WriteLayout(int fd, const std::string& path, uint32_t ioSize,
                 uint32_t align) {
  IoBuffer buf = AllocateIoBuffer(ioSize, align, path);
  std::string header = HeaderText();
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

// The pid in ".slowdisk-probe-<pid>-<8 lowercase hex>", or 0 when `name` is
// not a probe file name.
pid_t PidFromProbeName(const char* name) {
  if (strncmp(name, kNamePrefix, sizeof kNamePrefix - 1) != 0) return 0;
  const char* p = name + sizeof kNamePrefix - 1;
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

// Stale means: our header, written by the pid the name carries, and that
// process is gone. Anything that does not say so is someone else's.
bool IsStaleProbeFile(int fd, pid_t pid) {
  char header[512];
  ssize_t n = pread(fd, header, sizeof header - 1, 0);
  if (n <= 0) return false;
  header[n] = '\0';
  std::string pidLine = "\npid=" + std::to_string(pid) + "\n";
  return strncmp(header, kMagicLine, sizeof kMagicLine - 1) == 0 &&
         strstr(header, pidLine.c_str()) != nullptr && kill(pid, 0) != 0 &&
         errno == ESRCH;
}

bool IsRegularFile(const std::string& path, struct stat& st) {
  return fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
}

}  // namespace

bool IsSameInode(uint64_t actual, double expected) {
  return static_cast<double>(actual) == expected;
}

CreatedProbeFile CreateProbeFile(const std::string& path, uint32_t ioSize,
                                 bool direct) {
  int flags = O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_RDWR |
              (direct ? O_DIRECT : 0);
  UniqueFd fd(open(path.c_str(), flags, 0600));
  if (fd.get() < 0) {
    int err = errno;
    // A filesystem without O_DIRECT (ramfs, some FUSE) refuses the open only
    // after creating the file. O_EXCL means an empty file there is that one.
    struct stat st;
    if (err == EINVAL && direct &&
        fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_size == 0) {
      unlink(path.c_str());
    }
    ThrowErrno(err, "open", path);
  }
  RemoveUnlessKept cleanup(path, fd.get());

  struct statx stx;
  if (statx(fd.get(), "", AT_EMPTY_PATH, STATX_INO | kStatxDioAlign, &stx) !=
      0) {
    ThrowErrno(errno, "statx", path);
  }
  Alignment alignment = ChooseAlignment(stx);
  auto size = static_cast<uint32_t>((uint64_t{ioSize} + alignment.align - 1) /
                                    alignment.align * alignment.align);
  WriteLayout(fd.get(), path, size, alignment.align);
  cleanup.Keep();
  return {std::move(fd),    stx.stx_ino, stx.stx_dev_major, stx.stx_dev_minor,
          size,             alignment.align, alignment.source};
}

PreparedProbeFile PrepareProbeFile(const std::string& dir, uint32_t ioSize,
                                   bool direct) {
  std::vector<std::string> stale = RemoveStaleProbeFiles(dir);
  std::string path = NewProbePath(dir);
  CreatedProbeFile created = CreateProbeFile(path, ioSize, direct);
  if (created.fd.Close() != 0) {
    int err = errno;
    try {
      RemoveProbeFile(path, static_cast<double>(created.ino));
    } catch (const SysError&) {
      // The close error is the one worth reporting.
    }
    ThrowErrno(err, "close", path);
  }
  return {path,           created.ino,   created.devMajor,
          created.devMinor, created.ioSize, created.align,
          created.alignSource, std::move(stale)};
}

std::vector<std::string> RemoveStaleProbeFiles(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) ThrowErrno(errno, "opendir", dir);
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
    if (!IsRegularFile(path, before)) continue;
    UniqueFd fd(open(path.c_str(),
                     O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0 || fstat(fd.get(), &opened) != 0 ||
        opened.st_dev != before.st_dev || opened.st_ino != before.st_ino ||
        !IsStaleProbeFile(fd.get(), pid)) {
      continue;
    }
    if (UnlinkIfSame(path, opened)) removed.push_back(path);
  }
  return removed;
}

void RemoveProbeFile(const std::string& path, double ino) {
  struct stat st;
  if (fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    ThrowErrno(errno, "fstatat", path);
  }
  if (!S_ISREG(st.st_mode) || !IsSameInode(st.st_ino, ino)) {
    ThrowSlowdisk("ENOTOURS", "unlink", path,
                  "is not this prober's probe file; left in place");
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    ThrowErrno(errno, "unlink", path);
  }
}
