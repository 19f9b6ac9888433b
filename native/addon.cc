// JS bindings: argument checks and result objects. Every syscall happens on
// the worker's probe thread; nothing here touches the disk.
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inspection.h"
#include "probe_file.h"
#include "resolve.h"
#include "worker.h"

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;

std::string String(Napi::Env env, Napi::Value value, const char* name) {
  if (!value.IsString()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a string");
  }
  return value.As<Napi::String>().Utf8Value();
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

Napi::Array Strings(Napi::Env env, const std::vector<std::string>& values) {
  Napi::Array array = Napi::Array::New(env, values.size());
  for (uint32_t i = 0; i < values.size(); ++i) array.Set(i, values[i]);
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
        result.Set("resolvedDir", id.resolvedDir);
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
        result.Set("path", prepared->path);
        result.Set("resolvedDir", prepared->resolvedDir);
        result.Set("name", prepared->name);
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
    if (!info[0].IsObject()) {
      throw Napi::TypeError::New(env, "request must be an object");
    }
    Napi::Object req = info[0].As<Napi::Object>();
    std::string sync = String(env, req.Get("sync"), "sync");
    if (sync != "fsync" && sync != "fdatasync") {
      throw Napi::RangeError::New(env, "sync must be 'fsync' or 'fdatasync'");
    }
    InspectRequest request{
        String(env, req.Get("dir"), "dir"),
        String(env, req.Get("resolvedDir"), "resolvedDir"),
        String(env, req.Get("name"), "name"),
        FileId(env, req.Get("identity")),
        Integer(env, req.Get("block"), "block", 0, kMaxSafeInteger),
        static_cast<uint32_t>(
            Integer(env, req.Get("blocks"), "blocks", 1, kDataBlocks)),
        static_cast<uint32_t>(
            Integer(env, req.Get("ioSize"), "ioSize", 1, 1 << 30)),
        static_cast<uint32_t>(
            Integer(env, req.Get("align"), "align", 1, 1 << 30)),
        Boolean(env, req.Get("direct"), "direct"),
        sync == "fsync",
        Integer(env, req.Get("seed"), "seed", 0, kMaxSafeInteger),
        OptionalBoolean(env, req.Get("freshBlock"), "freshBlock")};
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

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("ProbeWorker", ProbeWorker::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(slowdisk_probe, Init)
