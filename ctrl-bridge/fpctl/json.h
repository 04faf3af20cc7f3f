// SPDX-License-Identifier: GPL-2.0-only
// A minimal streaming JSON writer for fpctl --json (no dependency for ~50 lines).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastpath::ctrl::fpctl {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint32_t v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(bool v);
  /// Shortest form that reads back the same ("0.01", "1e-06"); null when not finite.
  JsonWriter& value(double v);
  JsonWriter& null();
  const std::string& str() const { return out_; }

 private:
  void separator();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

std::string jsonEscape(const std::string& s);

}  // namespace fastpath::ctrl::fpctl
