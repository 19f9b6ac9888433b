#pragma once

// A path is bytes, a JS string UTF-16 text. So that a path that is not UTF-8
// (a directory named "d\xff") crosses between the two unchanged, a byte that
// is not part of valid UTF-8 travels as the lone surrogate U+DC80 + (byte -
// 0x80), as Python's surrogateescape has it (src/common/path-text.ts): the
// prober probes that very directory, not one named U+FFFD.

#include <napi.h>

#include <string>

// The UTF-8 sequence at text[i], if valid: its code point and length.
inline bool DecodeUtf8(const std::string& text, size_t i, char32_t& code,
                       size_t& length) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  char32_t min = 0;
  if (lead < 0x80) {
    code = lead;
    length = 1;
    return true;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    code = lead & 0x1f, length = 2, min = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    code = lead & 0x0f, length = 3, min = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    code = lead & 0x07, length = 4, min = 0x10000;
  } else {
    return false;
  }
  if (i + length > text.size()) return false;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return false;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  return code >= min && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
}

// Bytes to UTF-16, each byte outside valid UTF-8 as U+DC80 + (byte - 0x80).
inline std::u16string PathText(const std::string& bytes) {
  std::u16string text;
  text.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    char32_t code;
    size_t length;
    if (!DecodeUtf8(bytes, i, code, length)) {
      text += static_cast<char16_t>(0xdc00 + static_cast<unsigned char>(bytes[i]));
      i += 1;
      continue;
    }
    if (code >= 0x10000) {
      code -= 0x10000;
      text += static_cast<char16_t>(0xd800 + (code >> 10));
      text += static_cast<char16_t>(0xdc00 + (code & 0x3ff));
    } else {
      text += static_cast<char16_t>(code);
    }
    i += length;
  }
  return text;
}

inline void AppendUtf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

// A path as JS takes it. A Napi::Value, not a Napi::String: Object::Set would
// take that as the std::string it converts to, through UTF-8.
inline Napi::Value PathValue(Napi::Env env, const std::string& bytes) {
  return Napi::String::New(env, PathText(bytes));
}

// UTF-16 back to bytes: U+DC80 to U+DCFF alone are the bytes they stand for;
// any other lone surrogate is U+FFFD, as V8 writes it.
inline std::string PathBytes(const std::u16string& text) {
  std::string bytes;
  bytes.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char32_t unit = text[i];
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.size() &&
        text[i + 1] >= 0xdc00 && text[i + 1] <= 0xdfff) {
      AppendUtf8(bytes,
                 0x10000 + ((unit - 0xd800) << 10) + (text[i + 1] - 0xdc00));
      ++i;
    } else if (unit >= 0xdc80 && unit <= 0xdcff) {
      bytes += static_cast<char>(unit - 0xdc00);
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      AppendUtf8(bytes, 0xfffd);
    } else {
      AppendUtf8(bytes, unit);
    }
  }
  return bytes;
}
