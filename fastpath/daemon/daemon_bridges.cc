// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's bridges: learning bridges (ns-3's BridgeNetDevice) over segment ports of one
// node. A bridge claims its ports: the fan-out hands every frame on their segments to the
// bridge instead of the node (SegmentFanout), and what the bridge forwards leaves through
// the worker's egress dispatch on the out port, into that segment's medium. Each worker
// keeps its own learning table (BridgeState), as it keeps its own medium of a segment.
#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <set>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "fastpath/monotonic_clock.h"
#include "fastpath/names.h"

namespace fastpath {

namespace {

/// Learned entries per (bridge, worker): ns-3's table is unbounded; a switch of a
/// scenario sees a few hundred MACs at most.
constexpr uint32_t kLearnedPerWorker = 4096;

}  // namespace

Status Daemon::createBridge(const BridgeSpec& spec) {
  const std::string what = "bridge " + spec.name;
  if (!validName(spec.name)) return makeError(-EINVAL, nameRule("bridge", spec.name));
  if (net_.bridges.count(spec.name)) return makeError(-EEXIST, what + " exists already");
  Node* node = net_.findNode(spec.node);
  if (!node || spec.node.empty())
    return makeError(-ENOENT, what + ": no node " + spec.node + " (fpctl node list)");
  if (spec.ports.empty() || spec.ports.size() > kMaxBridgePorts)
    return makeError(-EINVAL, what + ": " + std::to_string(spec.ports.size()) +
                                  " ports; a bridge has 1 to " +
                                  std::to_string(kMaxBridgePorts));
  if (spec.ageing_ns == 0)
    return makeError(-EINVAL, what + ": ageing time 0; a learned MAC must live a while "
                                     "(ns-3's ExpirationTime, 300 s by default)");
  std::vector<PortId> ids;
  std::set<std::string> segments;
  for (const std::string& port : spec.ports) {
    const std::string at = what + ": port " + port + " of node " + spec.node;
    const LinkPort* found = nullptr;
    PortId id = 0;
    for (const auto& [pid, lp] : net_.link_ports)
      if (lp.node == node && lp.info.ifname == port) {
        found = &lp;
        id = pid;
      }
    if (!found)
      return makeError(-ENOENT, at + ": no such segment port (fpctl segment list)");
    if (found->segment.empty())
      return makeError(-EINVAL, at + ": not a segment port; a bridge joins segments "
                                     "(ns-3: CsmaNetDevices), not links or media");
    if (!segments.insert(found->segment).second)
      return makeError(-EINVAL, at + ": a second port on segment " + found->segment +
                                    "; a bridge has one port per segment");
    if (const Bridge* other = net_.bridgeOf(id))
      return makeError(-EBUSY, at + ": already a port of bridge " + other->name);
    ids.push_back(id);
  }
  Bridge b;
  b.name = spec.name;
  b.node = node->name();
  b.ports = ids;
  b.ageing_ns = spec.ageing_ns;
  for (size_t w = 0; w < workers_.size(); ++w)
    b.states.push_back(std::make_unique<BridgeState>(kLearnedPerWorker));
  net_.bridges[spec.name] = std::move(b);
  publishLinkTables();
  std::string list;
  for (size_t i = 0; i < ids.size(); ++i)
    list += (i ? ", " : "") + spec.ports[i] + " (" + net_.link_ports.at(ids[i]).segment + ")";
  pr_info_ratelimited("bridge %s on node %s: %s, ageing %.0f s", spec.name.c_str(),
                      node->name().c_str(), list.c_str(), double(spec.ageing_ns) / 1e9);
  return {};
}

void Daemon::removeBridge(const std::string& name) {
  auto it = net_.bridges.find(name);
  if (it == net_.bridges.end()) return;
  Bridge gone = std::move(it->second);
  net_.bridges.erase(it);
  // Every worker has a table without it once this returns: its states are nobody's.
  publishLinkTables();
}

Status Daemon::deleteBridge(const std::string& name) {
  if (!net_.bridges.count(name))
    return makeError(-ENOENT, "bridge " + name + ": no such bridge (fpctl bridge list)");
  removeBridge(name);
  pr_info_ratelimited("bridge %s deleted", name.c_str());
  return {};
}

std::vector<BridgeInfo> Daemon::bridges() const {
  std::vector<BridgeInfo> out;
  const uint64_t now = monotonicNs();
  for (const auto& [name, b] : net_.bridges) {
    BridgeInfo i;
    i.name = name;
    i.node = b.node;
    i.ageing_ns = b.ageing_ns;
    for (PortId id : b.ports) {
      const LinkPort& lp = net_.link_ports.at(id);
      BridgeInfo::Port p;
      p.port = lp.info.ifname;
      p.segment = lp.segment;
      p.id = id;
      p.mac = lp.info.mac;
      for (const auto& w : workers_) {
        const auto& pc = w->portCounters(id);
        p.rx_packets += pc.rx_packets.get();
        p.tx_packets += pc.tx_packets.get();
        i.local += pc.drop[size_t(WorkerDrop::kBridgeLocal)].get();
        i.no_frame += pc.drop[size_t(WorkerDrop::kBridgeNoFrame)].get();
        i.loop_drops += pc.drop[size_t(WorkerDrop::kBridgeLoop)].get();
      }
      i.ports.push_back(std::move(p));
    }
    // Each worker's table; a MAC several workers learned: the entry that lives longest.
    std::map<std::array<uint8_t, 6>, BridgeInfo::Learned> learned;
    for (const auto& st : b.states) {
      i.received += st->received.get();
      i.forwarded += st->forwarded.get();
      i.flooded += st->flooded.get();
      i.learn_full += st->table.full();
      for (const LearningTable::Entry& e : st->table.entries(now)) {
        BridgeInfo::Learned l;
        std::copy(e.mac, e.mac + 6, l.mac.bytes.begin());
        l.port = e.port;
        l.expires_in_ns = e.expires_ns - now;
        auto [at, fresh] = learned.emplace(l.mac.bytes, l);
        if (!fresh && at->second.expires_in_ns < l.expires_in_ns) at->second = l;
      }
    }
    for (auto& [mac, l] : learned) i.learned.push_back(l);
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace fastpath
