#include "sys_error.h"

#include <cerrno>
#include <cstring>
#include <exception>
#include <new>

namespace {

#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))

std::string ErrnoName(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : "E" + std::to_string(err);
}

std::string ErrnoText(int err) {
  const char* text = strerrordesc_np(err);
  return text != nullptr ? text : "Unknown error " + std::to_string(err);
}

#else

// Without glibc 2.32 there is no errno-to-name lookup; this covers what the
// probe syscalls can return.
std::string ErrnoName(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ETXTBSY: return "ETXTBSY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case ESPIPE: return "ESPIPE";
    case EROFS: return "EROFS";
    case EMLINK: return "EMLINK";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ELOOP: return "ELOOP";
    case EOVERFLOW: return "EOVERFLOW";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ESTALE: return "ESTALE";
    case EDQUOT: return "EDQUOT";
    case ENOTCONN: return "ENOTCONN";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EHOSTDOWN: return "EHOSTDOWN";
    case EUCLEAN: return "EUCLEAN";
    case EREMOTEIO: return "EREMOTEIO";
    case ENOMEDIUM: return "ENOMEDIUM";
    case EBADMSG: return "EBADMSG";
    default: return "E" + std::to_string(err);
  }
}

std::string ErrnoText(int err) { return std::strerror(err); }

#endif

}  // namespace

std::string SysError::Code() const {
  switch (errc) {
    case ProbeErrc::kErrno: return ErrnoName(errnum);
    case ProbeErrc::kCorrupt: return "ECORRUPT";
    case ProbeErrc::kNotOurs: return "ENOTOURS";
    case ProbeErrc::kOtherFs: return "EOTHERFS";
    case ProbeErrc::kDirChanged: return "EDIRCHANGED";
    case ProbeErrc::kNameTaken: return "ENAMETAKEN";
    case ProbeErrc::kInternal: return "EPROBER";
  }
  return "EPROBER";
}

std::string SysError::Message() const {
  std::string message =
      Code() + ": " + (syscall.empty() ? "" : syscall + " ") + path;
  // Kernel errors read like Node's ("EIO: ... (Input/output error)"); our own
  // codes carry a sentence instead.
  return errnum != 0 ? message + " (" + detail + ")" : message + " " + detail;
}

SysError FromErrno(int err, const char* syscall, const std::string& path) {
  return SysError{ProbeErrc::kErrno, err, syscall, path, ErrnoText(err)};
}

void ThrowErrno(int err, const char* syscall, const std::string& path) {
  throw FromErrno(err, syscall, path);
}

void ThrowSlowdisk(ProbeErrc errc, const char* syscall,
                   const std::string& path, std::string detail,
                   int64_t offset) {
  throw SysError{errc, 0, syscall, path, std::move(detail), offset};
}

SysError CaughtError(const std::string& path) {
  try {
    throw;
  } catch (const SysError& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return FromErrno(ENOMEM, "malloc", path);
  } catch (const std::exception& e) {
    return SysError{ProbeErrc::kInternal, 0, "", path, e.what()};
  } catch (...) {
    return SysError{ProbeErrc::kInternal, 0, "", path, "unknown exception"};
  }
}

void ThrowShort(const char* syscall, const std::string& path,
                const char* what) {
  throw SysError{ProbeErrc::kErrno, EIO, syscall, path, what};
}
