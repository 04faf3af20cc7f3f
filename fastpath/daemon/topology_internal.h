// SPDX-License-Identifier: GPL-2.0-only
// What the topology reader (topology_reader.cc) and validator (topology_validate.cc) share:
// the problem list every message goes to, and the lines of a file's entries. Not a public
// header.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "daemon/topology.h"

namespace fastpath::topology_detail {

inline constexpr size_t kMaxProblemsShown = 100;  // a broken generated file must not flood stderr
inline constexpr const char* kGuide = "docs/reference/topology.md";

/// Where the entries of a node or link were written (1-based lines), so that a message
/// points at the entry itself. Only a parsed file has them; a Topology built in code has
/// the node's or link's own line at most.
struct NodeLines {
  std::vector<int> interfaces, routes, neighbours;
};
struct LinkLines {
  int a = 0, b = 0;
  int a_to_b = 0, b_to_a = 0;  ///< where each direction's emulation was given
};
struct SegmentLines {
  std::vector<int> ports;
  int params = 0;
};
struct Lines {
  std::vector<NodeLines> nodes;
  std::vector<LinkLines> links;
  std::vector<SegmentLines> segments;
};

/// The problems found so far, each one line "origin:LINE: what: what to do", reported in
/// the order of the file's lines like a compiler's.
class Problems {
 public:
  explicit Problems(std::string origin) : origin_(std::move(origin)) {}

  void add(int line, const std::string& what) {
    list_.emplace_back(line, origin_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  }
  bool empty() const { return list_.empty(); }

  /// Every problem, sorted by line (at most kMaxProblemsShown), as one error; ok if none.
  Status status();

 private:
  std::string origin_;
  std::vector<std::pair<int, std::string>> list_;  // line, message
};

/// "a, b, c".
std::string joined(const std::vector<std::string>& v);

/// validateTopology with the lines of a parsed file (nullptr: a Topology built in code).
Status validate(const Topology& t, const std::string& origin, const Lines* lines);

/// The `hosts:` section and the nodes' `host` fields (topology_hosts.cc): host names and
/// wires, every node on a declared host, every cross-host link or segment possible.
void checkHosts(const Topology& t, Problems* p);
}  // namespace fastpath::topology_detail
