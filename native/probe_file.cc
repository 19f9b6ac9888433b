#include "probe_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "block_io.h"
#include "sys_error.h"

namespace {

constexpr char kNamePrefix[] = ".slowdisk-probe-";
constexpr char kMagicLine[] = "slowdisk probe file\n";
constexpr uint32_t kDefaultAlign = 4096;
constexpr int kHeaderVersion = 2;
// Enough for every header line; the header block is at least 512 bytes.
constexpr size_t kHeaderRead = 512;

// Headers older than Linux 6.1 lack DIO alignment in statx; sysfs answers.
#ifdef STATX_DIOALIGN
constexpr unsigned kStatxDioAlign = STATX_DIOALIGN;
#else
constexpr unsigned kStatxDioAlign = 0;
#endif

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

std::string NewProbeName() {
  char name[64];
  snprintf(name, sizeof name, "%s%d-%08" PRIx32, kNamePrefix,
           static_cast<int>(getpid()), static_cast<uint32_t>(RandomU64()));
  return name;
}

std::string NewToken() {
  char token[33];
  snprintf(token, sizeof token, "%016" PRIx64 "%016" PRIx64, RandomU64(),
           RandomU64() ^ static_cast<uint64_t>(clock()));
  return token;
}

std::string FirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Who this process is, beyond a PID: PIDs repeat across hosts sharing a
// filesystem, across boots and across PID namespaces (containers).
struct Origin {
  std::string host;
  std::string bootId;
  std::string pidNs;
};

const Origin& ThisOrigin() {
  static const Origin origin = [] {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    std::string h(host);
    std::replace(h.begin(), h.end(), '\n', '_');
    struct stat ns;
    std::string pidNs = stat("/proc/self/ns/pid", &ns) == 0
                            ? std::to_string(ns.st_ino)
                            : std::string();
    return Origin{h, FirstLine("/proc/sys/kernel/random/boot_id"), pidNs};
  }();
  return origin;
}

// When this boot began, in seconds since the epoch; 0 if unknown.
int64_t BootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  int64_t value;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(INT_MAX, '\n');
  }
  return 0;
}

std::string HeaderText(const std::string& token) {
  const Origin& o = ThisOrigin();
  return std::string(kMagicLine) + "version=" + std::to_string(kHeaderVersion) +
         "\npid=" + std::to_string(getpid()) +
         "\ncreated=" + std::to_string(time(nullptr)) + "\nhost=" + o.host +
         "\nboot_id=" + o.bootId + "\npid_ns=" + o.pidNs + "\ntoken=" + token +
         "\nThis file belongs to a running slowdisk prober; it is removed "
         "when the prober exits.\n";
}

using Header = std::map<std::string, std::string>;

// The text of a probe file's header, up to its first NUL; empty unless it
// starts with the magic line.
std::string_view ReadHeaderText(int fd, char (&text)[kHeaderRead + 1]) {
  ssize_t n = pread(fd, text, kHeaderRead, 0);
  if (n <= 0) return {};
  text[n] = '\0';
  std::string_view header(text, strnlen(text, static_cast<size_t>(n)));
  if (header.substr(0, sizeof kMagicLine - 1) != kMagicLine) return {};
  return header;
}

// The key=value lines of a probe file's header; empty unless it starts with
// the magic line.
Header ReadHeader(int fd) {
  char text[kHeaderRead + 1];
  std::istringstream lines{std::string(ReadHeaderText(fd, text))};
  Header header;
  std::string line;
  while (std::getline(lines, line)) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) header.emplace(line.substr(0, eq), line.substr(eq + 1));
  }
  return header;
}

