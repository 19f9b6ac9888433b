#include "resolve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>

#include "probe_dir.h"
#include "sys_error.h"

DirIdentity ResolveDir(const std::string& dir, const std::string& pinned) {
  struct statx stx;
  if (statx(AT_FDCWD, dir.c_str(), AT_STATX_SYNC_AS_STAT,
            STATX_MNT_ID | STATX_BASIC_STATS, &stx) != 0) {
    ThrowErrno(errno, "statx", dir);
  }
  if (!S_ISDIR(stx.stx_mode)) ThrowErrno(ENOTDIR, "statx", dir);
  std::string resolvedDir = ResolvedPath(dir);
  if (!pinned.empty() && resolvedDir != pinned) {
    RequireSameResolution(dir, pinned);
  }

  struct statfs fs;
  if (statfs(dir.c_str(), &fs) != 0) ThrowErrno(errno, "statfs", dir);
  return {(stx.stx_mask & STATX_MNT_ID) != 0 ? stx.stx_mnt_id : 0,
          stx.stx_dev_major, stx.stx_dev_minor,
          // Magics are 32-bit; f_type is a signed long on some ABIs.
          static_cast<uint32_t>(fs.f_type), resolvedDir};
}
