// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/host_rules.h"

#include <cerrno>
#include <string>

namespace fastpath {

namespace {

// "" is the default node, as everywhere else.
std::string nodeKey(const std::string& node) {
  return node.empty() ? std::string(kDefaultNodeName) : node;
}

}  // namespace

Status checkHostAddresses(const HostSpec& spec, const std::vector<HostInfo>& hosts,
                          const std::vector<ControlRule>& node_rules, std::size_t* bad_index) {
  const std::string node = nodeKey(spec.node);
  for (std::size_t i = 0; i < spec.addresses.size(); ++i) {
    const IpAddress& a = spec.addresses[i].address;
    auto refuse = [&](const std::string& why) {
      if (bad_index) *bad_index = i;
      return makeError(-EEXIST, a.toString() + " " + why);
    };
    for (std::size_t j = 0; j < i; ++j)
      if (spec.addresses[j].address == a)
        return refuse("is given twice (addresses[" + std::to_string(j) + "] too)");
    for (const auto& r : node_rules)
      if (r.kind == ControlRule::Kind::kLocalAddress && r.address == a)
        return refuse("is node " + node +
                      "'s own address (a local-address control rule); give the host another");
    for (const auto& h : hosts) {
      if (h.spec.name == spec.name || nodeKey(h.spec.node) != node) continue;
      for (const auto& other : h.spec.addresses)
        if (other.address == a)
          return refuse("is host " + h.spec.name + "'s address on node " + node +
                        " already; a host address is unique on its node");
    }
  }
  return {};
}

}  // namespace fastpath
