// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's nodes and links: creating and deleting them at run time, link state, the
// per-worker link port tables, and what a Node asks of the daemon for its ports (port
// facts, counters, rules on classifiers, control channels).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "userspace_classifier.h"

namespace fastpath {
namespace {

constexpr uint32_t kLinkQueueFrames = 1024;

}  // namespace

bool validName(const std::string& n) {
  if (n.empty() || n.size() > 31) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

std::string nameRule(const std::string& what, const std::string& name) {
  return what + " name \"" + name + "\" is not valid: use 1 to 31 letters, digits, '_', '.', '-'";
}

// ---- nodes ----

Node* Daemon::findNode(const std::string& name) const {
  auto it = nodes_.find(name.empty() ? std::string(kDefaultNodeName) : name);
  return it == nodes_.end() ? nullptr : it->second.get();
}

Result<Node*> Daemon::addNode(const NodeSpec& spec) {
  if (!validName(spec.name)) return makeError(-EINVAL, nameRule("node", spec.name));
  if (nodes_.count(spec.name))
    return makeError(-EEXIST, "node " + spec.name + " exists already");
  if (nodes_.size() >= kMaxNodes)
    return makeError(-ENOSPC, "node " + spec.name + ": fastpathd holds at most " +
                                  std::to_string(kMaxNodes) + " nodes");
  auto fib = FibManager::create(1 << 20, 1 << 16, &epoch_);
  if (!fib) return makeError(fib.error().code, "node " + spec.name + ": " + fib.error().message);
  NodeSpec s = spec;
  if (s.host.empty()) s.host = "local";
  auto node = std::make_unique<Node>(*this, next_node_id_++, s, std::move(*fib));
  Node* raw = node.get();
  nodes_[spec.name] = std::move(node);
  return raw;
}

Result<NodeControl*> Daemon::node(const std::string& name) {
  if (Node* n = findNode(name)) return static_cast<NodeControl*>(n);
  return makeError(-ENOENT, "node " + name + ": no such node (fpctl node list shows them)");
}

Status Daemon::createNode(const NodeSpec& spec) {
  auto n = addNode(spec);
  if (!n) return n.error();
  pr_info_ratelimited("node %s created (host %s)", spec.name.c_str(), (*n)->spec().host.c_str());
  return {};
}

Status Daemon::deleteNode(const std::string& name) {
  Node* n = findNode(name);
  if (!n) return makeError(-ENOENT, "node " + name + ": no such node");
  if (n == default_node_)
    return makeError(-EPERM, "node " + name + " is the default node; it cannot be deleted");
  for (PortId p : n->portIds())
    if (p < kFirstLinkPort &&
        std::find(runtime_ports_.begin(), runtime_ports_.end(), p) == runtime_ports_.end())
      return makeError(-EBUSY, "node " + name + " has interface port " + portInfo(p).ifname +
                                   " from fastpathd's start; those stay until fastpathd stops");
  // Its hosts and the interfaces attached to it at run time go with it.
  std::vector<std::string> node_hosts;
  for (const auto& [hname, h] : hosts_)
    if (h.info.spec.node == name) node_hosts.push_back(hname);
  for (const auto& h : node_hosts) removeHost(h, "deleted with node " + name);
  const std::vector<PortId> node_ports = n->portIds();
  for (PortId p : node_ports)
    if (p < kFirstLinkPort) detachPort(p, "detached (node " + name + " deleted)");
  std::vector<std::string> doomed;
  for (const auto& [lname, l] : links_)
    if (link_ports_.at(l.a).node == n || link_ports_.at(l.b).node == n) doomed.push_back(lname);
  for (const auto& l : doomed)
    if (auto st = deleteLink(l); !st) return st;
  // Its ports on segments go; the segments stay for the other nodes.
  std::vector<std::pair<std::string, PortId>> attached;
  for (const auto& [sname, seg] : segments_)
    for (PortId p : seg.ports)
      if (link_ports_.at(p).node == n) attached.push_back({sname, p});
  for (const auto& [sname, p] : attached) detachFromSegment(sname, p);
  if (!attached.empty()) publishLinkTables();
  // The node's table may still be read by a worker that has not switched tables yet.
  Node* raw = nodes_[name].release();
  nodes_.erase(name);
  epoch_.retire([raw] { delete raw; });
  epoch_.synchronize();
  pr_info_ratelimited("node %s deleted with %zu link(s)", name.c_str(), doomed.size());
  return {};
}

std::vector<NodeInfo> Daemon::nodes() const {
  std::vector<NodeInfo> out;
  for (const auto& [name, n] : nodes_) {
    NodeInfo i;
    i.name = name;
    i.host = n->spec().host;
    i.id = n->id();
    i.worker = 0;  // every worker serves every node (see startTopology)
    i.ports = n->portIds();
    auto c = n->fib().counters();
    i.routes = c.routes_v4 + c.routes_v6;
    i.neighbours = c.neighbours;
    out.push_back(std::move(i));
  }
  return out;
}

// ---- links ----

Result<std::unique_ptr<UserspaceClassifier>> Daemon::linkClassifier(
    const MacAddress& mac, const std::vector<ControlRule>& rules) {
  UserspaceClassifier::Config c;
  c.port_mac = mac;
  auto cls = std::make_unique<UserspaceClassifier>(c);
  if (auto st = cls->setRules(rules); !st) return st.error();
  return cls;
}

bool Daemon::linkMacInUse(const MacAddress& m) const {
  for (const auto& [id, lp] : link_ports_)
    if (lp.info.mac == m) return true;
  return false;
}

MacAddress Daemon::nextLinkMac(const std::vector<MacAddress>& also_taken) {
  // Locally administered, unicast, unique in the daemon: 02:66:70 ("fp") + a counter.
  MacAddress m;
  for (;;) {
    const uint32_t c = next_link_mac_++;
    m.bytes = {0x02, 0x66, 0x70, uint8_t(c >> 16), uint8_t(c >> 8), uint8_t(c)};
    if (!linkMacInUse(m) &&
        std::find(also_taken.begin(), also_taken.end(), m) == also_taken.end())
      return m;
  }
}

Result<PortId> Daemon::takeLinkPortId(const std::vector<PortId>& also_taken) {
  if (!free_link_ports_.empty()) {
    const PortId id = free_link_ports_.back();
    free_link_ports_.pop_back();
    return id;
  }
  for (PortId id = kFirstLinkPort + PortId(link_ports_.size()); id < kMaxPorts; ++id)
    if (!link_ports_.count(id) &&
        std::find(also_taken.begin(), also_taken.end(), id) == also_taken.end())
      return id;
  return makeError(-ENOSPC, "every link port id is in use (fastpathd holds at most " +
                                std::to_string(kMaxPorts - kFirstLinkPort) +
                                " link and segment ports); delete links or segments first");
}

LinkQueue* Daemon::takeQueue() {
  if (!free_queues_.empty()) {
    LinkQueue* q = free_queues_.back();
    free_queues_.pop_back();
    return q;
  }
  queue_pool_.push_back(std::make_unique<LinkQueue>(kLinkQueueFrames));
  return queue_pool_.back().get();
}

Status Daemon::createLink(const LinkSpec& in) {
  LinkSpec spec = in;
  const std::string what = "link " + spec.name;
  if (!validName(spec.name)) return makeError(-EINVAL, nameRule("link", spec.name));
  if (links_.count(spec.name)) return makeError(-EEXIST, what + " exists already");
  if (segments_.count(spec.name))
    return makeError(-EEXIST, what + ": a segment has that name already");
  if (links_.size() + segments_.size() >= kMaxLinks)
    return makeError(-ENOSPC, what + ": fastpathd holds at most " + std::to_string(kMaxLinks) +
                                  " links and segments together");
  LinkEndSpec* ends[2] = {&spec.a, &spec.b};
  Node* nodes[2] = {};
  for (int e = 0; e < 2; ++e) {
    nodes[e] = findNode(ends[e]->node);
    if (!nodes[e]) return makeError(-ENOENT, what + ": no node " + ends[e]->node);
    if (ends[e]->port.empty()) ends[e]->port = spec.name;
    if (!validName(ends[e]->port)) return makeError(-EINVAL, what + ": " + nameRule("port", ends[e]->port));
    if (nodes[e]->portByName(ends[e]->port))
      return makeError(-EEXIST, what + ": node " + nodes[e]->name() + " has a port named " +
                                    ends[e]->port + " already");
    const uint32_t max_mtu = config_.frame_size - 256 - 14;  // XDP headroom, Ethernet header
    if (ends[e]->mtu < 68 || ends[e]->mtu > max_mtu)
      return makeError(-EINVAL, what + ": MTU " + std::to_string(ends[e]->mtu) +
                                    " outside 68.." + std::to_string(max_mtu) +
                                    " (the frame size, --frame-size, bounds it)");
  }
  if (nodes[0] == nodes[1])
    return makeError(-EINVAL, what + ": both ends are on node " + nodes[0]->name() +
                                  "; a link joins two different nodes");
  for (const LinkParams* p : {&spec.a_to_b, &spec.b_to_a})
    if (auto st = validateLinkParams(*p); !st)
      return makeError(st.error().code, what + ": " + st.error().message);
  for (int e = 0; e < 2; ++e) {
    MacAddress& m = ends[e]->mac;
    if (m.isZero()) {
      m = nextLinkMac(e == 1 ? std::vector<MacAddress>{ends[0]->mac} : std::vector<MacAddress>{});
    } else if (m.bytes[0] & 1) {
      return makeError(-EINVAL, what + ": MAC " + m.toString() + " is multicast");
    } else if (linkMacInUse(m) || (e == 1 && m == ends[0]->mac)) {
      return makeError(-EEXIST, what + ": MAC " + m.toString() + " is in use by another port");
    }
  }
  // Port ids: reuse those whose counters the workers no longer write.
  PortId ids[2];
  for (int e = 0; e < 2; ++e) {
    auto id = takeLinkPortId(e == 1 ? std::vector<PortId>{ids[0]} : std::vector<PortId>{});
    if (!id) {
      if (e == 1) free_link_ports_.push_back(ids[0]);
      return makeError(id.error().code, what + ": " + id.error().message);
    }
    ids[e] = *id;
    for (auto& w : workers_) w->resetPortCounters(ids[e]);
  }
  auto state = std::make_unique<LinkState>();
  state->up.store(spec.up, std::memory_order_relaxed);
  LinkPort lps[2];
  for (int e = 0; e < 2; ++e) {
    auto cls = linkClassifier(ends[e]->mac, nodes[e]->controlRules());
    if (!cls) {
      for (PortId id : ids) free_link_ports_.push_back(id);
      return makeError(cls.error().code, what + ": " + cls.error().message);
    }
    LinkPort& lp = lps[e];
    lp.info.id = ids[e];
    lp.info.ifname = ends[e]->port;
    lp.info.mac = ends[e]->mac;
    lp.info.mtu = ends[e]->mtu;
    lp.info.up = spec.up;
    lp.info.queues = uint32_t(workers_.size());
    lp.info.xdp_mode = "none";
    lp.info.xsk_mode = "link";
    lp.info.node = nodes[e]->name();
    lp.info.link = spec.name;
    lp.peer = ids[1 - e];
    lp.node = nodes[e];
    lp.state = state.get();
    lp.classifier = std::move(*cls);
  }
  for (int e = 0; e < 2; ++e) {
    std::vector<PortConfig> ports = nodes[e]->fib().ports();
    ports.push_back(PortConfig{ids[e], ends[e]->mac, ends[e]->mtu, spec.up});
    if (auto st = nodes[e]->fib().setPorts(ports); !st) {
      if (e == 1) {
        std::vector<PortConfig> back = nodes[0]->fib().ports();
        back.pop_back();
        (void)nodes[0]->fib().setPorts(back);
      }
      for (PortId id : ids) free_link_ports_.push_back(id);
      return makeError(st.error().code, what + ": " + st.error().message);
    }
  }
  for (int e = 0; e < 2; ++e) {
    for (size_t w = 0; w < workers_.size(); ++w) lps[e].inbound.push_back(takeQueue());
    nodes[e]->addPort(ids[e]);
    link_ports_[ids[e]] = std::move(lps[e]);
    applyLinkParams(spec.name, link_ports_[ids[e]], e == 0 ? spec.a_to_b : spec.b_to_a);
  }
  Link l;
  l.name = spec.name;
  l.a = ids[0];
  l.b = ids[1];
  l.state = std::move(state);
  links_[spec.name] = std::move(l);
  publishLinkTables();
  pr_info_ratelimited("link %s: %s/%s (port %u, %s) <-> %s/%s (port %u, %s), %s",
                      spec.name.c_str(), nodes[0]->name().c_str(), ends[0]->port.c_str(), ids[0],
                      ends[0]->mac.toString().c_str(), nodes[1]->name().c_str(),
                      ends[1]->port.c_str(), ids[1], ends[1]->mac.toString().c_str(),
                      spec.up ? "up" : "down");
  return {};
}

void Daemon::removeLinkPort(PortId id, const std::string& what) {
  LinkPort& lp = link_ports_.at(id);
  Node& node = *lp.node;
  // Routes and neighbours through the port go with it.
  removeFromNodeTable(node, id, what);
  emitPortEvent(id, false);
  if (lp.channel && relay_) relay_->removeChannel(lp.channel.get());
  for (size_t w = 0; w < lp.inbound.size(); ++w) {
    lp.inbound[w]->drained.store(false, std::memory_order_relaxed);
    lp.inbound[w]->retired.store(true, std::memory_order_release);
    retired_queues_.push_back({uint32_t(w), lp.inbound[w]});
  }
  for (size_t w = 0; w < lp.shapers.size(); ++w) {
    lp.shapers[w]->drained.store(false, std::memory_order_relaxed);
    lp.shapers[w]->retired.store(true, std::memory_order_release);
    retired_shapers_.push_back({uint32_t(w), lp.shapers[w]});
  }
  // What a worker may still read until it switched tables: freed after the epoch.
  UserspaceClassifier* cls = lp.classifier.release();
  ControlChannel* ch = lp.channel.release();
  LinkState* port_state = lp.port_state.release();  // segment ports
  epoch_.retire([this, cls, ch, port_state, id] {
    delete cls;
    delete ch;
    delete port_state;
    free_link_ports_.push_back(id);
  });
  link_ports_.erase(id);
}

Status Daemon::deleteLink(const std::string& name) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  Link link = std::move(it->second);
  links_.erase(it);
  for (PortId id : {link.a, link.b}) removeLinkPort(id, "link " + name);
  LinkState* state = link.state.release();
  epoch_.retire([state] { delete state; });
  publishLinkTables();
  pr_info_ratelimited("link %s deleted", name.c_str());
  return {};
}

Status Daemon::setLinkState(const std::string& name, bool up) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  Link& l = it->second;
  if (l.state->up.load(std::memory_order_relaxed) == up) return {};
  l.state->up.store(up, std::memory_order_release);
  for (PortId id : {l.a, l.b}) {
    LinkPort& lp = link_ports_.at(id);
    lp.info.up = up;
    if (auto st = lp.node->setPortUp(id, up); !st)
      pr_warn("link %s: node %s: %s", name.c_str(), lp.node->name().c_str(),
              st.error().message.c_str());
    emitPortEvent(id, up);
  }
  pr_info_ratelimited("link %s is %s", name.c_str(), up ? "up" : "down");
  return {};
}

