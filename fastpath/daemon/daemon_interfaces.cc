// SPDX-License-Identifier: GPL-2.0-only
// Interface ports added to and taken from a running daemon, and the hosts (a namespace
// and a veth pair whose outer end becomes an interface port) made on request.
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "daemon/attach_policy.h"
#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "daemon/port_tuning.h"
#include "fastpath/host_rules.h"
#include "fastpath/log.h"

namespace fastpath {

// ---- interface ports ----

Result<PortInfo> Daemon::attachInterface(const std::string& node_name, const std::string& ifname) {
  Node* node = net_.findNode(node_name);
  if (!node) return makeError(-ENOENT, "node " + node_name + ": no such node");
  return attachPort(*node, ifname);
}

Status Daemon::mayAttachInterface(const std::string& ifname, bool root) const {
  // A port already, or no such interface: attachPort says so, as it always has.
  for (PortId p = 0; p < net_.ports.size(); ++p)
    if (net_.portAttached(p) && net_.ports[p]->info.ifname == ifname) return {};
  auto facts = readInterfaceFacts(ifname);
  if (!facts) {
    if (facts.error().code == -ENODEV) return {};
    return facts.error();
  }
  // A wire, or a cross-host link's port, belongs to the run over several hosts.
  if (wires_) {
    for (const auto& w : wires_->wireInfo())
      if (w.ifname == ifname)
        return makeError(-EBUSY, "interface " + ifname + " is the wire to host " + w.peer_host +
                                     " of this fastpathd's run over several hosts");
    for (const auto& dev : wires_->devices())
      if (dev == ifname)
        return makeError(-EBUSY, "interface " + ifname + " is a cross-host link's port");
  }
  std::vector<std::string> owned = config_.ports;
  for (const auto& n : config_.topology.nodes)
    owned.insert(owned.end(), n.interfaces.begin(), n.interfaces.end());
  for (const auto& [name, h] : net_.hosts) owned.push_back(h.record.veth);
  return AttachPolicy(config_.attachable, std::move(owned))
      .check(*facts, root ? AttachRequester::kRoot : AttachRequester::kOperator);
}

Result<PortInfo> Daemon::attachPort(Node& node, const std::string& ifname) {
  const std::string what = "attaching " + ifname + " to node " + node.name();
  if (!started_) return makeError(-EAGAIN, what + ": fastpathd is not running");
  if (ifname.empty() || ifname.size() >= IFNAMSIZ)
    return makeError(-EINVAL, what + ": an interface name has 1 to 15 characters");
  for (PortId p = 0; p < net_.ports.size(); ++p)
    if (net_.portAttached(p) && net_.ports[p]->info.ifname == ifname)
      return makeError(-EEXIST, what + ": it is port " + std::to_string(p) + " of node " +
                                    net_.ports[p]->node->name() + " already");
  if (node.portByName(ifname))
    return makeError(-EEXIST, what + ": the node has a port named " + ifname + " already");
  PortId id = 0;
  while (id < net_.ports.size() && net_.portAttached(id)) ++id;
  if (id >= kMaxInterfacePorts)
    return makeError(-ENOSPC, what + ": fastpathd serves at most " +
                                  std::to_string(kMaxInterfacePorts) + " interface ports");
  auto info = readPortInfo(ifname, id);
  if (!info) return makeError(info.error().code, what + ": " + info.error().message);
  if (info->queues < config_.queues)
    return makeError(-EINVAL, what + ": it has " + std::to_string(info->queues) +
                                  " queue(s), fastpathd serves " +
                                  std::to_string(config_.queues) + " (add channels: ethtool -L)");
  info->queues = config_.queues;
  info->node = node.name();
  auto port = std::make_unique<InterfacePort>();
  port->info = *info;
  port->node = &node;
  port->runtime = true;
  if (config_.tune_ports) {
    // Its own state file (the daemon's, with "~<pid>-<n>"): restored when the port goes,
    // and by the next start when fastpathd was killed.
    PortTuningOptions to;
    to.ifnames = {ifname};
    to.cpus = config_.cores;
    to.napi_priority = config_.napiRtPriority();
    to.control_socket = config_.control_socket;
    auto t = PortTuning::apply(to);
    if (!t) return makeError(t.error().code, what + ": " + t.error().message);
    port->tuning = std::move(*t);
  }
  if (auto st = openInterfacePort(*port); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  std::vector<PortConfig> fib_ports = node.fib().ports();
  fib_ports.push_back(PortConfig{id, info->mac, info->mtu, info->up});
  if (auto st = node.fib().setPorts(fib_ports); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  // The sockets, one per worker on its UMEM; the workers fill their fill rings from their
  // pools on their next pass.
  XskMode mode = xsk_mode_;
  if (mode == XskMode::kAuto) mode = xskZeroCopySupported(ifname, 0) ? XskMode::kZeroCopy
                                                                      : XskMode::kCopy;
  size_t attached = 0;
  Status failed;
  for (; attached < workers_.size(); ++attached) {
    Worker& w = *workers_[attached];
    auto s = XskSocket::create(w.umem(),
                               xskOptions(ifname, uint32_t(attached), mode, *port->classifier));
    if (!s) {
      failed = s.error();
      break;
    }
    port->info.xsk_mode = (*s)->modeName();
    if (auto st = w.attachPort(id, std::move(*s), port->channel.get(), &node.fib().view()); !st) {
      failed = st;
      break;
    }
  }
  if (failed.ok() && relay_)
    failed = relay_->addChannel(port->channel.get(), &workers_[0]->controlTxQueue(),
                                workers_[0]->wakeFd());
  if (!failed.ok()) {
    for (size_t w = 0; w < attached; ++w) (void)workers_[w]->detachPort(id);
    fib_ports.pop_back();
    (void)node.fib().setPorts(fib_ports);
    return makeError(failed.error().code, what + ": " + failed.error().message);
  }
  if (id == net_.ports.size()) net_.ports.emplace_back();
  net_.ports[id] = std::move(port);
  InterfacePort& p = *net_.ports[id];
  node.addPort(id);
  if (p.tuning) p.tuning->tune();  // its NAPI instances exist now (veth: with XDP attached)
  pr_info("port %u %s attached to node %s: classifier (%s XDP), AF_XDP %s on %zu queue(s), "
          "MAC %s, MTU %u",
          id, ifname.c_str(), node.name().c_str(), p.info.xdp_mode.c_str(),
          p.info.xsk_mode.c_str(), workers_.size(), p.info.mac.toString().c_str(), p.info.mtu);
  emitPortEvent(id, p.info.up);
  return portInfo(id);
}

Status Daemon::detachInterface(const std::string& node_name, const std::string& ifname) {
  for (PortId p = 0; p < net_.ports.size(); ++p) {
    if (!net_.portAttached(p) || net_.ports[p]->info.ifname != ifname) continue;
    if (!node_name.empty() && net_.ports[p]->node->name() != node_name)
      return makeError(-ENOENT, "node " + node_name + " has no interface port " + ifname +
                                    " (it is node " + net_.ports[p]->node->name() + "'s)");
    for (const auto& [name, h] : net_.hosts)
      if (h.info.port_id == p)
        return makeError(-EBUSY, "interface " + ifname + " is host " + name +
                                     "'s port: delete the host instead");
    if (wires_)
      for (const auto& x : wires_->links())
        if (x.device == ifname)
          return makeError(-EBUSY, "interface " + ifname + " is cross-host link " + x.name +
                                       "'s port: delete the link instead (fpctl multihost link "
                                       "del " + x.name + ")");
    if (!net_.ports[p]->runtime)
      return makeError(-EBUSY, "interface " + ifname +
                                   " is a port from fastpathd's start (--port, topology); "
                                   "those stay until fastpathd stops");
    detachPort(p, "detached");
    return {};
  }
  return makeError(-ENOENT, "interface " + ifname + " is no interface port of fastpathd");
}

void Daemon::removeFromNodeTable(Node& node, PortId id, const std::string& what) {
  RouteBatch batch;
  batch.ignore_missing = true;
  for (const auto& r : node.fib().routes())
    if (r.port == id) batch.remove.push_back(r.prefix);
  if (!batch.remove.empty())
    if (auto st = node.fib().applyRoutes(batch); !st)
      pr_warn("%s: removing node %s's routes through it: %s", what.c_str(), node.name().c_str(),
              st.error().message.c_str());
  for (const auto& n : node.fib().neighbours())
    if (n.port == id) (void)node.fib().deleteNeighbour(n.ip, id);
  std::vector<PortConfig> ports = node.fib().ports();
  ports.erase(std::remove_if(ports.begin(), ports.end(),
                             [id](const PortConfig& p) { return p.id == id; }),
              ports.end());
  if (auto st = node.fib().setPorts(ports); !st)
    pr_warn("%s: node %s: %s", what.c_str(), node.name().c_str(), st.error().message.c_str());
  node.removePort(id);
}

void Daemon::detachPort(PortId id, const std::string& why) {
  InterfacePort& port = *net_.ports[id];
  Node& node = *port.node;
  const std::string ifname = port.info.ifname;
  const std::string what = "port " + std::to_string(id) + " " + ifname;
  // Its final counters, before they can be reused.
  const CounterSet cs = portCounters(id, ifname);
  std::string line;
  for (const auto& [k, v] : cs.counters)
    if (v && k.rfind("punt_", 0) != 0 && k.rfind("xsk_tx_budget", 0) != 0)
      line += " " + k + "=" + std::to_string(v);
  emitPortEvent(id, false);
  removeFromNodeTable(node, id, what);
  if (!port.egress.empty()) {
    resources_.retireShapers(port.egress);
    port.info.egress = LinkParams{};
    publishLinkTables();
  }
  // Settings back while the NAPI instances exist (XDP on), then XDP off: the kernel puts
  // no more frames on the sockets, whose rings the workers then empty.
  port.tuning.reset();
  port.classifier.reset();
  // A frame the kernel was receiving as the program went may still be on its way into the
  // socket's rings: let it land before the workers take the rings' frames back.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (auto& w : workers_)
    if (w->servesPort(id))
      if (auto st = w->detachPort(id); !st) pr_err("%s: %s", what.c_str(), st.error().message.c_str());
  if (port.channel && relay_) relay_->removeChannel(port.channel.get());
  net_.ports[id].reset();  // the channel closes; the id is free
  pr_info("%s %s (node %s); final counters:%s", what.c_str(), why.c_str(), node.name().c_str(),
          line.empty() ? " none" : line.c_str());
}

// ---- hosts ----

void Daemon::writeHostState() {
  if (!host_state_) return;
  std::vector<HostRecord> records;
  for (const auto& [name, h] : net_.hosts) records.push_back(h.record);
  if (auto st = host_state_->write(records); !st)
    pr_warn("%s (the hosts are removed at stop all the same)", st.error().message.c_str());
}

Result<HostInfo> Daemon::createHost(const HostSpec& in) {
  HostSpec spec = in;
  if (auto st = validateHostName(spec.name); !st) return st.error();
  const std::string what = "host " + spec.name;
  if (net_.hosts.count(spec.name)) return makeError(-EEXIST, what + " exists already");
  Node* node = net_.findNode(spec.node);
  if (!node) return makeError(-ENOENT, what + ": no node " + spec.node);
  if (spec.mtu == 0) spec.mtu = 1500;
  const uint32_t max_mtu = config_.frame_size - 256 - 14;
  if (spec.mtu < 68 || spec.mtu > max_mtu)
    return makeError(-EINVAL, what + ": MTU " + std::to_string(spec.mtu) + " outside 68.." +
                                  std::to_string(max_mtu) + " (the frame size bounds it)");
  int gw4 = 0, gw6 = 0;
  for (const auto& g : spec.gateways) {
    if (g.isUnspecified()) return makeError(-EINVAL, what + ": a gateway is unspecified");
    (g.family == Family::kIpv4 ? gw4 : gw6)++;
  }
  if (gw4 > 1 || gw6 > 1)
    return makeError(-EINVAL, what + ": at most one IPv4 and one IPv6 gateway");
  for (const auto& a : spec.addresses)
    if (a.length > (a.address.family == Family::kIpv4 ? 32 : 128) || a.address.isUnspecified())
      return makeError(-EINVAL, what + ": address " + a.toString() + " is not valid");
  if (auto st = checkHostAddresses(spec, hosts(), node->controlRules()); !st)
    return makeError(st.error().code, what + ": address " + st.error().message);
  Host h;
  h.record = HostRecord{spec.name, "fp-" + spec.name, hostVethName(spec.name)};
  // Recorded before anything exists: a fastpathd killed in the middle leaves nothing the
  // next start does not remove.
  net_.hosts[spec.name] = h;
  writeHostState();
  auto mac = makeHost(spec, h.record.veth);
  if (!mac) {
    net_.hosts.erase(spec.name);
    writeHostState();
    return makeError(mac.error().code, mac.error().message);
  }
  auto port = attachPort(*node, h.record.veth);
  if (!port) {
    unmakeHost(h.record);
    net_.hosts.erase(spec.name);
    writeHostState();
    return makeError(port.error().code, what + ": " + port.error().message);
  }
  h.info.spec = spec;
  h.info.netns = h.record.netns;
  h.info.port = h.record.veth;
  h.info.port_id = port->id;
  h.info.mac = *mac;
  net_.hosts[spec.name] = h;
  std::string addrs;
  for (const auto& a : spec.addresses) addrs += " " + a.toString();
  pr_info("host %s: namespace %s, eth0 %s%s, via %s = port %u of node %s", spec.name.c_str(),
          h.info.netns.c_str(), mac->toString().c_str(), addrs.c_str(), h.info.port.c_str(),
          port->id, node->name().c_str());
  return h.info;
}

void Daemon::removeHost(const std::string& name, const std::string& why) {
  auto it = net_.hosts.find(name);
  if (it == net_.hosts.end()) return;
  const Host h = it->second;
  if (net_.portAttached(h.info.port_id) && net_.ports[h.info.port_id]->info.ifname == h.record.veth)
    detachPort(h.info.port_id, "detached (host " + name + " " + why + ")");
  unmakeHost(h.record);
  net_.hosts.erase(it);
  writeHostState();
  pr_info("host %s %s: namespace %s and veth %s removed", name.c_str(), why.c_str(),
          h.record.netns.c_str(), h.record.veth.c_str());
}

Status Daemon::deleteHost(const std::string& name) {
  if (!net_.hosts.count(name)) return makeError(-ENOENT, "host " + name + ": no such host");
  removeHost(name, "deleted");
  return {};
}

std::vector<HostInfo> Daemon::hosts() const {
  std::vector<HostInfo> out;
  for (const auto& [name, h] : net_.hosts) out.push_back(h.info);
  return out;
}

}  // namespace fastpath
