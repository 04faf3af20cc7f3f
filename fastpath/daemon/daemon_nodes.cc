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
    if (p < kFirstLinkPort && !ports_[p]->runtime)
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

// ---- what nodes ask of the daemon ----

std::string Daemon::portNodeName(PortId port) const {
  if (port < ports_.size()) return ports_[port] ? ports_[port]->node->name() : std::string();
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
    if (!ports_[port]) {
      PortInfo p;  // a detached port's id
      p.id = port;
      return p;
    }
    return ports_[port]->current();
  }
  auto it = link_ports_.find(port);
  if (it == link_ports_.end()) return PortInfo{};
  PortInfo p = it->second.info;
  p.up = it->second.passes();
  return p;
}

Status Daemon::applyNodeRules(Node& node, const std::vector<ControlRule>& rules) {
  for (PortId p : node.portIds())
    if (p < ports_.size() && ports_[p])
      if (auto st = ports_[p]->classifier->setRules(rules); !st) return st;
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
  if (port < ports_.size()) {
    if (!ports_[port]) return makeError(-ENODEV, "no port " + std::to_string(port));
    return ports_[port]->channel->clientFd();
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
  if (port < ports_.size())
    ch = ports_[port] ? ports_[port]->channel.get() : nullptr;
  else if (auto it = link_ports_.find(port); it != link_ports_.end())
    ch = it->second.channel.get();
  if (!ch) return;
  ch->detach();
  pr_info_ratelimited(
      "port %u %s: its control client is gone; frames for it are counted drops "
      "(drop_no_control_client) until a client opens the channel again",
      port, ch->ifname().c_str());
}

}  // namespace fastpath
