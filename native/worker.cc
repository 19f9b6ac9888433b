#include "worker.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "js_error.h"
#include "monotonic.h"
#include "record_batch.h"
#include "run_delay.h"
#include "sys_error.h"
#include "tick_loop.h"

struct ProbeThread::Request {
  Request(Napi::Env env, Work w)
      : deferred(Napi::Promise::Deferred::New(env)), work(std::move(w)) {}

  Napi::Promise::Deferred deferred;
  Work work;
  Reply reply;
  std::optional<SysError> error;
};

struct ProbeThread::State {
  using Tsfn = Napi::TypedThreadSafeFunction<State, Request, Deliver>;

  explicit State(std::string n) : name(std::move(n)) {}

  const std::string name;
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::unique_ptr<Request>> queue;
  bool closed = false;
  // Set when Node destroys the TSFN: after the thread released it, or when
  // the environment is torn down while the thread is still stuck in a
  // syscall. From then on the thread must not touch it.
  bool tsfnGone = false;
  Tsfn tsfn;
  // JS thread only: requests whose promise has not settled yet.
  size_t pending = 0;
  TickLoop loop;
};

namespace {

Napi::Value ToJsError(Napi::Env env, const SysError& e) {
  Napi::Object error = Napi::Error::New(env, e.Message()).Value();
  SetErrorFields(error, e);
  return error;
}

}  // namespace

ProbeThread::ProbeThread(Napi::Env env, const std::string& name)
    : state_(std::make_shared<State>(name)) {
  // The TSFN owns a reference so that its context outlives both this object
  // and the thread, whichever of the three goes last.
  auto keep = std::make_unique<std::shared_ptr<State>>(state_);
  state_->tsfn = State::Tsfn::New(
      env, "slowdisk:" + name, 0, 1, state_.get(),
      [](Napi::Env, std::shared_ptr<State>* keep, State* state) {
        {
          std::lock_guard<std::mutex> lock(state->mutex);
          state->tsfnGone = true;
        }
        delete keep;
      },
      keep.get());
  keep.release();
  // An idle worker must not keep the process alive; Submit refs the TSFN
  // only while a promise is pending.
  state_->tsfn.Unref(env);
  try {
    // Never joined: a thread stuck in the kernel on a frozen filesystem must
    // neither delay nor crash process exit.
    std::thread(Run, state_).detach();
  } catch (const std::system_error& e) {
    state_->closed = true;
    state_->tsfn.Release();
    throw Napi::Error::New(env, "cannot start the probe thread for " + name +
                                    ": " + e.what());
  }
}

ProbeThread::~ProbeThread() { Close(); }

Napi::Promise ProbeThread::Submit(Napi::Env env, Work work) {
  auto request = std::make_unique<Request>(env, std::move(work));
  Napi::Promise promise = request->deferred.Promise();
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->closed) {
      throw Napi::Error::New(env, "ProbeWorker " + state_->name + " is closed");
    }
    state_->queue.push_back(std::move(request));
  }
  state_->wake.notify_one();
  if (state_->pending++ == 0) state_->tsfn.Ref(env);
  return promise;
}

void ProbeThread::Close() { Loop().Close(); }

void ProbeThread::WithLoop(const std::function<void(TickLoop&)>& change) {
  Loop().WithLoop(change);
}

void ProbeThread::Handle::Close() const {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
    state_->loop.Stop();
  }
  state_->wake.notify_one();
}

void ProbeThread::Handle::WithLoop(
    const std::function<void(TickLoop&)>& change) const {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    change(state_->loop);
  }
  state_->wake.notify_one();
}

namespace {

// The thread's waits for a CPU around a tick's inspection, read before it and
// after it on every tick, so that each inspection's own wait is known: the
// cause tells a starved prober from a slow disk by them. A read
// is a pread of a file the thread keeps open (under a microsecond). Read
// outside the loop's lock, which the JS thread takes too; only a tick that
// was inspected is read after.
struct TickWaits {
  int64_t startNs = -1;
  int64_t endNs = -1;
};

// Under the loop's lock: the inspected tick's record carries its waits.
void RecordWaits(const TickWaits& waits, LoopRecord& record) {
  record.startWaitNs = waits.startNs;
  record.waitNs = waits.endNs;
}

// The tick's request, for the file made as part of it.
InspectRequest RequestFor(InspectRequest r, const ProbeFile& file) {
  r.resolvedDir = file.resolvedDir;
  r.name = file.name;
  r.id = file.id;
  r.ioSize = file.ioSize;
  r.align = file.align;
  return r;
}

}  // namespace

