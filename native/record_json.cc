#include "record_json.h"

#include "path_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace {

// The shortest text that reads back as the same double, as JS prints it.
void Number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";  // as JSON.stringify writes it
    return;
  }
  char text[32];
  auto written = std::to_chars(text, text + sizeof text, value);
  out.append(text, written.ptr);
}

// A byte outside valid UTF-8 (a path's) as the lone surrogate JS reads it as
// (path_text.h): JSON.parse gives back the string PathText gives.
void Quoted(std::string& out, const std::string& text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    char32_t code;
    size_t length = 1;
    if (c >= 0x80 && !DecodeUtf8(text, i, code, length)) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", 0xdc00 + c);
      out += escaped;
      i += 1;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      i += 1;
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
      i += 1;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  out += '"';
}

// `,"key":` (no comma for the first field of an object).
void Key(std::string& out, const char* key, bool first = false) {
  if (!first) out += ',';
  out += '"';
  out += key;
  out += "\":";
}

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// A wait the kernel did not say: null, as JSON writes a missing number.
double WaitMs(int64_t ns) {
  return ns < 0 ? std::nan("") : static_cast<double>(ns) / 1e6;
}

// {"kind":KIND,"name":...,["tick":...,]"atMs":...
void OpenRecord(std::string& out, const char* kind, const LoopRecord& r,
                bool withTick) {
  Key(out, "kind", true);
  Quoted(out, kind);
  Key(out, "name");
  Quoted(out, r.name);
  if (withTick) {
    Key(out, "tick");
    Number(out, static_cast<double>(r.tick));
  }
  Key(out, "atMs");
  Number(out, r.atMs);
}

void Error(std::string& out, const SysError& e) {
  Key(out, "code", true);
  Quoted(out, e.Code());
  Key(out, "errno");
  Number(out, e.errnum);
  Key(out, "syscall");
  Quoted(out, e.syscall);
  Key(out, "path");
  Quoted(out, e.path);
  Key(out, "message");
  Quoted(out, e.Message());
  if (e.offset >= 0) {
    Key(out, "offset");
    Number(out, static_cast<double>(e.offset));
  }
}

void Timings(std::string& out, const LoopRecord& r) {
  const InspectResult& t = r.result;
  Key(out, "openMs", true);
  Number(out, Ms(t.openNs));
  Key(out, "writeMs");
  Number(out, Ms(t.writeNs));
  Key(out, "syncMs");
  Number(out, Ms(t.syncNs));
  Key(out, "readMs");
  Number(out, Ms(t.readNs));
  Key(out, "closeMs");
  Number(out, Ms(t.closeNs));
  Key(out, "totalMs");
  Number(out, Ms(t.totalNs));
  Key(out, "waitMs");
  Number(out, WaitMs(r.waitNs));
  Key(out, "startWaitMs");
  Number(out, WaitMs(r.startWaitNs));
}

// ,"staleRemoved":[paths] when a file made removed any.
void StaleRemoved(std::string& out, const LoopRecord& r) {
  if (r.staleRemoved.empty()) return;
  Key(out, "staleRemoved");
  out += '[';
  for (size_t i = 0; i < r.staleRemoved.size(); ++i) {
    if (i > 0) out += ',';
    Quoted(out, r.staleRemoved[i]);
  }
  out += ']';
}

// [name, tick, atMs, openMs, writeMs, syncMs, readMs, closeMs, totalMs,
//  startedMs, waitMs, startWaitMs]
void TimedRow(std::string& out, const LoopRecord& r) {
  const InspectResult& t = r.result;
  out += '[';
  Quoted(out, r.name);
  for (double value : {static_cast<double>(r.tick), r.atMs, Ms(t.openNs),
                       Ms(t.writeNs), Ms(t.syncNs), Ms(t.readNs),
                       Ms(t.closeNs), Ms(t.totalNs), r.startedMs,
                       WaitMs(r.waitNs), WaitMs(r.startWaitNs)}) {
    out += ',';
    Number(out, value);
  }
  out += ']';
}

}  // namespace

void AppendRecordJson(std::string& out, const LoopRecord& r) {
  switch (r.kind) {
    case LoopRecord::Kind::kInspected:
      if (!r.made && !r.result.created && !r.result.dirReplaced) {
        TimedRow(out, r);
        return;
      }
      out += '{';
      OpenRecord(out, "inspected", r, true);
      out += r.result.created || r.result.dirReplaced ? ",\"created\":true"
                                                      : ",\"created\":false";
      StaleRemoved(out, r);
      out += ",\"timings\":{";
      Timings(out, r);
      out += "}}";
      return;
    case LoopRecord::Kind::kFailed:
      out += '{';
      OpenRecord(out, "inspected", r, true);
      StaleRemoved(out, r);
      out += ",\"error\":{";
      Error(out, *r.error);
      out += "}}";
      return;
    case LoopRecord::Kind::kResolved:
      out += '{';
      OpenRecord(out, "resolved", r, false);
      if (r.error) {
        out += ",\"error\":{";
        Error(out, *r.error);
      } else {
        out += ",\"resolution\":{";
        Key(out, "mntId", true);
        Number(out, static_cast<double>(r.resolution.mntId));
        Key(out, "devMajor");
        Number(out, r.resolution.devMajor);
        Key(out, "devMinor");
        Number(out, r.resolution.devMinor);
        Key(out, "fsMagic");
        Number(out, static_cast<double>(r.resolution.fsMagic));
        Key(out, "resolvedDir");
        Quoted(out, r.resolution.resolvedDir);
      }
      out += "}}";
      return;
    case LoopRecord::Kind::kLost:
      out += '{';
      OpenRecord(out, "inspected", r, true);
      out += ",\"lost\":{";
      Error(out, *r.error);
      out += '}';
      if (r.contested) out += ",\"contested\":true";
      out += '}';
      return;
  }
}
