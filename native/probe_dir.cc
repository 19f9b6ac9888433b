#include "probe_dir.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "sys_error.h"

namespace {

[[noreturn]] void ThrowChanged(const std::string& dir, const std::string& now,
                               const std::string& resolvedDir) {
  ThrowSlowdisk(ProbeErrc::kDirChanged, "realpath", dir,
                "now leads to " + now + ", not to " + resolvedDir +
                    " where it led at start; not probed there");
}

int OpenNoSymlinks(const std::string& path, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
  // Before Linux 5.6 only the last component can be refused as a symlink;
  // the identity check that follows every open still catches a redirect.
  if (fd < 0 && errno == ENOSYS) return open(path.c_str(), flags | O_NOFOLLOW);
  return static_cast<int>(fd);
}

}  // namespace

std::string JoinPath(const std::string& dir, const std::string& name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string ResolvedPath(const std::string& dir) {
  std::unique_ptr<char, void (*)(void*)> resolved(realpath(dir.c_str(), nullptr),
                                                  free);
  if (!resolved) ThrowErrno(errno, "realpath", dir);
  return resolved.get();
}

void RequireSameResolution(const std::string& dir,
                           const std::string& resolvedDir) {
  std::string now = ResolvedPath(dir);
  if (now != resolvedDir) ThrowChanged(dir, now, resolvedDir);
}

UniqueFd OpenResolvedDir(const std::string& dir,
                         const std::string& resolvedDir) {
  UniqueFd fd(OpenNoSymlinks(resolvedDir, O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) return fd;
  int err = errno;
  if (err == ELOOP || err == EXDEV) {
    // Some component of the resolved path is a symlink now.
    std::string now;
    try {
      now = ResolvedPath(dir);
    } catch (const SysError&) {
      now = "a path that does not resolve";
    }
    ThrowChanged(dir, now, resolvedDir);
  }
  ThrowErrno(err, "open", resolvedDir);
}

ProbeDirId IdentifyDir(int dirFd, const std::string& path) {
  struct stat st;
  if (fstat(dirFd, &st) != 0) ThrowErrno(errno, "fstat", path);
  ProbeDirId id{major(st.st_dev), minor(st.st_dev), st.st_ino, 0, ""};
  std::vector<unsigned char> buf(sizeof(file_handle) + MAX_HANDLE_SZ);
  auto* handle = reinterpret_cast<file_handle*>(buf.data());
  handle->handle_bytes = MAX_HANDLE_SZ;
  int mountId;
  if (name_to_handle_at(dirFd, "", handle, &mountId, AT_EMPTY_PATH) == 0) {
    id.handleType = handle->handle_type;
    id.handle.assign(reinterpret_cast<const char*>(handle->f_handle),
                     handle->handle_bytes);
  }
  return id;
}

bool IsDir(int dirFd, const ProbeDirId& id) {
  struct stat st;
  return fstat(dirFd, &st) == 0 && S_ISDIR(st.st_mode) &&
         major(st.st_dev) == id.devMajor && minor(st.st_dev) == id.devMinor &&
         st.st_ino == id.ino;
}

UniqueFd ReopenDir(const ProbeDirId& id, const std::string& resolvedDir) {
  if (!id.handle.empty()) {
    std::vector<unsigned char> buf(sizeof(file_handle) + id.handle.size());
    auto* handle = reinterpret_cast<file_handle*>(buf.data());
    handle->handle_bytes = static_cast<unsigned>(id.handle.size());
    handle->handle_type = id.handleType;
    id.handle.copy(reinterpret_cast<char*>(handle->f_handle), id.handle.size());
    // Any object on the directory's filesystem anchors the handle: the
    // nearest ancestor of where it was that still is on it.
    for (std::string at = resolvedDir; !at.empty();) {
      // Not O_PATH: open_by_handle_at refuses such an anchor (EBADF).
      UniqueFd anchor(OpenNoSymlinks(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      struct stat st;
      if (anchor.get() >= 0 && fstat(anchor.get(), &st) == 0 &&
          major(st.st_dev) == id.devMajor && minor(st.st_dev) == id.devMinor) {
        // Needs CAP_DAC_READ_SEARCH; without it the path is the way left.
        UniqueFd fd(open_by_handle_at(anchor.get(), handle,
                                      O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (fd.get() >= 0 && IsDir(fd.get(), id)) return fd;
        break;
      }
      size_t slash = at.rfind('/');
      at = slash == 0 && at != "/" ? "/" : slash == std::string::npos || at == "/"
                                              ? ""
                                              : at.substr(0, slash);
    }
  }
  UniqueFd fd(OpenNoSymlinks(resolvedDir, O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0 && IsDir(fd.get(), id)) return fd;
  return UniqueFd();
}
