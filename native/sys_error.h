#pragma once

#include <cstdint>
#include <string>

// A probe failure as the JS side reports it. Built on the worker thread and
// thrown as a C++ exception there; the worker turns it into a JS error.
struct SysError {
  std::string code;     // errno name, or a slowdisk code such as ECORRUPT
  int errnum = 0;       // 0 for slowdisk codes: no syscall returned them
  std::string syscall;
  std::string path;
  std::string detail;   // strerror text, or what went wrong for slowdisk codes
  int64_t offset = -1;  // byte offset in the file, when one is known

  std::string Message() const;
};

SysError FromErrno(int err, const char* syscall, const std::string& path);

[[noreturn]] void ThrowErrno(int err, const char* syscall,
                             const std::string& path);

[[noreturn]] void ThrowSlowdisk(const char* code, const char* syscall,
                                const std::string& path, std::string detail,
                                int64_t offset = -1);

// A syscall that moved fewer bytes than asked has no errno of its own; it is
// reported as EIO so callers can treat it like a device error.
[[noreturn]] void ThrowShort(const char* syscall, const std::string& path,
                             const char* what);