void Daemon::applyShaping(std::vector<LinkShaper*>& shapers, const std::string& seed_name,
                          const LinkParams& p) {
  if (shapers.empty() && !p.shapes()) return;  // nothing to emulate: frames pass at once
  const uint32_t need = LinkShaper::capacityFor(p);
  for (size_t w = 0; w < workers_.size(); ++w) {
    LinkShaper* old = w < shapers.size() ? shapers[w] : nullptr;
    if (old && old->capacity() >= need) {
      const LinkParams* prev = old->setParams(p);
      epoch_.retire([prev] { delete prev; });
      continue;
    }
    // The stream of each (link direction or port, worker) has its own seed unless one is
    // given.
    const uint64_t seed = std::hash<std::string>{}(seed_name + "/" + std::to_string(w)) | 1;
    auto sh = std::make_unique<LinkShaper>(p, seed, need);
    LinkShaper* raw = sh.get();
    shapers_[raw] = std::move(sh);
    if (old) {
      // More room needed: the worker moves the old one's frames and state over.
      old->successor = raw;
      old->drained.store(false, std::memory_order_relaxed);
      old->retired.store(true, std::memory_order_release);
      retired_shapers_.push_back({uint32_t(w), old});
      shapers[w] = raw;
    } else {
      shapers.push_back(raw);
    }
  }
}

