#include "record_batch.h"

#include <pthread.h>
#include <signal.h>

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "js_error.h"
#include "monotonic.h"

namespace {

struct Batch {
  double coveredMs;
  std::vector<LoopRecord> records;
};

// The fields of a record of a tick: its kind, the name inspected, the tick.
void SetTick(Napi::Object o, const char* kind, const LoopRecord& r) {
  o.Set("kind", kind);
  o.Set("name", r.name);
  o.Set("tick", static_cast<double>(r.tick));
}

Napi::Value ToJs(Napi::Env env, const LoopRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("atMs", r.atMs);
  switch (r.kind) {
    case LoopRecord::Kind::kInspected:
      SetTick(o, "inspected", r);
      o.Set("startedMs", r.startedMs);
      o.Set("openNs", static_cast<double>(r.result.openNs));
      o.Set("writeNs", static_cast<double>(r.result.writeNs));
      o.Set("syncNs", static_cast<double>(r.result.syncNs));
      o.Set("readNs", static_cast<double>(r.result.readNs));
      o.Set("closeNs", static_cast<double>(r.result.closeNs));
      o.Set("totalNs", static_cast<double>(r.result.totalNs));
      if (r.result.created || r.result.dirReplaced) {
        o.Set("created", r.result.created);
        o.Set("dirReplaced", r.result.dirReplaced);
        o.Set("ino", static_cast<double>(r.result.id.ino));
        o.Set("identity", EncodeFileId(r.result.id));
      }
      break;
    case LoopRecord::Kind::kFailed:
      SetTick(o, "failed", r);
      o.Set("startedMs", r.startedMs);
      o.Set("error", ErrorFields(env, *r.error));
      break;
    case LoopRecord::Kind::kAskJs:
      SetTick(o, "ask", r);
      o.Set("freshBlock", r.freshBlock);
      if (r.error) o.Set("nameTaken", ErrorFields(env, *r.error));
      break;
    case LoopRecord::Kind::kResolved:
      o.Set("kind", "resolved");
      o.Set("name", r.name);
      if (r.error) {
        o.Set("error", ErrorFields(env, *r.error));
      } else {
        Napi::Object id = Napi::Object::New(env);
        id.Set("mntId", static_cast<double>(r.resolution.mntId));
        id.Set("devMajor", static_cast<double>(r.resolution.devMajor));
        id.Set("devMinor", static_cast<double>(r.resolution.devMinor));
        id.Set("fsMagic", static_cast<double>(r.resolution.fsMagic));
        id.Set("resolvedDir", r.resolution.resolvedDir);
        o.Set("resolution", id);
      }
      break;
    case LoopRecord::Kind::kExternal:
      o.Set("kind", "external");
      o.Set("json", r.json);
      break;
  }
  return o;
}

void CallJs(Napi::Env env, Napi::Function callback, std::nullptr_t*,
            Batch* raw) {
  std::unique_ptr<Batch> batch(raw);
  if (env == nullptr) return;
  Napi::Array records = Napi::Array::New(env, batch->records.size());
  for (uint32_t i = 0; i < batch->records.size(); ++i) {
    records.Set(i, ToJs(env, batch->records[i]));
  }
  callback.Call({Napi::Number::New(env, batch->coveredMs), records});
}

using Tsfn = Napi::TypedThreadSafeFunction<std::nullptr_t, Batch, CallJs>;

}  // namespace

struct RecordBatch::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<LoopRecord> pending;
  bool urgent = false;
  bool listening = false;
  Tsfn tsfn;
  bool flusherStarted = false;
  double startMs = 0, periodMs = 0, slackMs = 0;

  // Lock held.
  double NextFlushMs(double nowMs) const {
    double n = std::floor((nowMs - slackMs - startMs) / periodMs) + 1;
    return startMs + std::max(n, 1.0) * periodMs + slackMs;
  }

  static void Flusher(std::shared_ptr<State> state) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "slowdisk-batch");
    std::unique_lock<std::mutex> lock(state->mutex);
    for (;;) {
      double next = state->NextFlushMs(MonotonicMs());
      state->wake.wait_until(lock, SteadyAt(next), [&] {
        return state->urgent || MonotonicMs() >= next;
      });
      state->urgent = false;
      if (!state->listening) continue;
      // The next batch starts as large as this one: records are big, and a
      // vector grown from nothing moves them all at every doubling.
      std::vector<LoopRecord> fresh;
      fresh.reserve(state->pending.size());
      auto batch = std::make_unique<Batch>(
          Batch{MonotonicMs(), std::exchange(state->pending, std::move(fresh))});
      if (state->tsfn.NonBlockingCall(batch.get()) == napi_ok) batch.release();
    }
  }
};

RecordBatch& RecordBatch::Instance() {
  // Never destroyed: the flusher thread outlives every JS object.
  static RecordBatch* instance = new RecordBatch();
  return *instance;
}

RecordBatch::RecordBatch() : state_(std::make_shared<State>()) {}

void RecordBatch::Listen(Napi::Env env, Napi::Function callback) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->listening) {
    throw Napi::Error::New(env, "batches already have a listener");
  }
  state_->tsfn = Tsfn::New(env, callback, "slowdisk:batch", 0, 1,
                           static_cast<std::nullptr_t*>(nullptr),
                           [state = state_](Napi::Env, void*, std::nullptr_t*) {
                             std::lock_guard<std::mutex> lock(state->mutex);
                             state->listening = false;
                           });
  // The prober's IPC channel keeps it alive, not its batches.
  state_->tsfn.Unref(env);
  state_->listening = true;
}

void RecordBatch::FlushEvery(double startMs, double periodMs, double slackMs) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->startMs = startMs;
  state_->periodMs = periodMs;
  state_->slackMs = slackMs;
  if (!state_->flusherStarted) {
    state_->flusherStarted = true;
    // Never joined, like the probe threads.
    std::thread(State::Flusher, state_).detach();
  }
  state_->wake.notify_one();
}

void RecordBatch::FlushNow() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->urgent = true;
  }
  state_->wake.notify_one();
}

double RecordBatch::Append(std::vector<LoopRecord> records, bool urgent) {
  double atMs;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    atMs = MonotonicMs();
    for (auto& record : records) {
      record.atMs = atMs;
      state_->pending.push_back(std::move(record));
    }
    state_->urgent = state_->urgent || urgent;
  }
  if (urgent) state_->wake.notify_one();
  return atMs;
}
