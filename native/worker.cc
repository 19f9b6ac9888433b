#include "worker.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "sys_error.h"

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
};

namespace {

Napi::Value ToJsError(Napi::Env env, const SysError& e) {
  Napi::Object error = Napi::Error::New(env, e.Message()).Value();
  error.Set("code", e.code);
  error.Set("errno", static_cast<double>(e.errnum));
  error.Set("syscall", e.syscall);
  error.Set("path", e.path);
  if (e.offset >= 0) error.Set("offset", static_cast<double>(e.offset));
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
  if (state_->closed) {
    throw Napi::Error::New(env, "ProbeWorker " + state_->name + " is closed");
  }
  auto request = std::make_unique<Request>(env, std::move(work));
  Napi::Promise promise = request->deferred.Promise();
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->queue.push_back(std::move(request));
  }
  state_->wake.notify_one();
  if (state_->pending++ == 0) state_->tsfn.Ref(env);
  return promise;
}

void ProbeThread::Close() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
  }
  state_->wake.notify_one();
}

void ProbeThread::Run(std::shared_ptr<State> state) {
  // Signals belong to Node's thread; here they would only interrupt probes.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  pthread_setname_np(pthread_self(), state->name.substr(0, 15).c_str());

  for (;;) {
    std::unique_ptr<Request> request;
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      state->wake.wait(lock,
                       [&] { return state->closed || !state->queue.empty(); });
      if (state->queue.empty()) break;
      request = std::move(state->queue.front());
      state->queue.pop_front();
    }
    try {
      request->reply = request->work();
    } catch (const SysError& e) {
      request->error = e;
    } catch (const std::bad_alloc&) {
      request->error = FromErrno(ENOMEM, "malloc", state->name);
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