void Daemon::applyLinkParams(const std::string& link, LinkPort& lp, const LinkParams& p) {
  lp.params = p;
  applyShaping(lp.shapers, link + "/" + lp.info.node, p);
}

Status Daemon::applyPortParams(PortId port, const LinkParams& params) {
  if (port < ports_.size() && !portAttached(port))
    return makeError(-ENODEV, "port " + std::to_string(port) + " is detached");
  if (port >= ports_.size())
    return makeError(-EINVAL, "port " + std::to_string(port) +
                                  " is a link port: set its link's parameters instead");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "port " + ports_[port].ifname + ": " +
                                          st.error().message + "; the port keeps its parameters");
  egress_shapers_.resize(ports_.size());
  ports_[port].egress = params;
  applyShaping(egress_shapers_[port], "port/" + ports_[port].ifname, params);
  publishLinkTables();
  pr_info_ratelimited("port %s egress: %s", ports_[port].ifname.c_str(),
                      formatLinkParams(params).c_str());
  return {};
}

Status Daemon::setLinkParams(const std::string& name, LinkDirection direction,
                             const LinkParams& params) {
  auto it = links_.find(name);
  if (it == links_.end()) return makeError(-ENOENT, "link " + name + ": no such link");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "link " + name + ": " + st.error().message +
                                          "; the link keeps its parameters");
  const Link& l = it->second;
  if (direction != LinkDirection::kBToA) applyLinkParams(name, link_ports_.at(l.a), params);
  if (direction != LinkDirection::kAToB) applyLinkParams(name, link_ports_.at(l.b), params);
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

