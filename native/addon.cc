// JS bindings: argument checks and result objects. Every syscall on a disk
// happens on the worker's probe thread; nothing here touches the disk. Failures cross
// as errors carrying ProbeError's fields (js_error.h), their code the
// ProbeErrc's text.
#include <napi.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "path_text.h"
#include "placed_file.h"
#include "record_batch.h"
#include "resolve.h"
#include "socket_peer.h"
#include "sys_error.h"
#include "tick_loop.h"
#include "worker.h"

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;

std::string String(Napi::Env env, Napi::Value value, const char* name) {
  if (!value.IsString()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a string");
  }
  return PathBytes(value.As<Napi::String>().Utf16Value());
}

bool Boolean(Napi::Env env, Napi::Value value, const char* name) {
  if (!value.IsBoolean()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a boolean");
  }
  return value.As<Napi::Boolean>().Value();
}

double Number(Napi::Env env, Napi::Value value, const char* name) {
  if (!value.IsNumber()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a number");
  }
  return value.As<Napi::Number>().DoubleValue();
}

// Converting an out-of-range double to an integer is undefined behaviour,
// so the range is checked here even though the TS wrapper checks it too.
uint64_t Integer(Napi::Env env, Napi::Value value, const char* name,
                 double min, double max) {
  double n = Number(env, value, name);
  if (!(n >= min && n <= max && std::trunc(n) == n)) {
    throw Napi::RangeError::New(env, std::string(name) + " is out of range");
  }
  return static_cast<uint64_t>(n);
}

std::string OptionalString(Napi::Env env, Napi::Value value, const char* name) {
  return value.IsUndefined() ? std::string() : String(env, value, name);
}

// "MAJ:MIN", or undefined for none.
std::optional<DeviceId> OptionalDevice(Napi::Env env, Napi::Value value) {
  if (value.IsUndefined()) return std::nullopt;
  std::string text = String(env, value, "device");
  unsigned major = 0, minor = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%u:%u%c", &major, &minor, &end) != 2) {
    throw Napi::TypeError::New(env, "device must be MAJ:MIN");
  }
  return DeviceId{major, minor};
}

// A directory let go is swept of dead runs' probe files, as a file made there
// sweeps it: a run stopped before its first tick there (a prober replaced
// just before the service stops) would otherwise leave a killed prober's
// file until the next run. Best effort, as the removal of the thread's own:
// a directory gone or moved is left as it is.
void SweepLetGo(const TickLoop::Unplaced& unplaced) {
  if (!unplaced.swept) return;
  try {
    SweepStaleProbeFiles(*unplaced.swept);
  } catch (...) {
  }
}

