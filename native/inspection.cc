#include "inspection.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "block_io.h"
#include "probe_dir.h"
#include "probe_file.h"
#include "sys_error.h"

namespace {

uint64_t NowNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(now.tv_nsec);
}

void Sync(int fd, bool fsync, const std::string& path) {
  if ((fsync ? ::fsync(fd) : fdatasync(fd)) != 0) {
    ThrowErrno(errno, fsync ? "fsync" : "fdatasync", path);
  }
}

// Opens the directory where the path led at start, and fails unless the
// path still leads there. A path that leads elsewhere through a symlink now
// is never probed (EDIRCHANGED); one whose directory is on another
// filesystem now was either uncovered by an unmount, and a file there would
// land on the disk below, or covered by a new mount, which the caller has to
// place (it may share another path's disk) before probing (EOTHERFS). Sets
// `sameDir` unless another directory took the path's place on the same
// filesystem, where a new probe file is made.
UniqueFd OpenProbeDir(const InspectRequest& r, const std::string& path,
                      bool& sameDir) {
  struct statx now;
  if (statx(AT_FDCWD, r.dir.c_str(), AT_STATX_SYNC_AS_STAT,
            STATX_TYPE | STATX_INO, &now) != 0) {
    // A directory that is gone fails as the open of its file would.
    if (errno == ENOENT) ThrowErrno(ENOENT, "open", path);
    ThrowErrno(errno, "statx", r.dir);
  }
  const ProbeDirId& id = r.id.dir;
  const bool sameDev =
      now.stx_dev_major == id.devMajor && now.stx_dev_minor == id.devMinor;
  sameDir = sameDev && now.stx_ino == id.ino;
  if (!sameDir) {
    RequireSameResolution(r.dir, r.resolvedDir);
    if (!sameDev) {
      ThrowSlowdisk(
          ProbeErrc::kOtherFs, "open", path,
          "is missing, and " + r.dir + " is now on another filesystem (" +
              std::to_string(now.stx_dev_major) + ":" +
              std::to_string(now.stx_dev_minor) + ") than the file was "
              "made on (" + std::to_string(id.devMajor) + ":" +
              std::to_string(id.devMinor) + "); no probe file made there");
    }
  }
  UniqueFd dirFd = OpenResolvedDir(r.dir, r.resolvedDir);
  struct stat held;
  if (fstat(dirFd.get(), &held) != 0) ThrowErrno(errno, "fstat", r.resolvedDir);
  if (major(held.st_dev) != now.stx_dev_major ||
      minor(held.st_dev) != now.stx_dev_minor || held.st_ino != now.stx_ino) {
    ThrowSlowdisk(ProbeErrc::kDirChanged, "open", r.dir,
                  "changed while it was opened as " + r.resolvedDir +
                      "; not probed there");
  }
  return dirFd;
}

// The timed round trip rewrites blocks the probe file already holds, which a
// full filesystem, or a thin-provisioned disk out of space, still takes. One
// block written to a new, unnamed file (O_TMPFILE, gone on close) needs a
// block the filesystem must allocate and the device must store, so those
// faults fail here (ENOSPC, EIO). It changes nothing of the probe file, so
// no later timed sync has a journal commit of it to pay for; with O_DIRECT
// the write reaches the device before pwrite returns, and needs no sync.
// A filesystem without O_TMPFILE is not checked.
void WriteFreshBlock(const InspectRequest& r, int dirFd, const uint8_t* buf) {
  const std::string& dir = r.resolvedDir;
  UniqueFd fd(openat(dirFd, ".",
                     O_TMPFILE | O_RDWR | O_CLOEXEC | (r.direct ? O_DIRECT : 0),
                     0600));
  if (fd.get() < 0) {
    if (errno == EOPNOTSUPP || errno == EISDIR) return;
    ThrowErrno(errno, "open", dir);
  }
  WriteBlock(fd.get(), buf, r.ioSize, 0, dir);
  if (!r.direct) Sync(fd.get(), r.fsync, dir);
  if (fd.Close() != 0) ThrowErrno(errno, "close", dir);
}