LinkDirectionStats Daemon::shaperStats(const std::vector<LinkShaper*>& shapers) const {
  LinkDirectionStats d;
  for (const LinkShaper* sh : shapers) {
    const auto& c = sh->counters;
    d.enqueued += c.enqueued.load();
    d.delivered += c.delivered.load();
    d.queue_drops += c.queue_drops.load();
    d.loss_drops += c.loss_drops.load();
    d.full_drops += c.full_drops.load();
    d.duplicated += c.duplicated.load();
    d.corrupted += c.corrupted.load();
    d.depth_packets += c.depth_packets.load();
    d.depth_bytes += c.depth_bytes.load();
    d.in_flight += c.in_flight.load();
    d.sojourn_p50_ns = std::max(d.sojourn_p50_ns, c.sojourn.quantile(0.5));
    d.sojourn_p99_ns = std::max(d.sojourn_p99_ns, c.sojourn.quantile(0.99));
    d.sojourn_max_ns = std::max(d.sojourn_max_ns, c.sojourn.max());
  }
  return d;
}

void Daemon::checkEmulationLateness() {
  late_frames_seen_.resize(workers_.size(), 0);
  for (size_t i = 0; i < workers_.size(); ++i) {
    const auto& c = workers_[i]->counters();
    const uint64_t late = c.link_late_frames.get();
    if (late == late_frames_seen_[i]) continue;
    pr_warn_ratelimited(
        "worker %zu fell behind real time: %llu emulated frame(s) left more than %llu us "
        "after their arrival time in the last second (lateness p99 %llu us, max %llu us); "
        "the link emulation is not faithful — give the worker a CPU of its own (--cores) or "
        "emulate less",
        i, (unsigned long long)(late - late_frames_seen_[i]),
        (unsigned long long)(workers_[i]->options().lateness_warn_ns / 1000),
        (unsigned long long)(c.lateness.quantile(0.99) / 1000),
        (unsigned long long)(c.lateness.max() / 1000));
    late_frames_seen_[i] = late;
  }
}

