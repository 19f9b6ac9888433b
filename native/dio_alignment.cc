#include "dio_alignment.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

namespace {

constexpr uint32_t kDefaultAlign = 4096;

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

}  // namespace

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
