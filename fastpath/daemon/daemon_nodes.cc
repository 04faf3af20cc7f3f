// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's nodes: creating and deleting them at run time, and what a Node asks of the
// daemon for its ports (port facts, rules on classifiers, control channels, events).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "fastpath/names.h"

namespace fastpath {

// ---- nodes ----

Result<Node*> Daemon::addNode(const NodeSpec& spec) {
  if (!validName(spec.name)) return makeError(-EINVAL, nameRule("node", spec.name));
  if (net_.nodes.count(spec.name))
    return makeError(-EEXIST, "node " + spec.name + " exists already");
  if (net_.nodes.size() >= kMaxNodes)
    return makeError(-ENOSPC, "node " + spec.name + ": fastpathd holds at most " +
                                  std::to_string(kMaxNodes) + " nodes");
  auto fib = FibManager::create(1 << 20, 1 << 16, &epoch_);
  if (!fib) return makeError(fib.error().code, "node " + spec.name + ": " + fib.error().message);
  NodeSpec s = spec;
  if (s.host.empty()) s.host = "local";
  auto node = std::make_unique<Node>(*this, net_.next_node_id++, s, std::move(*fib));
  Node* raw = node.get();
  net_.nodes[spec.name] = std::move(node);
  return raw;
}

Result<NodeControl*> Daemon::node(const std::string& name) {
  if (Node* n = net_.findNode(name)) return static_cast<NodeControl*>(n);
  return makeError(-ENOENT, "node " + name + ": no such node (fpctl node list shows them)");
}

Status Daemon::createNode(const NodeSpec& spec) {
  auto n = addNode(spec);
  if (!n) return n.error();
  pr_info_ratelimited("node %s created (host %s)", spec.name.c_str(), (*n)->spec().host.c_str());
  return {};
}

Status Daemon::deleteNode(const std::string& name) {
  Node* n = net_.findNode(name);
  if (!n) return makeError(-ENOENT, "node " + name + ": no such node");
  if (n == net_.default_node)
    return makeError(-EPERM, "node " + name + " is the default node; it cannot be deleted");
  for (PortId p : n->portIds())
    if (p < kFirstLinkPort && !net_.ports[p]->runtime)
      return makeError(-EBUSY, "node " + name + " has interface port " + portInfo(p).ifname +
                                   " from fastpathd's start; those stay until fastpathd stops");
  // A medium's members are fixed at its creation (its pairs name them).
  for (const auto& [mname, med] : net_.media)
    if (std::count(med.nodes.begin(), med.nodes.end(), n->name()))
      return makeError(-EBUSY, "node " + n->name() + " is a member of radio medium " + mname +
                                   "; delete the medium first (fpctl medium delete " + mname + ")");
  // Its hosts and the interfaces attached to it at run time go with it.
  std::vector<std::string> node_hosts;
  for (const auto& [hname, h] : net_.hosts)
    if (h.info.spec.node == name) node_hosts.push_back(hname);
  for (const auto& h : node_hosts) removeHost(h, "deleted with node " + name);
  removeCrossLinksOf(name);
  const std::vector<PortId> node_ports = n->portIds();
  for (PortId p : node_ports)
    if (p < kFirstLinkPort) detachPort(p, "detached (node " + name + " deleted)");
  std::vector<std::string> doomed;
  for (const auto& [lname, l] : net_.links)
    if (net_.link_ports.at(l.a).node == n || net_.link_ports.at(l.b).node == n) doomed.push_back(lname);
  for (const auto& l : doomed)
    if (auto st = deleteLink(l); !st) return st;
  // Its ports on segments go; the segments stay for the other nodes.
  std::vector<std::pair<std::string, PortId>> attached;
  for (const auto& [sname, seg] : net_.segments)
    for (PortId p : seg.ports)
      if (net_.link_ports.at(p).node == n) attached.push_back({sname, p});
  for (const auto& [sname, p] : attached) detachFromSegment(sname, p);
  if (!attached.empty()) publishLinkTables();
  // The node's table may still be read by a worker that has not switched tables yet.
  Node* raw = net_.nodes[name].release();
  net_.nodes.erase(name);
  epoch_.retire([raw] { delete raw; });
  epoch_.synchronize();
  pr_info_ratelimited("node %s deleted with %zu link(s)", name.c_str(), doomed.size());
  return {};
}

std::vector<NodeInfo> Daemon::nodes() const {
  std::vector<NodeInfo> out;
  for (const auto& [name, n] : net_.nodes) {
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

// ---- what nodes ask of the daemon ----

void Daemon::emitPortEvent(PortId port, bool up) {
  ++events_delivered_;
  if (sink_)
    sink_(FastPathEvent{up ? FastPathEvent::Kind::kPortUp : FastPathEvent::Kind::kPortDown, port,
                        {}, 0, net_.portNodeName(port), {}});
}

PortInfo Daemon::portInfo(PortId port) const {
  if (port < net_.ports.size()) {
    if (!net_.ports[port]) {
      PortInfo p;  // a detached port's id
      p.id = port;
      return p;
    }
    return net_.ports[port]->current();
  }
  auto it = net_.link_ports.find(port);
  if (it == net_.link_ports.end()) return PortInfo{};
  PortInfo p = it->second.info;
  p.up = it->second.passes();
  return p;
}

Status Daemon::applyNodeRules(Node& node, const std::vector<ControlRule>& rules) {
  for (PortId p : node.portIds())
    if (p < net_.ports.size() && net_.ports[p])
      if (auto st = net_.ports[p]->classifier->setRules(rules); !st) return st;
  bool links = false;
  for (PortId p : node.portIds()) {
    auto it = net_.link_ports.find(p);
    if (it == net_.link_ports.end()) continue;
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

Result<int> Daemon::portChannelFd(PortId port, const ControlChannelTiming& timing) {
  if (port < net_.ports.size()) {
    if (!net_.ports[port]) return makeError(-ENODEV, "no port " + std::to_string(port));
    return net_.ports[port]->channel->clientFd(timing);
  }
  auto it = net_.link_ports.find(port);
  if (it == net_.link_ports.end()) return makeError(-ENODEV, "no port " + std::to_string(port));
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
  return lp.channel->clientFd(timing);
}

void Daemon::releasePortChannel(PortId port) {
  ControlChannel* ch = nullptr;
  if (port < net_.ports.size())
    ch = net_.ports[port] ? net_.ports[port]->channel.get() : nullptr;
  else if (auto it = net_.link_ports.find(port); it != net_.link_ports.end())
    ch = it->second.channel.get();
  if (!ch) return;
  ch->detach();
  pr_info_ratelimited(
      "port %u %s: its control client is gone; frames for it are counted drops "
      "(drop_no_control_client) until a client opens the channel again",
      port, ch->ifname().c_str());
}

}  // namespace fastpath