std::vector<LinkInfo> Daemon::links() const {
  std::vector<LinkInfo> out;
  for (const auto& [name, l] : links_) {
    LinkInfo i;
    i.name = name;
    i.up = l.state->up.load(std::memory_order_relaxed);
    auto end = [&](PortId id) {
      const LinkPort& lp = link_ports_.at(id);
      return LinkInfo::End{lp.info.node, lp.info.ifname, id, lp.info.mac, lp.info.mtu};
    };
    i.a = end(l.a);
    i.b = end(l.b);
    i.a_to_b = link_ports_.at(l.a).params;
    i.b_to_a = link_ports_.at(l.b).params;
    i.a_to_b_stats = directionStats(link_ports_.at(l.a));
    i.b_to_a_stats = directionStats(link_ports_.at(l.b));
    out.push_back(std::move(i));
  }
  return out;
}

void Daemon::publishLinkTables() {
  ++link_table_version_;
  for (size_t w = 0; w < workers_.size(); ++w) {
    auto t = std::make_unique<LinkPortTable>();
    t->version = link_table_version_;
    t->slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
    // Segments first: their ports' slots point into `segments`, sized once here.
    std::map<std::string, const SegmentSlot*> seg_slot;
    t->segments.reserve(segments_.size());
    for (const auto& [sname, seg] : segments_) {
      SegmentSlot ss;
      ss.state = seg.state.get();
      ss.shaper = w < seg.shapers.size() ? seg.shapers[w] : nullptr;
      for (PortId p : seg.ports) {
        const LinkPort& lp = link_ports_.at(p);
        SegmentMember m;
        m.port = p;
        std::memcpy(m.mac, lp.info.mac.bytes.data(), 6);
        m.inbound = lp.inbound[w];
        m.port_state = lp.port_state.get();
        ss.members.push_back(m);
      }
      t->segments.push_back(std::move(ss));
      seg_slot[sname] = &t->segments.back();
    }
    for (const auto& [id, lp] : link_ports_) {
      LinkPortSlot s;
      s.port = id;
      s.peer = lp.peer;
      s.inbound = lp.inbound[w];
      if (!lp.segment.empty()) {
        s.segment = seg_slot.at(lp.segment);
        s.port_state = lp.port_state.get();
        s.peer = id;
      } else {
        s.to_peer = link_ports_.at(lp.peer).inbound[w];
      }
      s.state = lp.state;
      s.fib = &lp.node->fib().view();
      s.classifier = lp.classifier.get();
      s.channel = lp.channel.get();
      s.shaper = w < lp.shapers.size() ? lp.shapers[w] : nullptr;
      t->slot_of[id - kFirstLinkPort] = int32_t(t->slots.size());
      t->slots.push_back(s);
    }
    for (const auto& [rw, q] : retired_queues_)
      if (rw == w) t->retired.push_back(q);
    for (const auto& [rw, sh] : retired_shapers_)
      if (rw == w) t->retired_shapers.push_back(sh);
    t->egress.assign(egress_shapers_.size(), nullptr);
    for (size_t p = 0; p < egress_shapers_.size(); ++p)
      if (w < egress_shapers_[p].size()) t->egress[p] = egress_shapers_[p][w];
    workers_[w]->publishLinkPorts(t.get());
    if (link_tables_[w]) {
      LinkPortTable* old = link_tables_[w].release();
      epoch_.retire([old] { delete old; });
    }
    link_tables_[w] = std::move(t);
  }
  epoch_.synchronize();
  // Queues of deleted links the workers have drained are reusable.
  for (auto it = retired_queues_.begin(); it != retired_queues_.end();) {
    LinkQueue* q = it->second;
    if (!q->drained.load(std::memory_order_acquire)) {
      ++it;
      continue;
    }
    q->reset();
    q->retired.store(false, std::memory_order_relaxed);
    free_queues_.push_back(q);
    it = retired_queues_.erase(it);
  }
  // Shapers the workers drained (or moved into their successor) go; the table that named
  // them is retired with this epoch, so free them after the next one.
  for (auto it = retired_shapers_.begin(); it != retired_shapers_.end();) {
    LinkShaper* sh = it->second;
    if (!sh->drained.load(std::memory_order_acquire)) {
      ++it;
      continue;
    }
    auto owned = shapers_.find(sh);
    if (owned != shapers_.end()) {
      LinkShaper* raw = owned->second.release();
      shapers_.erase(owned);
      epoch_.retire([raw] { delete raw; });
    }
    it = retired_shapers_.erase(it);
  }
}