// A directory's probe thread. Its files are its own: made at the first tick
// of a placement, made again, and removed by the thread alone.
class ProbeWorker : public Napi::ObjectWrap<ProbeWorker> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "ProbeWorker",
        {InstanceMethod<&ProbeWorker::Resolve>("resolve"),
         InstanceMethod<&ProbeWorker::Schedule>("schedule"),
         InstanceMethod<&ProbeWorker::Place>("place"),
         InstanceMethod<&ProbeWorker::InFlightSince>("inFlightSince"),
         InstanceMethod<&ProbeWorker::Release>("release"),
         InstanceMethod<&ProbeWorker::Stop>("stop")});
  }

  explicit ProbeWorker(const Napi::CallbackInfo& info)
      : ObjectWrap(info),
        thread_(info.Env(), String(info.Env(), info[0], "name")) {}

 private:
  // resolve(dir, pinned?) -> { mntId, devMajor, devMinor, fsMagic,
  //                            resolvedDir }
  Napi::Value Resolve(const Napi::CallbackInfo& info) {
    std::string dir = String(info.Env(), info[0], "dir");
    std::string pinned = OptionalString(info.Env(), info[1], "pinned");
    return thread_.Submit(info.Env(), [dir, pinned]() -> Reply {
      DirIdentity id = ResolveDir(dir, pinned);
      return [id](Napi::Env env) -> Napi::Value {
        Napi::Object result = Napi::Object::New(env);
        result.Set("mntId", static_cast<double>(id.mntId));
        result.Set("devMajor", static_cast<double>(id.devMajor));
        result.Set("devMinor", static_cast<double>(id.devMinor));
        result.Set("fsMagic", static_cast<double>(id.fsMagic));
        result.Set("resolvedDir", PathValue(env, id.resolvedDir));
        return result;
      };
    });
  }

  // schedule({ startMs, intervalMs, roundTicks, seedBase, resolveName, dir,
  //            pinned?, ioSize, direct, sync }): from now on the thread runs
  // the directory's ticks on their deadlines (see TickLoop), resolving it
  // once a round, and makes its probe files with these parameters.
  Napi::Value Schedule(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) {
      throw Napi::TypeError::New(env, "schedule must be an object");
    }
    Napi::Object plan = info[0].As<Napi::Object>();
    LoopClock clock;
    clock.startMs = Number(env, plan.Get("startMs"), "startMs");
    clock.intervalMs = Number(env, plan.Get("intervalMs"), "intervalMs");
    if (!(clock.intervalMs >= 1)) {
      throw Napi::RangeError::New(env, "intervalMs is out of range");
    }
    clock.roundTicks = static_cast<uint32_t>(
        Integer(env, plan.Get("roundTicks"), "roundTicks", 1, 1e6));
    uint64_t seedBase =
        Integer(env, plan.Get("seedBase"), "seedBase", 0, kMaxSafeInteger);
    std::string name = String(env, plan.Get("resolveName"), "resolveName");
    FileSpec spec;
    spec.dir = String(env, plan.Get("dir"), "dir");
    spec.resolvedDir = OptionalString(env, plan.Get("pinned"), "pinned");
    spec.ioSize = static_cast<uint32_t>(
        Integer(env, plan.Get("ioSize"), "ioSize", 512, 64 << 20));
    spec.direct = Boolean(env, plan.Get("direct"), "direct");
    std::string sync = String(env, plan.Get("sync"), "sync");
    if (sync != "fsync" && sync != "fdatasync") {
      throw Napi::RangeError::New(env, "sync must be 'fsync' or 'fdatasync'");
    }
    spec.fsync = sync == "fsync";
    thread_.WithLoop([&](TickLoop& loop) {
      loop.Schedule(clock, seedBase, name, std::move(spec));
    });
    return env.Undefined();
  }

  // place(name, fromTick, device?): inspect under `name` from tick
  // `fromTick` on, making probe files only on the filesystem `device`
  // ("MAJ:MIN") if given.
  Napi::Value Place(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string name = String(env, info[0], "name");
    uint64_t fromTick = Integer(env, info[1], "fromTick", 1, kMaxSafeInteger);
    std::optional<DeviceId> device = OptionalDevice(env, info[2]);
    thread_.WithLoop(
        [&](TickLoop& loop) { loop.Place(name, fromTick, device); });
    return env.Undefined();
  }

  // inFlightSince() -> { sinceMs, wallMs } or null: when the tick's
  // inspection under way began, on the shared clock and the wall clock.
  Napi::Value InFlightSince(const Napi::CallbackInfo& info) {
    std::optional<InFlight> since;
    thread_.WithLoop([&](TickLoop& loop) { since = loop.InFlightSince(); });
    if (!since) return info.Env().Null();
    Napi::Object result = Napi::Object::New(info.Env());
    result.Set("sinceMs", since->sinceMs);
    result.Set("wallMs", since->wallMs);
    return result;
  }

  // release() -> undefined: stops inspecting, once the inspection under way
  // is done (the request waits its turn on the thread), and removes the
  // probe files; rejects with the first removal that failed. Those are
  // tried again at stop().
  Napi::Value Release(const Napi::CallbackInfo& info) {
    ProbeThread::Handle thread = thread_.Loop();
    return thread_.Submit(info.Env(), [thread]() -> Reply {
      TickLoop::Unplaced unplaced;
      thread.WithLoop([&](TickLoop& loop) { unplaced = loop.Unplace(); });
      std::optional<SysError> failed;
      for (const ProbeFile& file : unplaced.files) {
        try {
          RemoveProbeFile(file);
        } catch (...) {
          if (!failed) failed = CaughtError(file.resolvedDir);
        }
      }
      SweepLetGo(unplaced);
      if (failed) throw *failed;
      return [](Napi::Env env) -> Napi::Value { return env.Undefined(); };
    });
  }

  // stop() -> undefined: stops inspecting, once the inspection under way is
  // done, removes every probe file it made that is still there, and ends
  // the thread. Later calls throw.
  Napi::Value Stop(const Napi::CallbackInfo& info) {
    ProbeThread::Handle thread = thread_.Loop();
    Napi::Promise stopped = thread_.Submit(info.Env(), [thread]() -> Reply {
      TickLoop::Unplaced unplaced;
      std::vector<ProbeFile> files;
      thread.WithLoop([&](TickLoop& loop) {
        unplaced = loop.Unplace();
        files = loop.Released();
      });
      // Each left alone if it is not this very file any more, or is gone.
      for (const ProbeFile& file : files) {
        try {
          RemoveProbeFile(file);
        } catch (...) {
        }
      }
      SweepLetGo(unplaced);
      return [](Napi::Env env) -> Napi::Value { return env.Undefined(); };
    });
    // The thread runs what is queued, this last, and ends.
    thread_.Close();
    return stopped;
  }

  ProbeThread thread_;
};

