#include "block_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sys_error.h"

void FreeDeleter::operator()(void* p) const noexcept { std::free(p); }

IoBuffer AllocateIoBuffer(size_t size, size_t align, const std::string& path) {
  size_t alignment = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  while (alignment < align) alignment <<= 1;
  void* p = nullptr;
  int err = posix_memalign(&p, alignment, size);
  if (err != 0) ThrowErrno(err, "posix_memalign", path);
  return IoBuffer(static_cast<uint8_t*>(p));
}

namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void FillPattern(uint8_t* buf, size_t size, uint64_t seed, uint64_t block) {
  uint64_t state = seed ^ (block * 0xD1B54A32D192ED03ull);
  for (size_t at = 0; at < size; at += sizeof(uint64_t)) {
    uint64_t word = SplitMix64(state);
    std::memcpy(buf + at, &word, std::min(sizeof word, size - at));
  }
}

void WriteBlock(int fd, const uint8_t* buf, size_t size, uint64_t offset,
                const std::string& path) {
  ssize_t n = pwrite(fd, buf, size, static_cast<off_t>(offset));
  if (n < 0) ThrowErrno(errno, "pwrite", path);
  if (static_cast<size_t>(n) != size) ThrowShort("pwrite", path, "short write");
}

void ReadBlock(int fd, uint8_t* buf, size_t size, uint64_t offset,
               const std::string& path) {
  ssize_t n = pread(fd, buf, size, static_cast<off_t>(offset));
  if (n < 0) ThrowErrno(errno, "pread", path);
  if (static_cast<size_t>(n) != size) ThrowShort("pread", path, "short read");
}