// ---- what nodes ask of the daemon ----

std::string Daemon::portNodeName(PortId port) const {
  if (port < port_node_.size()) return port_node_[port]->name();
  auto it = link_ports_.find(port);
  return it == link_ports_.end() ? std::string() : it->second.info.node;
}

void Daemon::emitPortEvent(PortId port, bool up) {
  ++events_delivered_;
  if (sink_)
    sink_(FastPathEvent{up ? FastPathEvent::Kind::kPortUp : FastPathEvent::Kind::kPortDown, port,
                        {}, 0, portNodeName(port)});
}

PortInfo Daemon::portInfo(PortId port) const {
  if (port < ports_.size()) {
    PortInfo p = ports_[port];
    if (port_gone_[port]) return p;  // stays down: its name may now be another interface
    if (auto now = readPortInfo(p.ifname, p.id); now) p.up = now->up;
    return p;
  }
  auto it = link_ports_.find(port);
  if (it == link_ports_.end()) return PortInfo{};
  PortInfo p = it->second.info;
  p.up = it->second.state->up.load(std::memory_order_relaxed) &&
         (!it->second.port_state || it->second.port_state->up.load(std::memory_order_relaxed));
  return p;
}

Status Daemon::applyNodeRules(Node& node, const std::vector<ControlRule>& rules) {
  for (PortId p : node.portIds())
    if (p < classifiers_.size())
      if (auto st = classifiers_[p]->setRules(rules); !st) return st;
  bool links = false;
  for (PortId p : node.portIds()) {
    auto it = link_ports_.find(p);
    if (it == link_ports_.end()) continue;
    auto cls = linkClassifier(it->second.info.mac, rules);
    if (!cls) return cls.error();
    UserspaceClassifier* old = it->second.classifier.release();
    it->second.classifier = std::move(*cls);
    epoch_.retire([old] { delete old; });
    links = true;
  }
  std::vector<IpAddress> local;
  for (const auto& r : rules)
    if (r.kind == ControlRule::Kind::kLocalAddress) local.push_back(r.address);
  if (auto st = node.fib().setLocalAddresses(local); !st) return st;
  if (links) publishLinkTables();
  return {};
}

Result<int> Daemon::portChannelFd(PortId port) {
  if (port < channels_.size()) {
    if (!channels_[port]) return makeError(-ENODEV, "no port " + std::to_string(port));
    return channels_[port]->clientFd();
  }
  auto it = link_ports_.find(port);
  if (it == link_ports_.end()) return makeError(-ENODEV, "no port " + std::to_string(port));
  LinkPort& lp = it->second;
  if (!lp.channel) {
    // Created on first use: a daemon with thousands of links holds descriptors only for
    // the link ports a control plane drives.
    auto ch = ControlChannel::create(port, lp.info.node + "/" + lp.info.ifname);
    if (!ch) return ch.error();
    if (auto st = relay_->addChannel(ch->get(), &workers_[0]->controlTxQueue(),
                                     workers_[0]->wakeFd());
        !st)
      return st.error();
    lp.channel = std::move(*ch);
    publishLinkTables();
  }
  return lp.channel->clientFd();
}

void Daemon::releasePortChannel(PortId port) {
  ControlChannel* ch = nullptr;
  if (port < channels_.size())
    ch = channels_[port].get();
  else if (auto it = link_ports_.find(port); it != link_ports_.end())
    ch = it->second.channel.get();
  if (!ch) return;
  ch->detach();
  pr_info_ratelimited(
      "port %u %s: its control client is gone; frames for it are counted drops "
      "(drop_no_control_client) until a client opens the channel again",
      port, ch->ifname().c_str());
}

// ---- counters ----

