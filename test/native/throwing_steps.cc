// Two steps of the addon's detached threads, made to throw what no syscall
// does, for test/e2e/thread-faults-native.test.ts. It links them with the
// addon's own objects (build/Release), so the catches it exercises are the
// shipped ones; only native/inspection.cc and native/record_json.cc are
// compiled again, their function renamed (-DInspect=RealInspect,
// -DAppendRecordJson=RealAppendRecordJson), for these to stand in:
// - on a probe thread, the 3rd inspection throws a std::runtime_error and the
//   5th an int; every other one is the real one;
// - on the batch thread, writing a record named "lose-this-batch" throws an
//   int; every other record is written as it is.
#include <atomic>
#include <stdexcept>
#include <string>

#include "../../native/inspection.h"
#include "../../native/record_json.h"

InspectResult RealInspect(const InspectRequest& request);
void RealAppendRecordJson(std::string& out, const LoopRecord& record);

namespace {

std::atomic<int> inspections{0};

}  // namespace

InspectResult Inspect(const InspectRequest& request) {
  switch (++inspections) {
    case 3:
      throw std::runtime_error("a fault that is not a SysError");
    case 5:
      throw 5;
    default:
      return RealInspect(request);
  }
}

void AppendRecordJson(std::string& out, const LoopRecord& record) {
  if (record.name == "lose-this-batch") throw 42;
  RealAppendRecordJson(out, record);
}