void ProbeThread::RunDue(State& state, const DueTick& due) {
  std::vector<LoopRecord> records;
  bool urgent = false;
  switch (due.work) {
    case DueTick::Work::kNone:
      break;
    case DueTick::Work::kInspect: {
      std::optional<InspectResult> result;
      std::optional<SysError> error;
      TickWaits waits{ThreadRunDelaySinceLastNs()};
      try {
        result = Inspect(due.request);
      } catch (...) {
        error = CaughtError(due.request.dir);
      }
      if (result) waits.endNs = ThreadRunDelaySinceLastNs();
      std::lock_guard<std::mutex> lock(state.mutex);
      records.push_back(state.loop.Inspected(
          due, result ? &*result : nullptr, error ? &*error : nullptr, urgent));
      if (result) RecordWaits(waits, records.back());
      break;
    }
    case DueTick::Work::kMakeAndInspect: {
      std::optional<MadeProbeFile> made;
      std::optional<InspectResult> result;
      std::optional<SysError> error;
      TickWaits waits{ThreadRunDelaySinceLastNs()};
      try {
        made = MakeProbeFile(due.spec);
        result = Inspect(RequestFor(due.request, made->file));
      } catch (...) {
        error = CaughtError(due.spec.dir);
      }
      if (result) waits.endNs = ThreadRunDelaySinceLastNs();
      std::lock_guard<std::mutex> lock(state.mutex);
      records.push_back(state.loop.Made(due, made ? &*made : nullptr,
                                        result ? &*result : nullptr,
                                        error ? &*error : nullptr, urgent));
      if (result) RecordWaits(waits, records.back());
      break;
    }
    case DueTick::Work::kLost: {
      std::lock_guard<std::mutex> lock(state.mutex);
      records.push_back(state.loop.Lost(due));
      break;
    }
  }
  if (due.resolve) {
    std::optional<DirIdentity> identity;
    std::optional<SysError> error;
    try {
      identity = ResolveDir(due.dir, due.pinned);
    } catch (...) {
      error = CaughtError(due.dir);
    }
    std::lock_guard<std::mutex> lock(state.mutex);
    auto record = state.loop.Resolved(identity ? &*identity : nullptr,
                                      error ? &*error : nullptr);
    if (record) {
      records.push_back(std::move(*record));
      urgent = true;
    }
  }
  bool lost = !records.empty() && records.front().kind == LoopRecord::Kind::kLost;
  double atMs = records.empty() ? MonotonicMs()
                                : RecordBatch::Instance().Append(
                                      std::move(records), urgent);
  FileSpec spec;
  bool fresh = false;
  if (lost) {
    std::lock_guard<std::mutex> lock(state.mutex);
    fresh = state.loop.FreshTurn(due, spec);
  }
  if (fresh) {
    // Made beside the ticks, untimed, and inspected from the next tick on.
    std::optional<MadeProbeFile> made;
    std::optional<SysError> error;
    try {
      made = MakeProbeFile(spec);
    } catch (...) {
      error = CaughtError(spec.dir);
    }
    std::lock_guard<std::mutex> lock(state.mutex);
    state.loop.Fresh(due, made ? &*made : nullptr, error ? &*error : nullptr);
  }
  std::lock_guard<std::mutex> lock(state.mutex);
  state.loop.Done(atMs);
}

void ProbeThread::Run(std::shared_ptr<State> state) {
  // Signals belong to Node's thread; here they would only interrupt probes.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  pthread_setname_np(pthread_self(), state->name.substr(0, 15).c_str());

  for (;;) {
    std::unique_ptr<Request> request;
    std::optional<DueTick> due;
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      for (;;) {
        if (!state->queue.empty()) {
          request = std::move(state->queue.front());
          state->queue.pop_front();
          break;
        }
        if (state->closed) break;
        std::optional<double> next = state->loop.NextRunMs();
        double now = MonotonicMs();
        if (next && now >= *next) {
          due = state->loop.Take(now);
          break;
        }
        if (next) {
          state->wake.wait_until(lock, SteadyAt(*next));
        } else {
          state->wake.wait(lock);
        }
      }
      if (!request && !due) break;
    }
    if (due) {
      try {
        RunDue(*state, *due);
      } catch (...) {
        // Out of memory recording the tick: it is lost, and said so, but the
        // thread goes on ticking.
        SysError error = CaughtError(state->name);
        std::fprintf(stderr, "slowdisk prober: tick %llu of %s not recorded: %s\n",
                     static_cast<unsigned long long>(due->tick),
                     state->name.c_str(), error.Message().c_str());
        std::lock_guard<std::mutex> lock(state->mutex);
        state->loop.Done(MonotonicMs());
      }
      continue;
    }
    try {
      request->reply = request->work();
    } catch (...) {
      request->error = CaughtError(state->name);
    }
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->tsfnGone || state->tsfn.NonBlockingCall(request.get()) != napi_ok) {
      return;
    }
    request.release();
  }
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->tsfnGone) state->tsfn.Release();
}

void ProbeThread::Deliver(Napi::Env env, Napi::Function, State* state,
                          Request* raw) {
  std::unique_ptr<Request> request(raw);
  if (env == nullptr) return;  // the environment is being torn down
  if (--state->pending == 0) state->tsfn.Unref(env);
  if (request->error) {
    request->deferred.Reject(ToJsError(env, *request->error));
    return;
  }
  try {
    request->deferred.Resolve(request->reply(env));
  } catch (const Napi::Error& e) {
    request->deferred.Reject(e.Value());
  }
}
