// SPDX-License-Identifier: GPL-2.0-only
// Reading what a fastpathd child wrote to its log: the whole file, and a counter of its
// final counter lines ("final wire wa (host b): pass_wire_link=20 ...").
#pragma once

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fastpath::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The value of `key=N` on the log's last line starting with `prefix`, or -1.
inline long long finalCounter(const std::string& log, const std::string& prefix,
                              const std::string& key) {
  std::istringstream in(log);
  long long v = -1;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(prefix, 0) != 0) continue;
    std::smatch m;
    if (std::regex_search(l, m, std::regex("\\b" + key + "=([0-9]+)"))) v = std::stoll(m[1]);
    else v = 0;  // counters at 0 are not printed
  }
  return v;
}

}  // namespace fastpath::testing