namespace {
// The emulation's counters of one direction (a link's or an interface's egress), the same
// names wherever they appear.
void appendEmulationCounters(const LinkDirectionStats& d,
                             std::vector<std::pair<std::string, uint64_t>>* v) {
  v->insert(v->end(), {{"emu_enqueued", d.enqueued},
                       {"emu_delivered", d.delivered},
                       {"emu_queue_drops", d.queue_drops},
                       {"emu_loss_drops", d.loss_drops},
                       {"emu_full_drops", d.full_drops},
                       {"emu_duplicated", d.duplicated},
                       {"emu_corrupted", d.corrupted},
                       {"emu_depth_packets", d.depth_packets},
                       {"emu_depth_bytes", d.depth_bytes},
                       {"emu_in_flight", d.in_flight},
                       {"emu_sojourn_p50_ns", d.sojourn_p50_ns},
                       {"emu_sojourn_p99_ns", d.sojourn_p99_ns}});
}
}  // namespace

CounterSet Daemon::portCounters(PortId port, const std::string& scope_name) const {
  CounterSet cs;
  cs.scope = "port " + scope_name;
  const bool link = port >= kFirstLinkPort;
  uint64_t rx = 0, rxb = 0, tx = 0, txb = 0, toc = 0, tocb = 0, ctx = 0, nometa = 0, kicks = 0,
           kick_err = 0;
  uint64_t verdict[FP_VERDICT_MAX] = {};
  uint64_t reason[FP_REASON_MAX] = {};
  uint64_t result[size_t(ForwardResult::kMax)] = {};
  uint64_t drop[size_t(WorkerDrop::kMax)] = {};
  xdp_statistics xs{};
  for (const auto& w : workers_) {
    if (port >= w->maxPorts()) continue;
    const auto& c = w->portCounters(port);
    rx += c.rx_packets.get();
    rxb += c.rx_bytes.get();
    tx += c.tx_packets.get();
    txb += c.tx_bytes.get();
    toc += c.to_control.get();
    tocb += c.to_control_bytes.get();
    ctx += c.ctrl_tx_packets.get();
    nometa += c.no_meta.get();
    kicks += c.tx_kicks.get();
    kick_err += c.tx_kick_errors.get();
    for (size_t i = 0; i < FP_VERDICT_MAX; ++i) verdict[i] += c.verdict[i].get();
    for (size_t i = 0; i < FP_REASON_MAX; ++i) reason[i] += c.reason[i].get();
    for (size_t i = 0; i < size_t(ForwardResult::kMax); ++i) result[i] += c.result[i].get();
    for (size_t i = 0; i < size_t(WorkerDrop::kMax); ++i) drop[i] += c.drop[i].get();
    if (link || !w->servesPort(port)) continue;
    if (auto st = w->socket(port).statistics(); st) {
      xs.rx_dropped += st->rx_dropped;
      xs.rx_invalid_descs += st->rx_invalid_descs;
      xs.tx_invalid_descs += st->tx_invalid_descs;
      xs.rx_ring_full += st->rx_ring_full;
      xs.rx_fill_ring_empty_descs += st->rx_fill_ring_empty_descs;
      xs.tx_ring_empty_descs += st->tx_ring_empty_descs;
    }
  }
  auto& v = cs.counters;
  v = {{"rx_packets", rx},          {"rx_bytes", rxb},   {"tx_packets", tx},
       {"tx_bytes", txb},           {"to_control", toc}, {"to_control_bytes", tocb},
       {"ctrl_tx_packets", ctx},    {"no_meta", nometa}, {"tx_kicks", kicks},
       {"tx_kick_errors", kick_err}};
  for (size_t i = 0; i < FP_VERDICT_MAX; ++i)
    v.push_back({std::string("verdict_") + verdictName(unsigned(i)), verdict[i]});
  for (size_t i = 0; i < size_t(ForwardResult::kMax); ++i)
    v.push_back({forwardResultName(ForwardResult(i)), result[i]});
  for (size_t i = 0; i < size_t(WorkerDrop::kMax); ++i)
    v.push_back({std::string("drop_") + workerDropName(WorkerDrop(i)), drop[i]});
  const ControlChannel* ch = nullptr;
  if (link) {
    // The userspace classifier's reasons (what the XDP program counts per CPU at a NIC).
    for (unsigned i = 0; i < FP_REASON_MAX; ++i)
      v.push_back({std::string("classifier_") + reasonName(i), reason[i]});
    auto it = link_ports_.find(port);
    if (it != link_ports_.end()) {
      ch = it->second.channel.get();
      v.push_back({"link_up", it->second.state->up.load() ? 1u : 0u});
      if (!it->second.shapers.empty()) appendEmulationCounters(shaperStats(it->second.shapers), &v);
    }
  } else {
    v.push_back({"xsk_rx_dropped", xs.rx_dropped});
    v.push_back({"xsk_rx_invalid_descs", xs.rx_invalid_descs});
    v.push_back({"xsk_tx_invalid_descs", xs.tx_invalid_descs});
    v.push_back({"xsk_rx_ring_full", xs.rx_ring_full});
    v.push_back({"xsk_fill_ring_empty", xs.rx_fill_ring_empty_descs});
    v.push_back({"xsk_tx_ring_empty", xs.tx_ring_empty_descs});
    if (port < channels_.size()) ch = channels_[port].get();
    if (port < egress_shapers_.size() && !egress_shapers_[port].empty())
      appendEmulationCounters(shaperStats(egress_shapers_[port]), &v);
  }
  v.push_back({"control_client_attached", ch && ch->attached() ? 1u : 0u});
  if (ch) {
    v.push_back({"from_control", ch->from_client.load()});
    v.push_back({"from_control_bytes", ch->from_client_bytes.load()});
    v.push_back({"drop_ctrl_tx_queue_full", ch->drop_tx_queue_full.load()});
    v.push_back({"drop_ctrl_oversize", ch->drop_oversize.load()});
    v.push_back({"drop_ctrl_runt", ch->drop_runt.load()});
    v.push_back({"drop_ctrl_stale_at_attach", ch->drop_stale_at_attach.load()});
  }
  v.push_back({"punt_rate", config_.punt_rate});
  v.push_back({"punt_burst", config_.punt_burst});
  if (!link && port < ports_.size()) {
    v.push_back({"xsk_zerocopy", ports_[port].xsk_mode == "zerocopy" ? 1u : 0u});
    if (!workers_.empty() && workers_[0]->servesPort(port))
      v.push_back({"xsk_tx_budget", workers_[0]->socket(port).txBudget()});
  }
  return cs;
}

