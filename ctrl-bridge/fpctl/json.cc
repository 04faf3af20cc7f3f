// SPDX-License-Identifier: GPL-2.0-only
#include "json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fastpath::ctrl::fpctl {

std::string jsonEscape(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

void JsonWriter::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::beginObject() {
  separator();
  out_ += "{";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endObject() {
  out_ += "}";
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::beginArray() {
  separator();
  out_ += "[";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::endArray() {
  out_ += "]";
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::key(const std::string& k) {
  separator();
  out_ += jsonEscape(k) + ":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(const std::string& v) {
  separator();
  out_ += jsonEscape(v);
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(int64_t v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(bool v) {
  separator();
  out_ += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  separator();
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  out_ += buf;
  return *this;
}
JsonWriter& JsonWriter::null() {
  separator();
  out_ += "null";
  return *this;
}

}  // namespace fastpath::ctrl::fpctl
