#include "record_batch.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "monotonic.h"
#include "path_text.h"
#include "record_json.h"
#include "sys_error.h"
#include "tick_clock.h"

namespace {

struct Batch {
  double coveredMs;
  std::string json;  // every record for the CLI, in order
  // The records the prober acts on: a directory that resolves otherwise.
  std::vector<LoopRecord> notices;
};

std::unique_ptr<Batch> MakeBatch(double coveredMs,
                                 std::vector<LoopRecord> records) {
  auto batch = std::make_unique<Batch>();
  batch->coveredMs = coveredMs;
  // A plain inspection's row is about 130 bytes.
  batch->json.reserve(2 + records.size() * 160);
  batch->json += '[';
  for (auto& record : records) {
    if (batch->json.size() > 1) batch->json += ',';
    AppendRecordJson(batch->json, record);
    if (record.kind == LoopRecord::Kind::kResolved) {
      batch->notices.push_back(std::move(record));
    }
  }
  batch->json += ']';
  return batch;
}

Napi::Value NoticeToJs(Napi::Env env, const LoopRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", r.name);
  o.Set("kind", "resolved");
  if (!r.error) {
    Napi::Object id = Napi::Object::New(env);
    id.Set("mntId", static_cast<double>(r.resolution.mntId));
    id.Set("devMajor", static_cast<double>(r.resolution.devMajor));
    id.Set("devMinor", static_cast<double>(r.resolution.devMinor));
    id.Set("fsMagic", static_cast<double>(r.resolution.fsMagic));
    id.Set("resolvedDir", PathValue(env, r.resolution.resolvedDir));
    o.Set("resolution", id);
  }
  return o;
}

void CallJs(Napi::Env env, Napi::Function callback, std::nullptr_t*,
            Batch* raw) {
  std::unique_ptr<Batch> batch(raw);
  if (env == nullptr) return;
  Napi::Array notices = Napi::Array::New(env, batch->notices.size());
  for (uint32_t i = 0; i < batch->notices.size(); ++i) {
    notices.Set(i, NoticeToJs(env, batch->notices[i]));
  }
  callback.Call({Napi::Number::New(env, batch->coveredMs),
                 Napi::String::New(env, batch->json), notices});
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
  FlushClock flushes;  // lock held

  static void Flusher(std::shared_ptr<State> state) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "slowdisk-batch");
    std::unique_lock<std::mutex> lock(state->mutex);
    for (;;) {
      double next = state->flushes.NextFlushMs(MonotonicMs());
      state->wake.wait_until(lock, SteadyAt(next), [&] {
        return state->urgent || MonotonicMs() >= next;
      });
      state->urgent = false;
      if (!state->listening) continue;
      // The next batch starts as large as this one: records are big, and a
      // vector grown from nothing moves them all at every doubling.
      std::vector<LoopRecord> fresh;
      fresh.reserve(state->pending.size());
      double coveredMs = MonotonicMs();
      std::vector<LoopRecord> records =
          std::exchange(state->pending, std::move(fresh));
      // Written without the lock: the probe threads go on recording.
      lock.unlock();
      size_t count = records.size();
      std::unique_ptr<Batch> batch;
      try {
        batch = MakeBatch(coveredMs, std::move(records));
      } catch (...) {
        // Out of memory writing the batch: its records are lost, and said
        // so, but the batches go on.
        SysError error = CaughtError("batch");
        std::fprintf(stderr, "slowdisk prober: a batch of %zu records lost: %s\n",
                     count, error.Message().c_str());
      }
      lock.lock();
      // Handed over with the lock held and the listener asked again: Node
      // may have torn the TSFN down meanwhile (the process exiting), and its
      // finalizer clears `listening` under this lock before the TSFN is
      // freed. Called after that, the process aborts.
      if (batch && state->listening &&
          state->tsfn.NonBlockingCall(batch.get()) == napi_ok) {
        batch.release();
      }
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
  state_->flushes = FlushClock{startMs, periodMs, slackMs};
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
