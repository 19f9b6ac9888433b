#pragma once

#include <cerrno>
#include <cstdint>
#include <string>

// What went wrong, as code acts on it; the errno, or one of slowdisk's own
// failures. Its text (ProbeError's `code` in JS) is made only at the
// boundary (SysError::Code).
enum class ProbeErrc {
  kErrno,       // a syscall's errno
  kCorrupt,     // ECORRUPT: a block read back different data
  kNotOurs,     // ENOTOURS: the name no longer holds our file; not removed
  kOtherFs,     // EOTHERFS: the directory is on another filesystem now
  kDirChanged,  // EDIRCHANGED: the path leads elsewhere than at start
  kNameTaken,   // ENAMETAKEN: the probe file's name holds someone else's
  kInternal,    // EPROBER: a fault of the prober itself, not of the disk
};

// A probe failure as the JS side reports it. Built on the worker thread and
// thrown as a C++ exception there; the worker turns it into a JS error.
struct SysError {
  ProbeErrc errc = ProbeErrc::kErrno;
  int errnum = 0;       // 0 for slowdisk's own failures: no syscall returned them
  std::string syscall;
  std::string path;
  std::string detail;   // strerror text, or what went wrong for slowdisk codes
  int64_t offset = -1;  // byte offset in the file, when one is known

  // The errno name, or slowdisk's code.
  std::string Code() const;
  std::string Message() const;
  // A name race lost: something was put at a probe file's name (ENAMETAKEN),
  // or made at a fresh name first (EEXIST).
  bool NameLost() const {
    return errc == ProbeErrc::kNameTaken ||
           (errc == ProbeErrc::kErrno && errnum == EEXIST);
  }
};

SysError FromErrno(int err, const char* syscall, const std::string& path);

[[noreturn]] void ThrowErrno(int err, const char* syscall,
                             const std::string& path);

[[noreturn]] void ThrowSlowdisk(ProbeErrc errc, const char* syscall,
                                const std::string& path, std::string detail,
                                int64_t offset = -1);

// The exception being handled (inside a catch block), whatever it is, as a
// failure to report: a detached thread must never let one escape.
SysError CaughtError(const std::string& path);

// A syscall that moved fewer bytes than asked has no errno of its own; it is
// reported as EIO so callers can treat it like a device error.
[[noreturn]] void ThrowShort(const char* syscall, const std::string& path,
                             const char* what);
