// SPDX-License-Identifier: GPL-2.0-only
// The values a topology file's sections read: scalars, bounded integers, real numbers,
// addresses, and the label that names an entry in a message.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "daemon/topology_reader.h"

namespace fastpath {
namespace topology_detail {

int lineOf(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? 0 : m.line + 1;
}

bool Reader::scalar(const YAML::Node& v, const std::string& what, std::string* out) {
  if (v.IsNull()) {
    p_->add(lineOf(v), what + " is empty: give a value");
    return false;
  }
  if (!v.IsScalar()) {
    p_->add(lineOf(v), what +
                           " must be a single value (a word, a number or a quoted "
                           "string), not a list or a mapping");
    return false;
  }
  *out = v.Scalar();
  return true;
}

bool Reader::number(const YAML::Node& v, const std::string& what, uint64_t max, uint64_t* out) {
  std::string s;
  if (!scalar(v, what, &s)) return false;
  bool digits =
      !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  unsigned long long x = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno || x > max) {
    p_->add(lineOf(v),
            what + " must be an integer 0.." + std::to_string(max) + ", not '" + s + "'");
    return false;
  }
  *out = x;
  return true;
}

bool Reader::ip(const YAML::Node& v, const std::string& what, IpAddress* out) {
  return parsed(v, what, ": write e.g. 198.18.1.2 or 2001:2::2", out);
}

bool Reader::mac(const YAML::Node& v, const std::string& what, MacAddress* out) {
  return parsed(v, what, "; quote it: \"02:00:00:00:01:02\"", out);
}

bool Reader::real(const YAML::Node& v, const std::string& what, double* out) {
  std::string s;
  if (!scalar(v, what, &s)) return false;
  char* endp = nullptr;
  const double x = std::strtod(s.c_str(), &endp);
  if (s.empty() || *endp || !std::isfinite(x)) {
    p_->add(lineOf(v), what + " must be a number, not '" + s + "'");
    return false;
  }
  *out = x;
  return true;
}

/// "node r1" when the mapping has a usable name, "node N" (its position) otherwise.
std::string Reader::label(const YAML::Node& n, const char* kind, size_t index) {
  if (n.IsMap())
    for (const auto& kv : n)
      if (kv.first.IsScalar() && kv.first.Scalar() == "name" && kv.second.IsScalar())
        return std::string(kind) + " " + kv.second.Scalar();
  return std::string(kind) + " #" + std::to_string(index + 1);
}

}  // namespace topology_detail
}  // namespace fastpath
