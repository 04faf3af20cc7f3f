// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/names.h"

#include <algorithm>

namespace fastpath {

bool validName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  // Spelled out rather than isalnum(): the rule must not depend on the locale.
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
  });
}

std::string nameRule(const std::string& what, const std::string& name) {
  return what + " name '" + name + "' is not valid: use 1 to " + std::to_string(kMaxNameLength) +
         " letters, digits, '_', '.', '-'";
}

bool validIfname(const std::string& name) {
  if (name.empty() || name.size() > kMaxIfnameLength || name == "." || name == "..") return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
  });
}

std::string ifnameRule(const std::string& name) {
  return "interface name '" + name + "' is not valid: use 1 to " +
         std::to_string(kMaxIfnameLength) + " characters without '/', ':' or spaces";
}

}  // namespace fastpath
