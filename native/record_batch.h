#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "tick_loop.h"

// Every probe thread's records, carried to JS in batches: on a schedule (just
// after each round's close, at most a second apart) and at once for a record
// that changes what a user sees. One JS wakeup a batch, not one an
// inspection. A flusher thread of its own keeps the schedule even while every
// probe thread is stuck, so an empty batch still says the prober is alive.
class RecordBatch {
 public:
  static RecordBatch& Instance();

  // Batches go to `callback(coveredMs, recordsJson, notices)`: every record
  // made before coveredMs is in that batch's JSON or an earlier one's, and
  // those the prober acts on are also in its notices.
  void Listen(Napi::Env env, Napi::Function callback);
  // Flushes at startMs + n * periodMs + slackMs.
  void FlushEvery(double startMs, double periodMs, double slackMs);
  void FlushNow();
  // Stamps each record with the time now, under the batch's lock so that
  // records and flushes are ordered, and returns it.
  double Append(std::vector<LoopRecord> records, bool urgent);

 private:
  struct State;
  RecordBatch();
  std::shared_ptr<State> state_;
};
