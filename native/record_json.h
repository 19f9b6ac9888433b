#pragma once

#include <string>

#include "tick_loop.h"

// A batch's records as the CLI reads them (src/native/batch-records.ts):
// written here, passed on by the prober's JS as text, and parsed once, by
// the CLI. At 64 disks a batch holds 640 inspections, and making each an
// object in the prober only to serialize it again cost more than its I/O.

// Appends the record to `out` as one element of the batch's JSON array.
void AppendRecordJson(std::string& out, const LoopRecord& record);
