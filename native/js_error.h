#pragma once

#include <napi.h>

#include "sys_error.h"

// A probe failure's fields as JS reads them: code, errno, syscall, path,
// message (and offset).
inline void SetErrorFields(Napi::Object target, const SysError& e) {
  target.Set("code", e.code);
  target.Set("errno", static_cast<double>(e.errnum));
  target.Set("syscall", e.syscall);
  target.Set("path", e.path);
  if (e.offset >= 0) target.Set("offset", static_cast<double>(e.offset));
}

inline Napi::Object ErrorFields(Napi::Env env, const SysError& e) {
  Napi::Object fields = Napi::Object::New(env);
  fields.Set("message", e.Message());
  SetErrorFields(fields, e);
  return fields;
}