// listen(callback(coveredMs, recordsJson, notices)): where every thread's
// records go (native/record_json.h).
Napi::Value Listen(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) {
    throw Napi::TypeError::New(info.Env(), "callback must be a function");
  }
  RecordBatch::Instance().Listen(info.Env(), info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

// flushEvery(startMs, periodMs, slackMs)
Napi::Value FlushEvery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double startMs = Number(env, info[0], "startMs");
  double periodMs = Number(env, info[1], "periodMs");
  double slackMs = Number(env, info[2], "slackMs");
  if (!(periodMs >= 1) || !(slackMs >= 0)) {
    throw Napi::RangeError::New(env, "periodMs or slackMs is out of range");
  }
  RecordBatch::Instance().FlushEvery(startMs, periodMs, slackMs);
  return env.Undefined();
}

Napi::Value FlushNow(const Napi::CallbackInfo& info) {
  RecordBatch::Instance().FlushNow();
  return info.Env().Undefined();
}

// abstractSocketListener(name) -> { pid, uid } or null: who listens on the
// abstract Unix socket `name` (without its leading NUL), as the kernel says.
// Called on the JS thread: a connect on a Unix socket waits on no disk.
Napi::Value AbstractSocketListenerOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::optional<SocketListener> listener =
      AbstractSocketListener(String(env, info[0], "name"));
  if (!listener) return env.Null();
  Napi::Object result = Napi::Object::New(env);
  result.Set("pid", static_cast<double>(listener->pid));
  result.Set("uid", static_cast<double>(listener->uid));
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("ProbeWorker", ProbeWorker::Define(env));
  exports.Set("listen", Napi::Function::New<Listen>(env, "listen"));
  exports.Set("flushEvery", Napi::Function::New<FlushEvery>(env, "flushEvery"));
  exports.Set("flushNow", Napi::Function::New<FlushNow>(env, "flushNow"));
  exports.Set("abstractSocketListener",
              Napi::Function::New<AbstractSocketListenerOf>(
                  env, "abstractSocketListener"));
  return exports;
}

}  // namespace

NODE_API_MODULE(slowdisk_probe, Init)
