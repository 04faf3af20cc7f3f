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
  Node* node = findNode(node_name);
  if (!node) return makeError(-ENOENT, "node " + node_name + ": no such node");
  return attachPort(*node, ifname);
}

Status Daemon::mayAttachInterface(const std::string& ifname, bool root) const {
  // A port already, or no such interface: attachPort says so, as it always has.
  for (PortId p = 0; p < ports_.size(); ++p)
    if (portAttached(p) && ports_[p].ifname == ifname) return {};
  auto facts = readInterfaceFacts(ifname);
  if (!facts) {
    if (facts.error().code == -ENODEV) return {};
    return facts.error();
  }
  std::vector<std::string> owned = config_.ports;
  for (const auto& n : config_.topology.nodes)
    owned.insert(owned.end(), n.interfaces.begin(), n.interfaces.end());
  for (const auto& [name, h] : hosts_) owned.push_back(h.record.veth);
  return AttachPolicy(config_.attachable, std::move(owned))
      .check(*facts, root ? AttachRequester::kRoot : AttachRequester::kOperator);
}

Result<PortInfo> Daemon::attachPort(Node& node, const std::string& ifname) {
  const std::string what = "attaching " + ifname + " to node " + node.name();
  if (!started_) return makeError(-EAGAIN, what + ": fastpathd is not running");
  if (ifname.empty() || ifname.size() >= IFNAMSIZ)
    return makeError(-EINVAL, what + ": an interface name has 1 to 15 characters");
  for (PortId p = 0; p < ports_.size(); ++p)
    if (portAttached(p) && ports_[p].ifname == ifname)
      return makeError(-EEXIST, what + ": it is port " + std::to_string(p) + " of node " +
                                    port_node_[p]->name() + " already");
  if (node.portByName(ifname))
    return makeError(-EEXIST, what + ": the node has a port named " + ifname + " already");
  PortId id = 0;
  while (id < ports_.size() && portAttached(id)) ++id;
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
  std::unique_ptr<PortTuning> tuning;
  if (config_.tune_ports) {
    // Its own state file (the daemon's, with "~<pid>-<n>"): restored when the port goes,
    // and by the next start when fastpathd was killed.
    PortTuningOptions to;
    to.ifnames = {ifname};
    to.cpus = config_.cores;
    to.control_socket = config_.control_socket;
    auto t = PortTuning::apply(to);
    if (!t) return makeError(t.error().code, what + ": " + t.error().message);
    tuning = std::move(*t);
  }
  ClassifierOptions co;
  co.ifname = ifname;
  co.allow_generic = config_.xdp_mode != "native";
  co.no_xsk_policy = config_.no_xsk_drop ? FP_NO_XSK_DROP : FP_NO_XSK_PASS;
  auto cls = Classifier::attach(co);
  if (!cls) return makeError(cls.error().code, what + ": " + cls.error().message);
  if (auto st = (*cls)->setRules(node.controlRules()); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  info->xdp_mode = (*cls)->mode();
  auto ch = ControlChannel::create(id, ifname);
  if (!ch) return makeError(ch.error().code, what + ": " + ch.error().message);
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
    XskOptions xo;
    xo.ifname = ifname;
    xo.queue = uint32_t(attached);
    xo.rx_size = config_.ring_size;
    xo.tx_size = config_.ring_size;
    xo.mode = mode;
    xo.busy_poll = config_.busy_poll;
    xo.busy_poll_budget = config_.batch_size;
    xo.xsks_map_fd = (*cls)->xsksMapFd();
    auto s = XskSocket::create(w.umem(), xo);
    if (!s) {
      failed = s.error();
      break;
    }
    info->xsk_mode = (*s)->modeName();
    if (auto st = w.attachPort(id, std::move(*s), ch->get(), &node.fib().view()); !st) {
      failed = st;
      break;
    }
  }
  if (failed.ok() && relay_)
    failed = relay_->addChannel(ch->get(), &workers_[0]->controlTxQueue(), workers_[0]->wakeFd());
  if (!failed.ok()) {
    for (size_t w = 0; w < attached; ++w) (void)workers_[w]->detachPort(id);
    fib_ports.pop_back();
    (void)node.fib().setPorts(fib_ports);
    return makeError(failed.error().code, what + ": " + failed.error().message);
  }
  if (id == ports_.size()) {
    ports_.push_back(*info);
    port_node_.push_back(&node);
    port_gone_.push_back(false);
    classifiers_.push_back(std::move(*cls));
    channels_.push_back(std::move(*ch));
  } else {
    ports_[id] = *info;
    port_node_[id] = &node;
    port_gone_[id] = false;
    classifiers_[id] = std::move(*cls);
    channels_[id] = std::move(*ch);
  }
  node.addPort(id);
  runtime_ports_.push_back(id);
  if (tuning) {
    tuning->tune();  // its NAPI instances exist now (veth: with XDP attached)
    attached_tuning_[id] = std::move(tuning);
  }
  pr_info("port %u %s attached to node %s: classifier (%s XDP), AF_XDP %s on %zu queue(s), "
          "MAC %s, MTU %u",
          id, ifname.c_str(), node.name().c_str(), info->xdp_mode.c_str(),
          info->xsk_mode.c_str(), workers_.size(), info->mac.toString().c_str(), info->mtu);
  emitPortEvent(id, info->up);
  return portInfo(id);
}

