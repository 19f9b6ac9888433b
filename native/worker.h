#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <string>

#include "tick_loop.h"

// Runs on the JS thread and turns a request's outcome into its JS value.
using Reply = std::function<Napi::Value(Napi::Env)>;
// Runs on the probe thread; throws SysError on failure.
using Work = std::function<Reply()>;

// A dedicated thread with a FIFO queue, outside the libuv pool: a request
// stuck in the kernel on a frozen or dying disk holds this thread only, never
// the pool Node needs for everything else, and requests keep their order.
class ProbeThread {
 public:
  ProbeThread(Napi::Env env, const std::string& name);
  ~ProbeThread();
  ProbeThread(const ProbeThread&) = delete;
  ProbeThread& operator=(const ProbeThread&) = delete;

  // Queues `work`; the promise settles with its reply, or rejects with its
  // SysError as an Error carrying code, errno, syscall, path (and offset).
  // Throws once closed.
  Napi::Promise Submit(Napi::Env env, Work work);

  // Lets the thread finish what is queued, deliver it and exit. Never waits.
  void Close();

  // The thread's own schedule of inspections: `change` runs under the lock,
  // from any thread, and the thread then looks again when its next tick is.
  // Queued requests go before a due tick; a tick's inspection is never cut.
  void WithLoop(const std::function<void(TickLoop&)>& change);

 private:
  struct Request;
  struct State;

 public:
  // The same, and Close, for work on the thread itself, which may outlive
  // this object.
  class Handle {
   public:
    void WithLoop(const std::function<void(TickLoop&)>& change) const;
    void Close() const;

   private:
    friend class ProbeThread;
    explicit Handle(std::shared_ptr<State> state) : state_(std::move(state)) {}
    std::shared_ptr<State> state_;
  };
  Handle Loop() const { return Handle(state_); }

 private:

  static void Run(std::shared_ptr<State> state);
  static void RunDue(State& state, const DueTick& due);
  static void Deliver(Napi::Env env, Napi::Function, State* state,
                      Request* request);

  std::shared_ptr<State> state_;
};
