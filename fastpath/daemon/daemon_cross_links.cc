// SPDX-License-Identifier: GPL-2.0-only
// A run over several hosts declared over the control socket: this daemon's host, the run's
// tag and its wires (Wires::declare, the same code the topology file's hosts go through),
// then the ends of cross-host links, each a port of a node on the wire to the peer host
// (Wires::addLink) with the link's emulation at its egress (the wire's latency taken off).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"

namespace fastpath {

namespace {

bool sameDeclaration(const Wires& w, const MultiHostDeclaration& d) {
  auto have = w.wireInfo();
  if (w.host() != d.host || w.runTag() != d.run_tag || have.size() != d.wires.size()) return false;
  for (const auto& [peer, ifname] : d.wires) {
    auto v = d.vxlan.find(ifname);
    const std::optional<WireVxlan> vxlan =
        v == d.vxlan.end() ? std::nullopt : std::optional<WireVxlan>(v->second);
    if (std::none_of(have.begin(), have.end(), [&](const MultiHostWireInfo& i) {
          return i.peer_host == peer && i.ifname == ifname && i.vxlan == vxlan;
        }))
      return false;
  }
  return true;
}

}  // namespace

Result<MultiHostInfo> Daemon::declareMultiHost(const MultiHostDeclaration& d) {
  const std::string what = "host " + d.host;
  if (!config_.cross_links.empty())
    return makeError(-EBUSY, what + ": this fastpathd runs host " + config_.host_name +
                                 " of its topology file (--host-name); a run over the control "
                                 "socket needs a fastpathd without a topology's hosts");
  if (wires_ && !wires_->host().empty()) {
    if (sameDeclaration(*wires_, d)) return multiHost();
    if (!wires_->links().empty())
      return makeError(-EBUSY, what + ": host " + wires_->host() + " (run tag " +
                                   wires_->runTag() + ") has " +
                                   std::to_string(wires_->links().size()) +
                                   " cross-host link(s); delete them first (fpctl multihost "
                                   "link delete NAME, or end the run that made them)");
  }
  if (d.wires.empty())
    return makeError(-EINVAL, what + ": no wire; give at least one (peer host and interface)");
  if (geteuid() != 0)
    return makeError(-EPERM, what + ": fastpathd must run as root for links between hosts (it "
                                    "makes veth pairs and attaches XDP programs)");
  if (auto st = checkBpffs(config_.mount_bpffs); !st) return st.error();
  WiresOptions o;
  o.host = d.host;
  o.run_tag = d.run_tag.empty() ? kDefaultRunTag : d.run_tag;
  o.xdp_mode = config_.xdp_mode;
  o.wait_ms = d.wait_ms ? d.wait_ms : config_.wire_wait_ms;
  o.wires = d.wires;
  for (const auto& [ifname, v] : d.vxlan) {
    if (std::none_of(d.wires.begin(), d.wires.end(),
                     [&](const auto& w) { return w.second == ifname; }))
      return makeError(-EINVAL, what + ": VXLAN for " + ifname + ", which is none of its wires");
    WireEncap& e = o.encap[ifname];
    e.kind = WireEncap::kVxlan;
    e.underlay = v.underlay;
    e.peer_underlay = v.peer_underlay;
    e.port = v.port;
  }
  wires_.reset();  // an earlier declaration without links: its tag and wires released
  auto w = Wires::declare(o);
  if (!w) return makeError(w.error().code, what + ": " + w.error().message);
  wires_ = std::move(*w);
  pr_info("host %s (run tag %s): %zu wire(s) declared over the control socket", d.host.c_str(),
          o.run_tag.c_str(), d.wires.size());
  return multiHost();
}

Result<CrossLinkInfo> Daemon::createCrossLink(const CrossLinkSpec& spec) {
  const std::string what = "cross-host link " + spec.name;
  if (!wires_ || wires_->host().empty())
    return makeError(-ENOENT, what + ": no run over several hosts is declared on this fastpathd "
                                     "(declare this host and its wires first: fpctl multihost "
                                     "declare)");
  if (!config_.cross_links.empty())
    return makeError(-EBUSY, what + ": this fastpathd runs its topology file's hosts");
  Node* node = net_.findNode(spec.node);
  if (!node) return makeError(-ENOENT, what + ": no node " + spec.node);
  if (auto st = validateLinkParams(spec.egress); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  auto made = wires_->addLink(CrossHostLink(spec));
  if (!made) return made.error();
  auto port = attachPort(*node, made->device);
  if (!port) {
    (void)wires_->removeLink(spec.name);
    return makeError(port.error().code, what + ": " + port.error().message);
  }
  if (auto st = applyPortParams(port->id, wires_->egressOf(*made)); !st) {
    detachPort(port->id, "detached (" + what + " refused)");
    (void)wires_->removeLink(spec.name);
    return makeError(st.error().code, what + ": " + st.error().message);
  }
  pr_info("%s: node %s port %s (%u), %s %u on wire %s to host %s, egress %s", what.c_str(),
          spec.node.c_str(), made->device.c_str(), port->id,
          made->encap.kind == WireEncap::kVxlan ? "VNI" : "VLAN", made->vlan, made->wire.c_str(),
          made->peer_host.c_str(), formatLinkParams(wires_->egressOf(*made)).c_str());
  for (const auto& l : multiHost().links)
    if (l.spec.name == spec.name) return l;
  return makeError(-EIO, what + ": made but not found");
}

Status Daemon::deleteCrossLink(const std::string& name) {
  if (!wires_) return makeError(-ENOENT, "cross-host link " + name + ": no such link");
  auto it = std::find_if(wires_->links().begin(), wires_->links().end(),
                         [&](const CrossHostLink& l) { return l.name == name; });
  if (it == wires_->links().end())
    return makeError(-ENOENT, "cross-host link " + name + ": no such link");
  if (!config_.cross_links.empty())
    return makeError(-EBUSY, "cross-host link " + name +
                                 ": made by the topology file; it stays until fastpathd stops");
  const std::string device = it->device;
  for (PortId p = 0; p < net_.ports.size(); ++p)
    if (net_.portAttached(p) && net_.ports[p]->info.ifname == device)
      detachPort(p, "detached (cross-host link " + name + " deleted)");
  return wires_->removeLink(name);
}

void Daemon::removeCrossLinksOf(const std::string& node) {
  if (!wires_ || !config_.cross_links.empty()) return;
  std::vector<std::string> doomed;
  for (const auto& l : wires_->links())
    if (l.node == node) doomed.push_back(l.name);
  for (const auto& l : doomed) (void)deleteCrossLink(l);
}

Result<PortId> Daemon::crossLinkPort(const CrossHostLink& x) const {
  for (PortId p = 0; p < net_.ports.size(); ++p)
    if (net_.portAttached(p) && net_.ports[p]->info.ifname == x.device) return p;
  return makeError(-ENODEV, "its port " + x.device + " is not attached");
}

Status Daemon::setCrossLinkParams(const std::string& name, LinkDirection direction,
                                  const LinkParams& params) {
  const CrossHostLink* x = wires_->findLink(name);
  const std::string what = "cross-host link " + name;
  // Each host emulates the direction it sends: end a's host a to b, end b's host b to a.
  const LinkDirection mine = x->end == 'a' ? LinkDirection::kAToB : LinkDirection::kBToA;
  if (direction != LinkDirection::kBoth && direction != mine)
    return makeError(-EINVAL, what + ": direction " +
                                  (direction == LinkDirection::kAToB ? "a to b" : "b to a") +
                                  " is emulated by host " + x->peer_host +
                                  "'s fastpathd (the sender's); set it there (this host, end " +
                                  std::string(1, x->end) + ", sends " +
                                  (mine == LinkDirection::kAToB ? "a to b" : "b to a") + ")");
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, what + ": " + st.error().message +
                                          "; the link keeps its parameters");
  auto changed = wires_->setEgress(name, params);
  if (!changed) return changed.error();
  auto port = crossLinkPort(*changed);
  if (!port) return makeError(port.error().code, what + ": " + port.error().message);
  if (auto st = applyPortParams(*port, wires_->egressOf(*changed)); !st)
    return makeError(st.error().code, what + ": " + st.error().message);
  pr_info_ratelimited("%s: egress %s (configured %s)", what.c_str(),
                      formatLinkParams(wires_->egressOf(*changed)).c_str(),
                      formatLinkParams(params).c_str());
  return {};
}

Status Daemon::setCrossLinkState(const std::string& name, bool up) {
  const CrossHostLink* x = wires_->findLink(name);
  const std::string what = "cross-host link " + name;
  auto found = crossLinkPort(*x);
  if (!found) return makeError(found.error().code, what + ": " + found.error().message);
  const PortId port = *found;
  InterfacePort& p = *net_.ports[port];
  if (p.info.up == up) return {};
  if (auto st = wires_->setUp(name, up); !st) return st;
  // As checkLinks() would see it a moment later, at once: the node's routes through the port
  // become counted drops and its clients get the port's event.
  p.info.up = up;
  if (auto st = p.node->setPortUp(port, up); !st)
    pr_warn("%s: node %s: %s", what.c_str(), p.node->name().c_str(), st.error().message.c_str());
  emitPortEvent(port, up);
  pr_info_ratelimited("%s: port %s is %s", what.c_str(), x->device.c_str(), up ? "up" : "down");
  return {};
}

MultiHostInfo Daemon::multiHost() const {
  MultiHostInfo out;
  if (!wires_ || wires_->host().empty()) return out;
  out.host = wires_->host();
  out.run_tag = wires_->runTag();
  out.wires = wires_->wireInfo();
  const ClockOffset& clock = wires_->clock();
  out.clock_known = clock.known;
  out.clock_offset_ns = int64_t(clock.offset_s * 1e9);
  out.clock_source = clock.source;
  for (const auto& x : wires_->links()) {
    CrossLinkInfo i;
    i.spec = static_cast<const CrossLinkSpec&>(x);  // the spec as completed (MACs filled in)
    i.port = x.device;
    i.wire = x.wire;
    i.applied = wires_->egressOf(x);
    i.from_topology = !config_.cross_links.empty();
    for (PortId p = 0; p < net_.ports.size(); ++p)
      if (net_.portAttached(p) && net_.ports[p]->info.ifname == x.device) {
        i.port_id = p;
        i.up = net_.ports[p]->info.up;
      }
    out.links.push_back(std::move(i));
  }
  return out;
}

}  // namespace fastpath