Status Daemon::detachInterface(const std::string& node_name, const std::string& ifname) {
  for (PortId p = 0; p < ports_.size(); ++p) {
    if (!portAttached(p) || ports_[p].ifname != ifname) continue;
    if (!node_name.empty() && port_node_[p]->name() != node_name)
      return makeError(-ENOENT, "node " + node_name + " has no interface port " + ifname +
                                    " (it is node " + port_node_[p]->name() + "'s)");
    for (const auto& [name, h] : hosts_)
      if (h.info.port_id == p)
        return makeError(-EBUSY, "interface " + ifname + " is host " + name +
                                     "'s port: delete the host instead");
    if (std::find(runtime_ports_.begin(), runtime_ports_.end(), p) == runtime_ports_.end())
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
  Node& node = *port_node_[id];
  const std::string ifname = ports_[id].ifname;
  const std::string what = "port " + std::to_string(id) + " " + ifname;
  // Its final counters, before they can be reused.
  const CounterSet cs = portCounters(id, ifname);
  std::string line;
  for (const auto& [k, v] : cs.counters)
    if (v && k.rfind("punt_", 0) != 0 && k.rfind("xsk_tx_budget", 0) != 0)
      line += " " + k + "=" + std::to_string(v);
  emitPortEvent(id, false);
  removeFromNodeTable(node, id, what);
  if (id < egress_shapers_.size() && !egress_shapers_[id].empty()) {
    for (size_t w = 0; w < egress_shapers_[id].size(); ++w) {
      LinkShaper* sh = egress_shapers_[id][w];
      sh->drained.store(false, std::memory_order_relaxed);
      sh->retired.store(true, std::memory_order_release);
      retired_shapers_.push_back({uint32_t(w), sh});
    }
    egress_shapers_[id].clear();
    ports_[id].egress = LinkParams{};
    publishLinkTables();
  }
  // Settings back while the NAPI instances exist (XDP on), then XDP off: the kernel puts
  // no more frames on the sockets, whose rings the workers then empty.
  attached_tuning_.erase(id);
  classifiers_[id].reset();
  // A frame the kernel was receiving as the program went may still be on its way into the
  // socket's rings: let it land before the workers take the rings' frames back.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (auto& w : workers_)
    if (w->servesPort(id))
      if (auto st = w->detachPort(id); !st) pr_err("%s: %s", what.c_str(), st.error().message.c_str());
  if (channels_[id]) {
    if (relay_) relay_->removeChannel(channels_[id].get());
    channels_[id].reset();
  }
  port_node_[id] = nullptr;
  port_gone_[id] = false;
  runtime_ports_.erase(std::remove(runtime_ports_.begin(), runtime_ports_.end(), id),
                       runtime_ports_.end());
  ports_[id] = PortInfo{};
  ports_[id].id = id;
  pr_info("%s %s (node %s); final counters:%s", what.c_str(), why.c_str(), node.name().c_str(),
          line.empty() ? " none" : line.c_str());
}

// ---- hosts ----

void Daemon::writeHostState() {
  if (!host_state_) return;
  std::vector<HostRecord> records;
  for (const auto& [name, h] : hosts_) records.push_back(h.record);
  if (auto st = host_state_->write(records); !st)
    pr_warn("%s (the hosts are removed at stop all the same)", st.error().message.c_str());
}

Result<HostInfo> Daemon::createHost(const HostSpec& in) {
  HostSpec spec = in;
  if (auto st = validateHostName(spec.name); !st) return st.error();
  const std::string what = "host " + spec.name;
  if (hosts_.count(spec.name)) return makeError(-EEXIST, what + " exists already");
  Node* node = findNode(spec.node);
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
  hosts_[spec.name] = h;
  writeHostState();
  auto mac = makeHost(spec, h.record.veth);
  if (!mac) {
    hosts_.erase(spec.name);
    writeHostState();
    return makeError(mac.error().code, mac.error().message);
  }
  auto port = attachPort(*node, h.record.veth);
  if (!port) {
    unmakeHost(h.record);
    hosts_.erase(spec.name);
    writeHostState();
    return makeError(port.error().code, what + ": " + port.error().message);
  }
  h.info.spec = spec;
  h.info.netns = h.record.netns;
  h.info.port = h.record.veth;
  h.info.port_id = port->id;
  h.info.mac = *mac;
  hosts_[spec.name] = h;
  std::string addrs;
  for (const auto& a : spec.addresses) addrs += " " + a.toString();
  pr_info("host %s: namespace %s, eth0 %s%s, via %s = port %u of node %s", spec.name.c_str(),
          h.info.netns.c_str(), mac->toString().c_str(), addrs.c_str(), h.info.port.c_str(),
          port->id, node->name().c_str());
  return h.info;
}

void Daemon::removeHost(const std::string& name, const std::string& why) {
  auto it = hosts_.find(name);
  if (it == hosts_.end()) return;
  const Host h = it->second;
  if (portAttached(h.info.port_id) && ports_[h.info.port_id].ifname == h.record.veth)
    detachPort(h.info.port_id, "detached (host " + name + " " + why + ")");
  unmakeHost(h.record);
  hosts_.erase(it);
  writeHostState();
  pr_info("host %s %s: namespace %s and veth %s removed", name.c_str(), why.c_str(),
          h.record.netns.c_str(), h.record.veth.c_str());
}

Status Daemon::deleteHost(const std::string& name) {
  if (!hosts_.count(name)) return makeError(-ENOENT, "host " + name + ": no such host");
  removeHost(name, "deleted");
  return {};
}

std::vector<HostInfo> Daemon::hosts() const {
  std::vector<HostInfo> out;
  for (const auto& [name, h] : hosts_) out.push_back(h.info);
  return out;
}

}  // namespace fastpath
