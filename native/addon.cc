// JS bindings: argument checks and result objects. Every syscall happens on
// the worker's probe thread; nothing here touches the disk.
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inspection.h"
#include "monotonic.h"
#include "path_text.h"
#include "record_batch.h"
#include "probe_file.h"
#include "resolve.h"
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

bool OptionalBoolean(Napi::Env env, Napi::Value value, const char* name) {
  return value.IsUndefined() ? false : Boolean(env, value, name);
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

ProbeFileId FileId(Napi::Env env, Napi::Value value) {
  try {
    return DecodeFileId(String(env, value, "identity"));
  } catch (const std::invalid_argument&) {
    throw Napi::TypeError::New(env, "identity is not a probe file's identity");
  }
}

// An inspection's request; `perTick` with its block, seed and freshBlock,
// else the probe file alone, which the thread's ticks complete.
InspectRequest ParseRequest(Napi::Env env, Napi::Value value, bool perTick) {
  if (!value.IsObject()) {
    throw Napi::TypeError::New(env, "request must be an object");
  }
  Napi::Object req = value.As<Napi::Object>();
  std::string sync = String(env, req.Get("sync"), "sync");
  if (sync != "fsync" && sync != "fdatasync") {
    throw Napi::RangeError::New(env, "sync must be 'fsync' or 'fdatasync'");
  }
  return InspectRequest{
      String(env, req.Get("dir"), "dir"),
      String(env, req.Get("resolvedDir"), "resolvedDir"),
      String(env, req.Get("name"), "name"),
      FileId(env, req.Get("identity")),
      perTick ? Integer(env, req.Get("block"), "block", 0, kMaxSafeInteger) : 0,
      static_cast<uint32_t>(
          Integer(env, req.Get("blocks"), "blocks", 1, kDataBlocks)),
      static_cast<uint32_t>(
          Integer(env, req.Get("ioSize"), "ioSize", 1, 1 << 30)),
      static_cast<uint32_t>(
          Integer(env, req.Get("align"), "align", 1, 1 << 30)),
      Boolean(env, req.Get("direct"), "direct"),
      sync == "fsync",
      perTick ? Integer(env, req.Get("seed"), "seed", 0, kMaxSafeInteger) : 0,
      perTick && OptionalBoolean(env, req.Get("freshBlock"), "freshBlock")};
}

Napi::Array Strings(Napi::Env env, const std::vector<std::string>& values) {
  Napi::Array array = Napi::Array::New(env, values.size());
  for (uint32_t i = 0; i < values.size(); ++i) array.Set(i, PathValue(env, values[i]));
  return array;
}

class ProbeWorker : public Napi::ObjectWrap<ProbeWorker> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "ProbeWorker",
        {InstanceMethod<&ProbeWorker::Resolve>("resolve"),
         InstanceMethod<&ProbeWorker::Prepare>("prepare"),
         InstanceMethod<&ProbeWorker::Inspect>("inspect"),
         InstanceMethod<&ProbeWorker::Remove>("remove"),
         InstanceMethod<&ProbeWorker::RemoveStale>("removeStale"),
         InstanceMethod<&ProbeWorker::Schedule>("schedule"),
         InstanceMethod<&ProbeWorker::Place>("place"),
         InstanceMethod<&ProbeWorker::Arm>("arm"),
         InstanceMethod<&ProbeWorker::Complete>("complete"),
         InstanceMethod<&ProbeWorker::InFlightSince>("inFlightSince"),
         InstanceMethod<&ProbeWorker::Release>("release"),
         InstanceMethod<&ProbeWorker::Close>("close")});
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

  // prepare(dir, ioSize, direct, resolvedDir?)
  //   -> { path, resolvedDir, name, ino, identity, devMajor, devMinor,
  //        ioSize, align, alignSource, blocks, staleRemoved }
  Napi::Value Prepare(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string dir = String(env, info[0], "dir");
    auto ioSize = static_cast<uint32_t>(
        Integer(env, info[1], "ioSize", 1, 1 << 30));
    bool direct = Boolean(env, info[2], "direct");
    std::string pinned = OptionalString(env, info[3], "resolvedDir");
    return thread_.Submit(env, [dir, ioSize, direct, pinned]() -> Reply {
      auto prepared = std::make_shared<PreparedProbeFile>(
          PrepareProbeFile(dir, pinned, ioSize, direct));
      return [prepared](Napi::Env env) -> Napi::Value {
        Napi::Object result = Napi::Object::New(env);
        result.Set("path", PathValue(env, prepared->path));
        result.Set("resolvedDir", PathValue(env, prepared->resolvedDir));
        result.Set("name", PathValue(env, prepared->name));
        result.Set("ino", static_cast<double>(prepared->id.ino));
        result.Set("identity", EncodeFileId(prepared->id));
        result.Set("devMajor", static_cast<double>(prepared->id.dir.devMajor));
        result.Set("devMinor", static_cast<double>(prepared->id.dir.devMinor));
        result.Set("ioSize", static_cast<double>(prepared->ioSize));
        result.Set("align", static_cast<double>(prepared->align));
        result.Set("alignSource", prepared->alignSource);
        result.Set("blocks", static_cast<double>(kDataBlocks));
        result.Set("staleRemoved", Strings(env, prepared->staleRemoved));
        return result;
      };
    });
  }

  // inspect({ dir, resolvedDir, name, identity, block, blocks, ioSize,
  //           align, direct, sync, seed, freshBlock? })
  //   -> { openNs, writeNs, syncNs, readNs, closeNs, totalNs, created,
  //        dirReplaced, ino, identity }
  Napi::Value Inspect(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    InspectRequest request = ParseRequest(env, info[0], true);
    return thread_.Submit(env, [request = std::move(request)]() -> Reply {
      InspectResult r = ::Inspect(request);
      return [r](Napi::Env env) -> Napi::Value {
        Napi::Object result = Napi::Object::New(env);
        result.Set("openNs", static_cast<double>(r.openNs));
        result.Set("writeNs", static_cast<double>(r.writeNs));
        result.Set("syncNs", static_cast<double>(r.syncNs));
        result.Set("readNs", static_cast<double>(r.readNs));
        result.Set("closeNs", static_cast<double>(r.closeNs));
        result.Set("totalNs", static_cast<double>(r.totalNs));
        result.Set("created", r.created);
        result.Set("dirReplaced", r.dirReplaced);
        result.Set("ino", static_cast<double>(r.id.ino));
        result.Set("identity", EncodeFileId(r.id));
        return result;
      };
    });
  }

  // schedule(startMs, intervalMs, roundTicks, seedBase, resolveName, dir,
  //          pinned?): from now on the thread runs the directory's ticks on
  // their deadlines (see TickLoop), resolving it once a round.
  Napi::Value Schedule(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    LoopClock clock;
    clock.startMs = Number(env, info[0], "startMs");
    clock.intervalMs = Number(env, info[1], "intervalMs");
    if (!(clock.intervalMs >= 1)) {
      throw Napi::RangeError::New(env, "intervalMs is out of range");
    }
    clock.roundTicks =
        static_cast<uint32_t>(Integer(env, info[2], "roundTicks", 1, 1e6));
    uint64_t seedBase = Integer(env, info[3], "seedBase", 0, kMaxSafeInteger);
    std::string name = String(env, info[4], "resolveName");
    std::string dir = String(env, info[5], "dir");
    std::string pinned = OptionalString(env, info[6], "pinned");
    thread_.WithLoop([&](TickLoop& loop) {
      loop.Schedule(clock, seedBase, name, dir, pinned);
    });
    return env.Undefined();
  }

  // place(name, fromTick): inspect under `name` from tick `fromTick` on.
  Napi::Value Place(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string name = String(env, info[0], "name");
    uint64_t fromTick = Integer(env, info[1], "fromTick", 1, kMaxSafeInteger);
    thread_.WithLoop([&](TickLoop& loop) { loop.Place(name, fromTick); });
    return env.Undefined();
  }

  // arm(file): the probe file the thread inspects at its ticks.
  Napi::Value Arm(const Napi::CallbackInfo& info) {
    InspectRequest file = ParseRequest(info.Env(), info[0], false);
    thread_.WithLoop([&](TickLoop& loop) { loop.Arm(std::move(file)); });
    return info.Env().Undefined();
  }

  // complete(json, failed, lost?) -> atMs: the tick asked of JS is done; its
  // result (`json`, an object without atMs; none if empty) goes into the
  // batch, stamped with the time, which is returned. `lost` ({code, syscall,
  // path, message}): the tick's probe file had its name taken, so the thread
  // answers the next ticks as lost itself until a fresh file is armed.
  Napi::Value Complete(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string json = String(env, info[0], "json");
    bool failed = Boolean(env, info[1], "failed");
    std::optional<SysError> lost;
    if (info.Length() > 2 && info[2].IsObject()) {
      Napi::Object fields = info[2].As<Napi::Object>();
      SysError error;
      error.code = String(env, fields.Get("code"), "lost.code");
      error.syscall = String(env, fields.Get("syscall"), "lost.syscall");
      error.path = String(env, fields.Get("path"), "lost.path");
      std::string message = String(env, fields.Get("message"), "lost.message");
      std::string prefix = error.code + ": " + error.syscall + " " + error.path + " ";
      error.detail = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
      lost = std::move(error);
    }
    double atMs;
    if (json.empty()) {
      atMs = MonotonicMs();
    } else {
      if (json.size() < 2 || json.front() != '{' || json.back() != '}') {
        throw Napi::TypeError::New(env, "json must be a JSON object");
      }
      LoopRecord record;
      record.kind = LoopRecord::Kind::kExternal;
      record.json = std::move(json);
      std::vector<LoopRecord> records;
      records.push_back(std::move(record));
      atMs = RecordBatch::Instance().Append(std::move(records), true);
    }
    thread_.WithLoop([&](TickLoop& loop) { loop.FreeAt(atMs, failed, lost); });
    return Napi::Number::New(env, atMs);
  }

  // inFlightSince() -> ms on the shared clock, or null: the tick's
  // inspection under way, if one is.
  Napi::Value InFlightSince(const Napi::CallbackInfo& info) {
    std::optional<double> since;
    thread_.WithLoop([&](TickLoop& loop) { since = loop.InFlightSinceMs(); });
    if (!since) return info.Env().Null();
    return Napi::Number::New(info.Env(), *since);
  }

  // release() -> { identity: string | null, replaced: string[] }: stops
  // inspecting, once the inspection under way is done (the request waits
  // its turn on the thread), and hands over the probe files to remove.
  Napi::Value Release(const Napi::CallbackInfo& info) {
    ProbeThread* thread = &thread_;
    return thread_.Submit(info.Env(), [thread]() -> Reply {
      std::optional<std::string> identity;
      auto replaced = std::make_shared<std::vector<std::string>>();
      thread->WithLoop([&](TickLoop& loop) {
        if (loop.Armed()) identity = EncodeFileId(loop.Armed()->id);
        for (const ProbeFileId& id : loop.TakeReplaced()) {
          replaced->push_back(EncodeFileId(id));
        }
        loop.Unplace();
      });
      return [identity, replaced](Napi::Env env) -> Napi::Value {
        Napi::Object result = Napi::Object::New(env);
        if (identity) {
          result.Set("identity", *identity);
        } else {
          result.Set("identity", env.Null());
        }
        result.Set("replaced", Strings(env, *replaced));
        return result;
      };
    });
  }

  // remove(resolvedDir, name, identity) -> undefined
  Napi::Value Remove(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string resolvedDir = String(env, info[0], "resolvedDir");
    std::string name = String(env, info[1], "name");
    ProbeFileId id = FileId(env, info[2]);
    return thread_.Submit(env, [resolvedDir, name, id]() -> Reply {
      RemoveProbeFile(resolvedDir, name, id);
      return [](Napi::Env env) -> Napi::Value { return env.Undefined(); };
    });
  }

  // removeStale(dir) -> string[]
  Napi::Value RemoveStale(const Napi::CallbackInfo& info) {
    std::string dir = String(info.Env(), info[0], "dir");
    return thread_.Submit(info.Env(), [dir]() -> Reply {
      auto removed =
          std::make_shared<std::vector<std::string>>(RemoveStaleProbeFiles(dir));
      return [removed](Napi::Env env) -> Napi::Value {
        return Strings(env, *removed);
      };
    });
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    thread_.Close();
    return info.Env().Undefined();
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

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("ProbeWorker", ProbeWorker::Define(env));
  exports.Set("listen", Napi::Function::New<Listen>(env, "listen"));
  exports.Set("flushEvery", Napi::Function::New<FlushEvery>(env, "flushEvery"));
  exports.Set("flushNow", Napi::Function::New<FlushNow>(env, "flushNow"));
  return exports;
}

}  // namespace

NODE_API_MODULE(slowdisk_probe, Init)
