// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's link ports and links. Link ends and segment ports are made by one path
// (checkLinkPortSpec, then addLinkPorts) and taken away by one (removeLinkPort); links add
// their pairing, state and per-direction emulation.
#include <algorithm>
#include <cerrno>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "fastpath/names.h"

namespace fastpath {

// ---- link ports (links' and segments') ----

Result<std::unique_ptr<UserspaceClassifier>> Daemon::linkClassifier(
    const MacAddress& mac, const std::vector<ControlRule>& rules) {
  UserspaceClassifier::Config c;
  c.port_mac = mac;
  auto cls = std::make_unique<UserspaceClassifier>(c);
  if (auto st = cls->setRules(rules); !st) return st.error();
  return cls;
}

Status Daemon::checkMediumName(const std::string& kind, const std::string& name) const {
  const std::string what = kind + " " + name;
  if (!validName(name)) return makeError(-EINVAL, nameRule(kind, name));
  const bool link = net_.links.count(name) != 0, segment = net_.segments.count(name) != 0,
             medium = net_.media.count(name) != 0;
  if ((kind == "link" && link) || (kind == "segment" && segment) || (kind == "medium" && medium))
    return makeError(-EEXIST, what + " exists already");
  if (link || segment || medium)
    return makeError(-EEXIST, what + ": a " + (link ? "link" : segment ? "segment" : "medium") +
                                  " has that name already");
  if (net_.links.size() + net_.segments.size() >= kMaxLinks)
    return makeError(-ENOSPC, what + ": fastpathd holds at most " + std::to_string(kMaxLinks) +
                                  " links and segments together");
  return {};
}

Result<Node*> Daemon::checkLinkPortSpec(const std::string& what, const std::string& at,
                                        const std::string& node_name, std::string& port,
                                        const std::string& default_name, uint32_t mtu,
                                        const MacAddress& mac) {
  Node* node = net_.findNode(node_name);
  if (!node) return makeError(-ENOENT, what + ": no node " + node_name);
  if (port.empty()) port = default_name;
  if (!validName(port)) return makeError(-EINVAL, at + ": " + nameRule("port", port));
  if (node->portByName(port))
    return makeError(-EEXIST, at + ": node " + node->name() + " has a port named " + port +
                                  " already");
  const uint32_t max_mtu = config_.frame_size - 256 - 14;  // XDP headroom, Ethernet header
  if (mtu < 68 || mtu > max_mtu)
    return makeError(-EINVAL, at + ": MTU " + std::to_string(mtu) + " outside 68.." +
                                  std::to_string(max_mtu) +
                                  " (the frame size, --frame-size, bounds it)");
  if (!mac.isZero() && (mac.bytes[0] & 1))
    return makeError(-EINVAL, at + ": MAC " + mac.toString() + " is multicast");
  return node;
}

Result<std::vector<PortId>> Daemon::addLinkPorts(const std::string& what,
                                                 std::vector<LinkPort> ports) {
  const size_t n = ports.size();
  std::vector<PortId> ids;
  auto give_back = [&] {
    for (PortId id : ids) net_.free_link_ports.push_back(id);
  };
  // Port ids: reuse those whose counters the workers no longer write.
  for (size_t i = 0; i < n; ++i) {
    auto id = net_.takeLinkPortId(ids);
    if (!id) {
      give_back();
      return makeError(id.error().code, what + ": " + id.error().message);
    }
    ids.push_back(*id);
    for (auto& w : workers_) w->resetPortCounters(*id);
  }
  // A link's two ends: each the other's peer (segment and medium ports are their own).
  const bool pair = ports[0].segment.empty() && ports[0].medium.empty();
  for (size_t i = 0; i < n; ++i) {
    LinkPort& lp = ports[i];
    auto cls = linkClassifier(lp.info.mac, lp.node->controlRules());
    if (!cls) {
      give_back();
      return makeError(cls.error().code, what + ": " + cls.error().message);
    }
    lp.classifier = std::move(*cls);
    lp.info.id = ids[i];
    lp.info.queues = uint32_t(workers_.size());
    lp.info.xdp_mode = "none";
    lp.peer = pair ? ids[1 - i] : ids[i];
  }
  for (size_t i = 0; i < n; ++i) {
    Node& node = *ports[i].node;
    std::vector<PortConfig> fib_ports = node.fib().ports();
    fib_ports.push_back(PortConfig{ids[i], ports[i].info.mac, ports[i].info.mtu, ports[i].info.up});
    if (auto st = node.fib().setPorts(fib_ports); !st) {
      for (size_t k = 0; k < i; ++k) {
        std::vector<PortConfig> back = ports[k].node->fib().ports();
        back.pop_back();
        (void)ports[k].node->fib().setPorts(back);
      }
      give_back();
      return makeError(st.error().code,
                       what + ": node " + node.name() + ": " + st.error().message);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t w = 0; w < workers_.size(); ++w) ports[i].inbound.push_back(resources_.takeQueue());
    ports[i].node->addPort(ids[i]);
    net_.link_ports[ids[i]] = std::move(ports[i]);
  }
  return ids;
}

void Daemon::removeLinkPort(PortId id, const std::string& what) {
  LinkPort& lp = net_.link_ports.at(id);
  Node& node = *lp.node;
  // Routes and neighbours through the port go with it.
  removeFromNodeTable(node, id, what);
  emitPortEvent(id, false);
  if (lp.channel && relay_) relay_->removeChannel(lp.channel.get());
  resources_.retireQueues(lp.inbound);
  resources_.retireShapers(lp.shapers);
  // What a worker may still read until it switched tables: freed after the epoch.
  UserspaceClassifier* cls = lp.classifier.release();
  ControlChannel* ch = lp.channel.release();
  LinkState* port_state = lp.port_state.release();
  epoch_.retire([this, cls, ch, port_state, id] {
    delete cls;
    delete ch;
    delete port_state;
    net_.free_link_ports.push_back(id);
  });
  net_.link_ports.erase(id);
}

// ---- links ----

Status Daemon::createLink(const LinkSpec& in) {
  LinkSpec spec = in;
  const std::string what = "link " + spec.name;
  if (auto st = checkMediumName("link", spec.name); !st) return st;
  LinkEndSpec* ends[2] = {&spec.a, &spec.b};
  Node* nodes[2] = {};
  for (int e = 0; e < 2; ++e) {
    auto node = checkLinkPortSpec(what, what, ends[e]->node, ends[e]->port, spec.name,
                                  ends[e]->mtu, ends[e]->mac);
    if (!node) return node.error();
    nodes[e] = *node;
  }
  if (nodes[0] == nodes[1])
    return makeError(-EINVAL, what + ": both ends are on node " + nodes[0]->name() +
                                  "; a link joins two different nodes");
  for (const LinkParams* p : {&spec.a_to_b, &spec.b_to_a})
    if (auto st = validateLinkParams(*p); !st)
      return makeError(st.error().code, what + ": " + st.error().message);
  for (int e = 0; e < 2; ++e) {
    MacAddress& m = ends[e]->mac;
    if (m.isZero())
      m = net_.nextLinkMac(e == 1 ? std::vector<MacAddress>{ends[0]->mac} : std::vector<MacAddress>{});
    else if (net_.linkMacInUse(m) || (e == 1 && m == ends[0]->mac))
      return makeError(-EEXIST, what + ": MAC " + m.toString() + " is in use by another port");
  }
  auto state = std::make_unique<LinkState>();
  state->up.store(spec.up, std::memory_order_relaxed);
  std::vector<LinkPort> ports(2);
  for (int e = 0; e < 2; ++e) {
    LinkPort& lp = ports[e];
    lp.info.ifname = ends[e]->port;
    lp.info.mac = ends[e]->mac;
    lp.info.mtu = ends[e]->mtu;
    lp.info.up = spec.up;
    lp.info.xsk_mode = "link";
    lp.info.node = nodes[e]->name();
    lp.info.link = spec.name;
    lp.node = nodes[e];
    lp.state = state.get();
    lp.port_state = std::make_unique<LinkState>();
  }
  auto ids = addLinkPorts(what, std::move(ports));
  if (!ids) return ids.error();
  for (int e = 0; e < 2; ++e)
    applyLinkParams(spec.name, net_.link_ports.at((*ids)[e]), e == 0 ? spec.a_to_b : spec.b_to_a);
  Link l;
  l.name = spec.name;
  l.a = (*ids)[0];
  l.b = (*ids)[1];
  l.state = std::move(state);
  net_.links[spec.name] = std::move(l);
  publishLinkTables();
  pr_info_ratelimited("link %s: %s/%s (port %u, %s) <-> %s/%s (port %u, %s), %s",
                      spec.name.c_str(), nodes[0]->name().c_str(), ends[0]->port.c_str(),
                      (*ids)[0], ends[0]->mac.toString().c_str(), nodes[1]->name().c_str(),
                      ends[1]->port.c_str(), (*ids)[1], ends[1]->mac.toString().c_str(),
                      spec.up ? "up" : "down");
  return {};
}

Status Daemon::deleteLink(const std::string& name) {
  auto it = net_.links.find(name);
  if (it == net_.links.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  Link link = std::move(it->second);
  net_.links.erase(it);
  for (PortId id : {link.a, link.b}) removeLinkPort(id, "link " + name);
  LinkState* state = link.state.release();
  epoch_.retire([state] { delete state; });
  publishLinkTables();
  pr_info_ratelimited("link %s deleted", name.c_str());
  return {};
}

Status Daemon::setLinkState(const std::string& name, bool up, const std::string& node) {
  auto it = net_.links.find(name);
  // A cross-host link has one end on this host: its state is that end's.
  if (it == net_.links.end() && wires_ && wires_->findLink(name))
    return setCrossLinkState(name, up);
  if (it == net_.links.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  Link& l = it->second;
  // A port passes frames when it and its link are up: its node's table and its
  // subscribers follow that, as a segment's ports do.
  auto follow = [&](PortId id, bool before) {
    LinkPort& lp = net_.link_ports.at(id);
    const bool now = lp.passes();
    if (now == before) return;
    lp.info.up = now;
    if (auto st = lp.node->setPortUp(id, now); !st)
      pr_warn("link %s: node %s: %s", name.c_str(), lp.node->name().c_str(),
              st.error().message.c_str());
    emitPortEvent(id, now);
  };
  if (!node.empty()) {
    for (PortId id : {l.a, l.b}) {
      LinkPort& lp = net_.link_ports.at(id);
      if (lp.info.node != node) continue;
      if (lp.port_state->up.load(std::memory_order_relaxed) == up) return {};
      const bool before = lp.passes();
      lp.port_state->up.store(up, std::memory_order_release);
      follow(id, before);
      pr_info_ratelimited("link %s: node %s's end %s is %s", name.c_str(), node.c_str(),
                          lp.info.ifname.c_str(), up ? "up" : "down");
      return {};
    }
    return makeError(-ENOENT, "link " + name + ": node " + node + " has no end on it (its ends: " +
                                  net_.link_ports.at(l.a).info.node + ", " +
                                  net_.link_ports.at(l.b).info.node + ")");
  }
  if (l.state->up.load(std::memory_order_relaxed) == up) return {};
  const bool before[2] = {net_.link_ports.at(l.a).passes(), net_.link_ports.at(l.b).passes()};
  l.state->up.store(up, std::memory_order_release);
  follow(l.a, before[0]);
  follow(l.b, before[1]);
  pr_info_ratelimited("link %s is %s", name.c_str(), up ? "up" : "down");
  return {};
}

Status Daemon::setLinkParams(const std::string& name, LinkDirection direction,
                             const LinkParams& params) {
  auto it = net_.links.find(name);
  if (it == net_.links.end() && wires_ && wires_->findLink(name))
    return setCrossLinkParams(name, direction, params);
  if (it == net_.links.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "link " + name + ": " + st.error().message +
                                          "; the link keeps its parameters");
  const Link& l = it->second;
  if (direction != LinkDirection::kBToA) applyLinkParams(name, net_.link_ports.at(l.a), params);
  if (direction != LinkDirection::kAToB) applyLinkParams(name, net_.link_ports.at(l.b), params);
  publishLinkTables();
  pr_info_ratelimited("link %s%s: %s", name.c_str(),
                      direction == LinkDirection::kBoth   ? ""
                      : direction == LinkDirection::kAToB ? " (a to b)"
                                                          : " (b to a)",
                      formatLinkParams(params).c_str());
  return {};
}

LinkDirectionStats Daemon::directionStats(const LinkPort& lp) const {
  LinkDirectionStats d = shaperStats(lp.shapers);
  for (const auto& w : workers_) {
    const auto& pc = w->portCounters(lp.info.id);
    d.tx_packets += pc.tx_packets.get();
    d.tx_bytes += pc.tx_bytes.get();
    d.link_down_drops += pc.drop[size_t(WorkerDrop::kLinkDown)].get();
  }
  return d;
}

void Daemon::applyLinkParams(const std::string& link, LinkPort& lp, const LinkParams& p) {
  lp.params = p;
  applyShaping(lp.shapers, link + "/" + lp.info.node, p);
}

std::vector<LinkInfo> Daemon::links() const {
  std::vector<LinkInfo> out;
  for (const auto& [name, l] : net_.links) {
    LinkInfo i;
    i.name = name;
    i.up = l.state->up.load(std::memory_order_relaxed);
    auto end = [&](PortId id) {
      const LinkPort& lp = net_.link_ports.at(id);
      return LinkInfo::End{lp.info.node, lp.info.ifname, id, lp.info.mac, lp.info.mtu,
                           !lp.port_state->up.load(std::memory_order_relaxed)};
    };
    i.a = end(l.a);
    i.b = end(l.b);
    i.a_to_b = net_.link_ports.at(l.a).params;
    i.b_to_a = net_.link_ports.at(l.b).params;
    i.a_to_b_stats = directionStats(net_.link_ports.at(l.a));
    i.b_to_a_stats = directionStats(net_.link_ports.at(l.b));
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace fastpath