std::vector<CounterSet> Daemon::daemonCounters() const {
  std::vector<CounterSet> out;
  for (const auto& w : workers_) {
    CounterSet cs;
    cs.scope = "worker " + std::to_string(w->options().index);
    const auto& c = w->counters();
    FrameAccounting a = w->accounting();
    cs.counters = {{"loops", c.loops.get()},
                   {"busy_loops", c.busy_loops.get()},
                   {"idle_polls", c.idle_polls.get()},
                   {"events", c.events.get()},
                   {"events_dropped", c.events_dropped.get()},
                   {"rt_priority", uint64_t(w->rtPriority())},
                   {"rt_below", uint64_t(w->rtBelow())},
                   {"rt_boosts", c.rt_boosts.get()},
                   {"rx_budget_frames", w->rxFillTarget()},
                   {"rx_overload_windows", c.rx_overload_windows.get()},
                   {"rx_drain_rate_pps", w->rxRatePps()},
                   {"link_tables", c.link_tables.get()},
                   {"link_frames_discarded", c.link_frames_discarded.get()},
                   {"emu_late_frames", c.link_late_frames.get()},
                   {"emu_lateness_p50_ns", c.lateness.quantile(0.5)},
                   {"emu_lateness_p99_ns", c.lateness.quantile(0.99)},
                   {"emu_lateness_max_ns", c.lateness.max()},
                   {"umem_frames", a.total},
                   {"frames_free", a.free},
                   {"frames_fill_ring", a.fill_ring},
                   {"frames_rx_ring", a.rx_ring},
                   {"frames_tx_ring", a.tx_ring},
                   {"frames_comp_ring", a.comp_ring},
                   {"frames_in_kernel", uint64_t(std::max<int64_t>(0, a.inKernel()))},
                   {"frames_held", a.held},
                   {"frames_in_links", a.in_link},
                   {"frames_lost", a.lost},
                   {"port_tables", c.port_tables.get()},
                   {"port_frames_discarded", c.port_frames_discarded.get()},
                   {"frames_balanced", a.balanced() ? 1u : 0u}};
    if (w->options().cpu >= 0)
      cs.counters.push_back({"cpu", uint64_t(w->options().cpu)});  // pinned
    out.push_back(std::move(cs));
  }
  for (const auto& c : classifiers_) {
    if (!c) continue;  // a detached port's id
    auto st = c->readStats();
    if (!st) continue;
    CounterSet cs;
    cs.scope = "classifier " + c->ifname();
    for (unsigned i = 0; i < FP_VERDICT_MAX; ++i)
      cs.counters.push_back({std::string(verdictName(i)), st->verdict[i].packets});
    for (unsigned i = 0; i < FP_REASON_MAX; ++i)
      cs.counters.push_back({std::string(reasonName(i)), st->reason[i].packets});
    out.push_back(std::move(cs));
  }
  out.push_back(
      CounterSet{"events", {{"delivered", events_delivered_}, {"suppressed", events_suppressed_}}});
  out.push_back(CounterSet{"nodes",
                           {{"nodes", nodes_.size()},
                            {"links", links_.size()},
                            {"link_queues", queue_pool_.size()},
                            {"link_queues_retired", retired_queues_.size()},
                            {"link_shapers", shapers_.size()},
                            {"link_shapers_retired", retired_shapers_.size()}}});
  return out;
}

}  // namespace fastpath
