#pragma once

#include <sys/stat.h>

#include <cstdint>

// Headers older than Linux 6.1 lack DIO alignment in statx; sysfs answers.
#ifdef STATX_DIOALIGN
constexpr unsigned kStatxDioAlign = STATX_DIOALIGN;
#else
constexpr unsigned kStatxDioAlign = 0;
#endif

// The alignment direct I/O on a file needs, and where it was found.
struct Alignment {
  uint32_t align;
  const char* source;  // "statx", "logical-block-size" or "default"
};

// From the file's statx (asked with kStatxDioAlign), else its device's
// logical block size, else 4096.
Alignment ChooseAlignment(const struct statx& stx);