// Whether the header's first token= line holds `token`. Read at every
// inspection, so it scans the text in place rather than parse it all.
bool HeaderHasToken(int fd, const std::string& token) {
  char text[kHeaderRead + 1];
  std::string_view header = ReadHeaderText(fd, text);
  // The magic line comes first, so every other line follows a newline.
  constexpr std::string_view kKey = "\ntoken=";
  size_t at = header.find(kKey);
  if (at == std::string_view::npos) return false;
  std::string_view value = header.substr(at + kKey.size());
  return value.substr(0, value.find('\n')) == token;
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

// The birth time or generation of an open file, whichever it has.
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
  ThrowSlowdisk("ENAMETAKEN", "open", path, Describe(dirFd, name, st, why));
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

std::string Hex(const std::string& bytes) {
  std::string out;
  char two[3];
  for (unsigned char c : bytes) {
    snprintf(two, sizeof two, "%02x", c);
    out += two;
  }
  return out;
}

std::string Unhex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd hex");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
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
    ThrowSlowdisk("EDIRCHANGED", "open", dir,
                  "changed while it was opened as " + resolvedDir +
                      "; not probed there");
  }
  return fd;
}

std::vector<std::string> RemoveStaleIn(int dirFd, const std::string& dir) {
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

}  // namespace

std::string EncodeFileId(const ProbeFileId& id) {
  std::ostringstream out;
  out << "1:" << id.dir.devMajor << ':' << id.dir.devMinor << ':' << id.dir.ino
      << ':' << id.dir.handleType << ':' << Hex(id.dir.handle) << ':' << id.ino
      << ':' << id.hasBtime << ':' << id.btimeSec << ':' << id.btimeNsec << ':'
      << id.hasGeneration << ':' << id.generation << ':' << id.token;
  return out.str();
}

ProbeFileId DecodeFileId(const std::string& text) {
  std::vector<std::string> f;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ':');) f.push_back(part);
  if (!text.empty() && text.back() == ':') f.push_back("");
  if (f.size() != 13 || f[0] != "1") throw std::invalid_argument("not a probe file identity");
  try {
    ProbeFileId id;
    id.dir = {static_cast<uint32_t>(std::stoul(f[1])),
              static_cast<uint32_t>(std::stoul(f[2])), std::stoull(f[3]),
              std::stoi(f[4]), Unhex(f[5])};
    id.ino = std::stoull(f[6]);
    id.hasBtime = f[7] == "1";
    id.btimeSec = std::stoll(f[8]);
    id.btimeNsec = static_cast<uint32_t>(std::stoul(f[9]));
    id.hasGeneration = f[10] == "1";
    id.generation = static_cast<uint32_t>(std::stoul(f[11]));
    id.token = f[12];
    return id;
  } catch (const std::logic_error&) {
    throw std::invalid_argument("not a probe file identity");
  }
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

PreparedProbeFile PrepareProbeFile(const std::string& dir,
                                   const std::string& pinned, uint32_t ioSize,
                                   bool direct) {
  std::string resolvedDir = pinned;
  UniqueFd dirFd = OpenDirAsResolved(dir, resolvedDir);
  std::vector<std::string> stale = RemoveStaleIn(dirFd.get(), resolvedDir);
  std::string name = NewProbeName();
  std::string path = JoinPath(resolvedDir, name);
  CreatedProbeFile created =
      CreateProbeFile(dirFd.get(), name, path, ioSize, direct);
  if (created.fd.Close() != 0) {
    int err = errno;
    try {
      RemoveProbeFile(resolvedDir, name, created.id);
    } catch (const SysError&) {
      // The close error is the one worth reporting.
    }
    ThrowErrno(err, "close", path);
  }
  return {path,           resolvedDir,     name,
          created.id,     created.ioSize,  created.align,
          created.alignSource, std::move(stale)};
}

std::vector<std::string> RemoveStaleProbeFiles(const std::string& dir) {
  std::string resolvedDir;
  UniqueFd dirFd = OpenDirAsResolved(dir, resolvedDir);
  return RemoveStaleIn(dirFd.get(), resolvedDir);
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
    ThrowSlowdisk("ENOTOURS", "unlink", path,
                  "is not this prober's probe file; left in place");
  }
  // Whatever replaced it since is left alone as well.
  UnlinkIfSame(dirFd.get(), name, path, st);
}
