// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's segments: shared media joining many nodes, as ns-3's CsmaChannel. A segment
// port is a link port without a peer: its node sees a port like any other (MAC, MTU,
// classifier twin, control channel); what it sends enters the segment's one medium (one
// LinkShaper per worker: every sender's frames in one FIFO, one rate) and is fanned out
// when it leaves it, to the port of the destination MAC or to every other port
// (SegmentFanout).
#include <algorithm>
#include <cerrno>
#include <set>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "fastpath/names.h"

namespace fastpath {

namespace {

/// What a segment's parameters may not have beyond a link's: a queue discipline models a
/// router's queue disc in front of one device queue, and a segment has one medium shared
/// by every member's device.
Status segmentOnlyChecks(const LinkParams& p) {
  if (p.aqm != LinkParams::Aqm::kNone)
    return makeError(-EINVAL,
                     "a queue discipline (aqm) is a point-to-point link direction's, as a "
                     "router's queue disc in front of its device; a segment's medium is "
                     "shared by every member: use aqm none");
  return {};
}

}  // namespace

Status Daemon::createSegment(const SegmentSpec& in) {
  SegmentSpec spec = in;
  const std::string what = "segment " + spec.name;
  if (auto st = checkMediumName("segment", spec.name); !st) return st;
  if (spec.ports.empty())
    return makeError(-EINVAL, what + ": no port; a segment joins 1 to " +
                                  std::to_string(kMaxSegmentPorts) + " nodes");
  if (spec.ports.size() > kMaxSegmentPorts)
    return makeError(-EINVAL, what + ": " + std::to_string(spec.ports.size()) +
                                  " ports; a segment has at most " +
                                  std::to_string(kMaxSegmentPorts));
  if (net_.link_ports.size() + spec.ports.size() > size_t(kMaxPorts - kFirstLinkPort))
    return makeError(-ENOSPC, what + ": " + std::to_string(spec.ports.size()) +
                                  " more ports than fastpathd has port ids for (" +
                                  std::to_string(kMaxPorts - kFirstLinkPort) +
                                  " link and segment ports); delete links or segments first");
  if (auto st = validateLinkParams(spec.params); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  if (auto st = segmentOnlyChecks(spec.params); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  const size_t n = spec.ports.size();
  std::vector<Node*> nodes(n);
  std::set<Node*> seen;
  std::vector<MacAddress> macs;
  for (size_t i = 0; i < n; ++i) {
    SegmentPortSpec& ps = spec.ports[i];
    const std::string at = what + ": port " + std::to_string(i) + " (node " + ps.node + ")";
    auto node = checkLinkPortSpec(what, at, ps.node, ps.port, spec.name, ps.mtu, ps.mac);
    if (!node) return node.error();
    nodes[i] = *node;
    if (!seen.insert(nodes[i]).second)
      return makeError(-EINVAL, what + ": node " + nodes[i]->name() +
                                    " is attached twice; a node has one port on a segment");
    if (!ps.mac.isZero()) {
      if (net_.linkMacInUse(ps.mac) || std::count(macs.begin(), macs.end(), ps.mac))
        return makeError(-EEXIST,
                         at + ": MAC " + ps.mac.toString() + " is in use by another port");
      macs.push_back(ps.mac);
    }
  }
  for (auto& ps : spec.ports)
    if (ps.mac.isZero()) {
      ps.mac = net_.nextLinkMac(macs);
      macs.push_back(ps.mac);
    }
  // Everything that can fail is checked: the ports are made.
  Segment seg;
  seg.name = spec.name;
  seg.state = std::make_unique<LinkState>();
  seg.state->up.store(spec.up, std::memory_order_relaxed);
  seg.params = spec.params;
  std::vector<LinkPort> ports(n);
  for (size_t i = 0; i < n; ++i) {
    const SegmentPortSpec& ps = spec.ports[i];
    LinkPort& lp = ports[i];
    lp.info.ifname = ps.port;
    lp.info.mac = ps.mac;
    lp.info.mtu = ps.mtu;
    lp.info.up = spec.up;
    lp.info.xsk_mode = "segment";
    lp.info.node = nodes[i]->name();
    lp.info.link = spec.name;
    lp.node = nodes[i];
    lp.state = seg.state.get();
    lp.segment = spec.name;
    lp.port_state = std::make_unique<LinkState>();
  }
  auto ids = addLinkPorts(what, std::move(ports));
  if (!ids) return ids.error();
  seg.ports = *ids;
  applyShaping(seg.shapers, "segment/" + spec.name, spec.params, LinkShaper::Medium::kShared);
  net_.segments[spec.name] = std::move(seg);
  publishLinkTables();
  std::string list;
  for (size_t i = 0; i < n; ++i)
    list += (i ? ", " : "") + nodes[i]->name() + "/" + spec.ports[i].port + " (port " +
            std::to_string((*ids)[i]) + ", " + spec.ports[i].mac.toString() + ")";
  pr_info_ratelimited("segment %s: %s, %s, %s", spec.name.c_str(), list.c_str(),
                      formatLinkParams(spec.params).c_str(), spec.up ? "up" : "down");
  return {};
}

void Daemon::detachFromSegment(const std::string& name, PortId id) {
  Segment& seg = net_.segments.at(name);
  // A bridge over the port goes with it (ns-3 has no bridge port without its device).
  if (Bridge* b = net_.bridgeOf(id)) {
    pr_info_ratelimited("bridge %s deleted with its port on segment %s", b->name.c_str(),
                        name.c_str());
    removeBridge(std::string(b->name));
  }
  removeLinkPort(id, "segment " + name);
  seg.ports.erase(std::remove(seg.ports.begin(), seg.ports.end(), id), seg.ports.end());
  if (!seg.ports.empty()) return;
  resources_.retireShapers(seg.shapers);
  LinkState* state = seg.state.release();
  epoch_.retire([state] { delete state; });
  net_.segments.erase(name);
  pr_info_ratelimited("segment %s deleted (no port left)", name.c_str());
}

Status Daemon::deleteSegment(const std::string& name) {
  auto it = net_.segments.find(name);
  if (it == net_.segments.end())
    return makeError(-ENOENT, "segment " + name + ": no such segment (fpctl segment list)");
  const size_t ports = it->second.ports.size();
  // The last port takes the segment (its shapers: frames held are discarded, counted).
  for (PortId id : std::vector<PortId>(it->second.ports)) detachFromSegment(name, id);
  publishLinkTables();
  pr_info_ratelimited("segment %s deleted with %zu port(s)", name.c_str(), ports);
  return {};
}

Status Daemon::setSegmentState(const std::string& name, bool up, const std::string& node) {
  auto it = net_.segments.find(name);
  if (it == net_.segments.end())
    return makeError(-ENOENT, "segment " + name + ": no such segment (fpctl segment list)");
  Segment& seg = it->second;
  // A port passes frames when it and the segment are up: its node's table and its
  // subscribers follow that.
  auto follow = [&](PortId id, bool before) {
    LinkPort& lp = net_.link_ports.at(id);
    const bool now = seg.state->up.load(std::memory_order_relaxed) &&
                     lp.port_state->up.load(std::memory_order_relaxed);
    if (now == before) return;
    lp.info.up = now;
    if (auto st = lp.node->setPortUp(id, now); !st)
      pr_warn("segment %s: node %s: %s", name.c_str(), lp.node->name().c_str(),
              st.error().message.c_str());
    emitPortEvent(id, now);
  };
  auto effective = [&](PortId id) {
    return seg.state->up.load(std::memory_order_relaxed) &&
           net_.link_ports.at(id).port_state->up.load(std::memory_order_relaxed);
  };
  if (!node.empty()) {
    for (PortId id : seg.ports) {
      LinkPort& lp = net_.link_ports.at(id);
      if (lp.info.node != node) continue;
      if (lp.port_state->up.load(std::memory_order_relaxed) == up) return {};
      const bool before = effective(id);
      lp.port_state->up.store(up, std::memory_order_release);
      follow(id, before);
      pr_info_ratelimited("segment %s: node %s's port %s is %s", name.c_str(), node.c_str(),
                          lp.info.ifname.c_str(), up ? "up" : "down");
      return {};
    }
    return makeError(-ENOENT, "segment " + name + ": node " + node + " has no port on it");
  }
  if (seg.state->up.load(std::memory_order_relaxed) == up) return {};
  std::vector<bool> before;
  for (PortId id : seg.ports) before.push_back(effective(id));
  seg.state->up.store(up, std::memory_order_release);
  for (size_t i = 0; i < seg.ports.size(); ++i) follow(seg.ports[i], before[i]);
  pr_info_ratelimited("segment %s is %s", name.c_str(), up ? "up" : "down");
  return {};
}

Status Daemon::setSegmentParams(const std::string& name, const LinkParams& params) {
  auto it = net_.segments.find(name);
  if (it == net_.segments.end())
    return makeError(-ENOENT, "segment " + name + ": no such segment (fpctl segment list)");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "segment " + name + ": " + st.error().message +
                                          "; the segment keeps its parameters");
  if (auto st = segmentOnlyChecks(params); !st)
    return makeError(st.error().code, "segment " + name + ": " + st.error().message +
                                          "; the segment keeps its parameters");
  Segment& seg = it->second;
  seg.params = params;
  applyShaping(seg.shapers, "segment/" + name, params, LinkShaper::Medium::kShared);
  publishLinkTables();
  pr_info_ratelimited("segment %s: %s", name.c_str(), formatLinkParams(params).c_str());
  return {};
}

std::vector<SegmentInfo> Daemon::segments() const {
  std::vector<SegmentInfo> out;
  for (const auto& [name, seg] : net_.segments) {
    SegmentInfo i;
    i.name = name;
    i.up = seg.state->up.load(std::memory_order_relaxed);
    i.params = seg.params;
    i.stats = shaperStats(seg.shapers);
    for (PortId id : seg.ports) {
      const LinkPort& lp = net_.link_ports.at(id);
      SegmentInfo::Port p;
      p.node = lp.info.node;
      p.port = lp.info.ifname;
      p.id = id;
      p.mac = lp.info.mac;
      p.mtu = lp.info.mtu;
      p.up = lp.port_state->up.load(std::memory_order_relaxed);
      for (const auto& w : workers_) {
        const auto& pc = w->portCounters(id);
        p.tx_packets += pc.tx_packets.get();
        p.tx_bytes += pc.tx_bytes.get();
        p.rx_packets += pc.rx_packets.get();
        p.rx_bytes += pc.rx_bytes.get();
        p.unknown_dst_drops += pc.drop[size_t(WorkerDrop::kSegmentUnknownDst)].get();
        p.no_frame_drops += pc.drop[size_t(WorkerDrop::kSegmentNoFrame)].get();
        p.queue_full_drops += pc.drop[size_t(WorkerDrop::kLinkQueueFull)].get();
        p.down_drops += pc.drop[size_t(WorkerDrop::kLinkDown)].get();
      }
      i.stats.tx_packets += p.tx_packets;
      i.stats.tx_bytes += p.tx_bytes;
      i.stats.link_down_drops += p.down_drops;
      i.ports.push_back(std::move(p));
    }
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace fastpath