// The block written and the block read back, kept by each thread from one
// inspection to the next while their size and alignment stay the same.
struct InspectionBuffers {
  IoBuffer written, read;
  size_t size = 0, align = 0;
};

InspectionBuffers& BuffersFor(const InspectRequest& r, const std::string& path) {
  thread_local InspectionBuffers buffers;
  if (buffers.size != r.ioSize || buffers.align != r.align) {
    buffers.size = 0;
    buffers.written = AllocateIoBuffer(r.ioSize, r.align, path);
    buffers.read = AllocateIoBuffer(r.ioSize, r.align, path);
    buffers.size = r.ioSize;
    buffers.align = r.align;
  }
  return buffers;
}

}  // namespace

InspectResult Inspect(const InspectRequest& r) {
  const std::string path = JoinPath(r.resolvedDir, r.name);
  const uint64_t offset = (1 + r.block % r.blocks) * uint64_t{r.ioSize};
  InspectionBuffers& buffers = BuffersFor(r, path);
  uint8_t* const written = buffers.written.get();
  uint8_t* const read = buffers.read.get();
  FillPattern(written, r.ioSize, r.seed, r.block % r.blocks);

  InspectResult result{};
  const uint64_t start = NowNs();
  bool sameDir = false;
  UniqueFd dirFd = OpenProbeDir(r, path, sameDir);
  UniqueFd fd;
  if (sameDir) {
    fd = OpenOwnProbeFile(dirFd.get(), r.name, path, r.id,
                          r.direct ? O_DIRECT : 0);
    result.id = r.id;
  }
  result.dirReplaced = !sameDir;
  if (fd.get() < 0) {
    // Removed by someone, or the directory was replaced: the probe goes on
    // with a new file under the same name.
    CreatedProbeFile created = [&] {
      try {
        return CreateProbeFile(dirFd.get(), r.name, path, r.ioSize, r.direct);
      } catch (const SysError& error) {
        // Something was put at the name between the look and the make: a
        // name race lost, not a fault of the disk.
        if (error.errc != ProbeErrc::kErrno || error.errnum != EEXIST) throw;
        ThrowSlowdisk(ProbeErrc::kNameTaken, "open", path,
                      "is taken by someone else: made at the name while the "
                      "probe file was being made again; left untouched");
      }
    }();
    fd = std::move(created.fd);
    result.created = true;
    result.id = std::move(created.id);
  }
  const uint64_t opened = NowNs();

  WriteBlock(fd.get(), written, r.ioSize, offset, path);
  const uint64_t wrote = NowNs();

  Sync(fd.get(), r.fsync, path);
  const uint64_t synced = NowNs();

  if (!r.direct) {
    // Without O_DIRECT the read would be served from the page cache we just
    // wrote; dropping the (now clean) pages sends it to the device. The
    // kernel only drops whole pages inside the range, so it is widened to
    // the pages the block touches.
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t first = offset / page * page;
    const uint64_t last = (offset + r.ioSize + page - 1) / page * page;
    int err = posix_fadvise(fd.get(), static_cast<off_t>(first),
                            static_cast<off_t>(last - first),
                            POSIX_FADV_DONTNEED);
    if (err != 0) ThrowErrno(err, "posix_fadvise", path);
  }
  ReadBlock(fd.get(), read, r.ioSize, offset, path);
  const uint64_t readDone = NowNs();

  if (std::memcmp(written, read, r.ioSize) != 0) {
    size_t at = 0;
    while (written[at] == read[at]) ++at;
    ThrowSlowdisk(ProbeErrc::kCorrupt, "pread", path,
                  "read back different data at byte " +
                      std::to_string(offset + at),
                  static_cast<int64_t>(offset + at));
  }

  const uint64_t closing = NowNs();
  if (fd.Close() != 0) ThrowErrno(errno, "close", path);
  const uint64_t end = NowNs();

  result.openNs = opened - start;
  result.writeNs = wrote - opened;
  result.syncNs = synced - wrote;
  result.readNs = readDone - synced;
  result.closeNs = end - closing;
  result.totalNs = end - start;

  // Untimed. A file made just now has just been given all its blocks.
  if (r.freshBlock && !result.created) {
    WriteFreshBlock(r, dirFd.get(), written);
  }
  return result;
}
