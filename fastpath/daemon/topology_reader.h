// SPDX-License-Identifier: GPL-2.0-only
// The topology reader: the YAML document onto Topology, syntax only, with strict keys (a typo
// is an error, never ignored) and the line of every entry. One class, defined over one file
// per concern: the document, nodes and links (topology_reader.cc), the values every section
// reads (topology_reader_values.cc), hosts (topology_reader_hosts.cc), segments and bridges
// (topology_reader_segments.cc), radio media (topology_reader_media.cc). Not a public header.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "daemon/topology.h"
#include "daemon/topology_internal.h"

namespace fastpath::topology_detail {

/// The 1-based line of a node of the document, 0 if it has none.
int lineOf(const YAML::Node& n);

class Reader {
 public:
  explicit Reader(Problems* problems) : p_(problems) {}

  /// The whole document: its sections, each entry to topology and lines.
  void document(const YAML::Node& root);

  Topology topology;
  Lines lines;

 private:
  /// Calls f(key, value) for every entry of a mapping. Reports a value that is not a
  /// mapping, keys that are not plain words, keys not in `allowed` (typos), keys given
  /// twice and `required` keys that are missing.
  template <typename F>
  void forEachKey(const YAML::Node& map, const std::string& what,
                  std::initializer_list<const char*> allowed,
                  std::initializer_list<const char*> required, F f) {
    if (!map.IsMap()) {
      p_->add(lineOf(map), what + " must be a mapping of 'key: value' entries");
      return;
    }
    std::vector<std::string> allowed_list(allowed.begin(), allowed.end());
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const YAML::Node& k = kv.first;
      if (!k.IsScalar()) {
        p_->add(lineOf(k),
                what + ": a key must be a plain word (one of " + joined(allowed_list) + ")");
        continue;
      }
      const std::string& key = k.Scalar();
      if (std::find(allowed_list.begin(), allowed_list.end(), key) == allowed_list.end()) {
        p_->add(lineOf(k), what + ": unknown key '" + key + "': use one of " +
                               joined(allowed_list) + " (check the spelling)");
        continue;
      }
      if (!seen.insert(key).second) {
        p_->add(lineOf(k), what + ": '" + key + "' is given twice: keep one");
        continue;
      }
      f(key, kv.second);
    }
    for (const char* r : required)
      if (!seen.count(r)) p_->add(lineOf(map), what + " has no '" + r + "': add '" + r + ": ...'");
  }

  /// Calls f(item) for every item of a list; an empty value is an empty list.
  template <typename F>
  void forEachItem(const YAML::Node& seq, const std::string& what, F f) {
    if (seq.IsNull()) return;
    if (!seq.IsSequence()) {
      p_->add(lineOf(seq), what + " must be a list ('- item' lines or [a, b])");
      return;
    }
    for (const auto& item : seq) f(item);
  }

  // Values (topology_reader_values.cc).
  bool scalar(const YAML::Node& v, const std::string& what, std::string* out);
  bool number(const YAML::Node& v, const std::string& what, uint64_t max, uint64_t* out);

  /// A value read by T::parse; `hint` follows its error message.
  template <typename T>
  bool parsed(const YAML::Node& v, const std::string& what, const char* hint, T* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    auto x = T::parse(s);
    if (!x) {
      p_->add(lineOf(v), what + ": " + x.error().message + hint);
      return false;
    }
    *out = *x;
    return true;
  }

  bool ip(const YAML::Node& v, const std::string& what, IpAddress* out);
  bool mac(const YAML::Node& v, const std::string& what, MacAddress* out);
  bool real(const YAML::Node& v, const std::string& what, double* out);
  static std::string label(const YAML::Node& n, const char* kind, size_t index);

  // Nodes and links (topology_reader.cc).
  void node(const YAML::Node& n);
  bool route(const YAML::Node& n, const std::string& node_what, RouteConfig* r);
  bool neighbour(const YAML::Node& n, const std::string& node_what, NeighbourConfig* nb);
  void link(const YAML::Node& n);
  bool linkParams(const YAML::Node& v, const std::string& what, LinkParams* p);
  void end(const YAML::Node& v, const std::string& what, PortSpec* e, int* line);

  // Hosts (topology_reader_hosts.cc).
  void host(const YAML::Node& n);

  // Segments and bridges (topology_reader_segments.cc).
  void segment(const YAML::Node& n);
  void bridge(const YAML::Node& n);

  // Radio media (topology_reader_media.cc).
  void medium(const YAML::Node& n);
  void mediumPhy(const YAML::Node& v, const std::string& what, MediumPhy* phy);
  void mediumPair(const YAML::Node& v, const std::string& what, std::vector<MediumPair>* out);

  Problems* p_;
};

}  // namespace fastpath::topology_detail
