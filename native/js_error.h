#pragma once

#include <napi.h>

#include "path_text.h"
#include "sys_error.h"

// A probe failure's fields as JS reads them: code, errno, syscall, path,
// message (and offset). The path and the message that names it keep the
// path's bytes (path_text.h).
inline void SetErrorFields(Napi::Object target, const SysError& e) {
  target.Set("message", PathValue(target.Env(), e.Message()));
  target.Set("code", e.Code());
  target.Set("errno", static_cast<double>(e.errnum));
  target.Set("syscall", e.syscall);
  target.Set("path", PathValue(target.Env(), e.path));
  if (e.offset >= 0) target.Set("offset", static_cast<double>(e.offset));
}

inline Napi::Object ErrorFields(Napi::Env env, const SysError& e) {
  Napi::Object fields = Napi::Object::New(env);
  SetErrorFields(fields, e);
  return fields;
}
