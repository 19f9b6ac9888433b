#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct FreeDeleter {
  void operator()(void* p) const noexcept;
};

using IoBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

// A buffer usable for O_DIRECT: aligned to at least a page, which covers the
// memory alignment of every block device, and to `align` when larger.
IoBuffer AllocateIoBuffer(size_t size, size_t align, const std::string& path);

// Fills `size` bytes with splitmix64 words derived from (seed, block): a
// fresh seed makes every write carry data the device has not seen there yet.
void FillPattern(uint8_t* buf, size_t size, uint64_t seed, uint64_t block);

// A transfer shorter than asked is an error: the probe block is either
// written and read whole, or the device is not behaving.
void WriteBlock(int fd, const uint8_t* buf, size_t size, uint64_t offset,
                const std::string& path);
void ReadBlock(int fd, uint8_t* buf, size_t size, uint64_t offset,
               const std::string& path);
