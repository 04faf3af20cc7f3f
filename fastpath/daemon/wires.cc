// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/wires.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>

#include "daemon/rtnetlink.h"
#include "daemon/underlay.h"
#include "fastpath/link_params.h"
#include "fastpath/log.h"
#include "fastpath/names.h"

namespace fastpath {
namespace {

std::string micros(uint64_t ns) { return std::to_string((ns + 500) / 1000) + "us"; }

Status checkName(const std::string& name, const std::string& what) {
  if (!validName(name)) return makeError(-EINVAL, nameRule(what, name));
  return {};
}

Result<uint32_t> interfaceMtu(const std::string& ifname) {
  Fd s{socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  if (s.fd < 0 || ioctl(s.fd, SIOCGIFMTU, &ifr) != 0)
    return makeError(-ENODEV, "wire " + ifname +
                                  ": no such interface in this network namespace: create it or "
                                  "correct the host's 'wires:'");
  return uint32_t(ifr.ifr_mtu);
}

}  // namespace

Status checkCrossLinks(const std::vector<CrossHostLink>& links,
                       const std::map<std::string, uint32_t>& wire_mtu,
                       const std::map<std::string, WireLatency>& wire_latency) {
  std::string problems;
  auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "\n") + p; };
  for (const auto& x : links) {
    const bool vxlan = x.encap.kind == WireEncap::kVxlan;
    const std::string what = "link " + x.name + " (" +
                             (x.line ? "line " + std::to_string(x.line) + ", " : "") +
                             (vxlan ? "VNI " : "VLAN ") + std::to_string(x.vlan) + " on wire " +
                             x.wire + " to host " + x.peer_host + ")";
    if (auto m = wire_mtu.find(x.wire);
        m != wire_mtu.end() && !vxlan && x.mtu > m->second)
      add(what + ": mtu " + std::to_string(x.mtu) + " is more than the wire carries (" +
          std::to_string(m->second) + "; 802.1Q adds " + std::to_string(kVlanOverhead) +
          " bytes a frame, which an Ethernet wire's 1522-byte frames allow): lower the "
          "link's mtu or raise the wire's");
    if (auto m = wire_mtu.find(x.wire);
        m != wire_mtu.end() && vxlan && x.mtu + kVxlanOverhead > m->second)
      add(what + ": mtu " + std::to_string(x.mtu) + " + " + std::to_string(kVxlanOverhead) +
          " bytes of VXLAN (outer Ethernet, IPv4, UDP, VXLAN headers) = " +
          std::to_string(x.mtu + kVxlanOverhead) + " is more than the wire's mtu " +
          std::to_string(m->second) + " (the underlay must not fragment it): give the link an "
          "mtu of at most " + std::to_string(m->second > kVxlanOverhead ? m->second - kVxlanOverhead : 0) +
          " or raise the wire's mtu (and the underlay's) to " +
          std::to_string(x.mtu + kVxlanOverhead));
    if (auto l = wire_latency.find(x.wire);
        l != wire_latency.end() && x.egress.delay_ns < l->second.one_way_ns)
      add(what + ": delay " + micros(x.egress.delay_ns) +
          " is below the wire's one-way latency " + micros(l->second.one_way_ns) +
          " (measured, jitter " + micros(l->second.jitter_ns) +
          "): give the link at least that delay or put both ends on one host");
  }
  if (problems.empty()) return {};
  return makeError(-EINVAL, problems);
}

LinkParams senderParams(const CrossHostLink& link, const WireLatency& wire) {
  LinkParams p = link.egress;
  p.delay_ns = p.delay_ns > wire.one_way_ns ? p.delay_ns - wire.one_way_ns : 0;
  return p;
}

Result<std::unique_ptr<Wires>> Wires::open(const Config& config) {
  if (config.cross_links.empty()) return std::unique_ptr<Wires>(new Wires());
  WiresOptions o;
  o.host = config.host_name;
  o.run_tag = config.run_tag;
  o.xdp_mode = config.xdp_mode;
  o.wait_ms = config.wire_wait_ms;
  for (const auto& x : config.cross_links) {
    std::pair<std::string, std::string> w{x.peer_host, x.wire};
    if (std::find(o.wires.begin(), o.wires.end(), w) == o.wires.end()) o.wires.push_back(w);
    if (x.encap.kind == WireEncap::kVxlan) o.encap[x.wire] = x.encap;
  }
  // What needs no change first: the wires exist and carry the links' MTUs.
  std::map<std::string, uint32_t> mtu;
  for (const auto& [peer, ifname] : o.wires) {
    auto m = interfaceMtu(ifname);
    if (!m) return m.error();
    mtu[ifname] = *m;
  }
  if (auto st = checkCrossLinks(config.cross_links, mtu, {}); !st) return st.error();
  auto w = declare(o);
  if (!w) return w.error();
  for (const auto& x : config.cross_links)
    if (auto made = (*w)->addLink(x); !made) return made.error();
  return w;
}

Result<std::unique_ptr<Wires>> Wires::declare(const WiresOptions& options) {
  std::unique_ptr<Wires> w(new Wires());
  w->options_ = options;
  if (auto st = validateRunTag(options.run_tag); !st) return st.error();
  if (auto st = checkName(options.host, "host"); !st) return st.error();
  for (const auto& [peer, ifname] : options.wires) {
    if (auto st = checkName(peer, "peer host"); !st) return st.error();
    if (peer == options.host)
      return makeError(-EINVAL, "wire " + ifname + ": its peer is this host (" + peer +
                                    "): a wire joins two different hosts");
    if (w->wireTo(peer))
      return makeError(-EINVAL, "host " + peer + ": two wires to it; one wire per peer host");
    if (w->wires_.count(ifname))
      return makeError(-EINVAL, "wire " + ifname + ": given for two peer hosts; one each");
    auto m = interfaceMtu(ifname);
    if (!m) return m.error();
    Wire& wire = w->wires_[ifname];
    wire.ifname = ifname;
    wire.peer = peer;
    wire.mtu = *m;
    if (auto e = options.encap.find(ifname); e != options.encap.end()) {
      wire.encap = e->second;
      auto mac = interfaceMacOf(ifname);
      if (!mac) return mac.error();
      wire.mac = *mac;
    }
  }
  w->clock_ = readClockOffset();
  pr_info("host %s: clock offset %s", options.host.c_str(), w->clock_.text().c_str());
  auto tag = RunTag::take(options.run_tag);
  if (!tag) return tag.error();
  w->tag_ = std::move(*tag);
  Fd nl{rtnlOpen()};
  if (nl.fd < 0) return makeError(nl.fd, "wires: cannot open rtnetlink");
  for (auto& [ifname, wire] : w->wires_) {
    if (int err = linkUp(nl.fd, int(if_nametoindex(ifname.c_str())), 0); err)
      return makeError(err, "wire " + ifname + ": cannot set it up (" + strerror(-err) + ")");
    const bool vxlan = wire.encap.kind == WireEncap::kVxlan;
    ClassifierOptions o;
    o.ifname = ifname;
    o.wire = FP_WIRE_PORT;
    o.allow_generic = options.xdp_mode != "native";
    if (vxlan) {
      o.encap = FP_ENCAP_VXLAN;
      o.underlay_addr = wire.encap.underlay.v4NetworkOrder();
      o.vxlan_port = wire.encap.port;
    }
    auto c = Classifier::attach(o);
    if (!c) return makeError(c.error().code, "wire " + ifname + ": " + c.error().message);
    wire.classifier = std::move(*c);
    // A routed wire's probes travel in UDP, beside VXLAN: to its port + 1.
    const UdpProbe udp{wire.encap.underlay.v4NetworkOrder(), wire.encap.peer_underlay.v4NetworkOrder(),
                       uint16_t(wire.encap.port + 1)};
    auto p = WireProbe::open(ifname, options.run_tag, options.host, wire.peer, vxlan ? &udp : nullptr);
    if (!p) return p.error();
    wire.probe = std::move(*p);
  }
  if (!options.encap.empty()) {
    // Subscribed before the next hops are read: a change in between is not missed.
    auto watch = UnderlayWatch::open();
    if (!watch) return watch.error();
    w->watch_ = std::move(*watch);
  }
  // Each wire measured once both daemons answer.
  for (auto& [ifname, wire] : w->wires_) {
    auto l = wire.probe->measure(options.wait_ms ? options.wait_ms : 10000);
    if (!l) return l.error();
    wire.latency = *l;
    pr_info("wire %s to host %s: one-way latency %s (min %s, jitter %s, %zu probes)",
            ifname.c_str(), wire.peer.c_str(), micros(l->one_way_ns).c_str(),
            micros(l->min_ns).c_str(), micros(l->jitter_ns).c_str(), l->samples);
    if (wire.encap.kind != WireEncap::kVxlan) continue;
    // The probes made the kernel resolve the next hop: the links' outer Ethernet header.
    auto hop = underlayNextHop(ifname, wire.encap.peer_underlay);
    if (!hop) return hop.error();
    wire.next_hop = hop->mac;
    pr_info("wire %s to host %s: VXLAN %s -> %s port %u, next hop %s (%s)", ifname.c_str(),
            wire.peer.c_str(), wire.encap.underlay.toString().c_str(),
            wire.encap.peer_underlay.toString().c_str(), unsigned(wire.encap.port),
            hop->next_hop.toString().c_str(), hop->mac.toString().c_str());
  }
  return w;
}

namespace {

/// `kept` with `key` set to `value` (erased without one), handed to the classifier by `set`
/// and kept only once the classifier took it: on error the wire carries what it did.
template <typename Map, typename Set>
Status updateWireMap(Map& kept, typename Map::key_type key,
                     const std::optional<typename Map::mapped_type>& value, Set set) {
  Map next = kept;
  if (value)
    next[key] = *value;
  else
    next.erase(key);
  if (auto st = set(next); !st) return st;
  kept = std::move(next);
  return {};
}

}  // namespace

Status Wires::Wire::setLinkEntry(uint32_t id, const std::optional<WireEntry>& e) {
  if (encap.kind == WireEncap::kVxlan) {
    std::optional<Classifier::WireVni> v;
    if (e) v = Classifier::WireVni{e->peer_addr, e->ifindex};
    return updateWireMap(vnis, id, v, [&](const auto& m) { return classifier->setWireVnis(m); });
  }
  std::optional<Classifier::WireTag> t;
  if (e) t = Classifier::WireTag{e->peer_mac, e->ifindex};
  return updateWireMap(tags, uint16_t(id), t,
                       [&](const auto& m) { return classifier->setWireTags(m); });
}

Wires::Wire* Wires::wireTo(const std::string& peer) {
  for (auto& [ifname, wire] : wires_)
    if (wire.peer == peer) return &wire;
  return nullptr;
}

Result<CrossHostLink> Wires::addLink(CrossHostLink x) {
  const std::string what = "link " + x.name;
  if (auto st = checkName(x.name, "link"); !st) return st.error();
  Wire* wire = wireTo(x.peer_host);
  if (!wire) {
    std::string known;
    for (const auto& [ifname, w] : wires_) known += (known.empty() ? "" : ", ") + w.peer;
    return makeError(-ENOENT, what + ": no wire to host " + x.peer_host + " (host " +
                                  options_.host + " has wires to: " +
                                  (known.empty() ? "none" : known) +
                                  "): declare one, or place both ends on hosts joined by a "
                                  "wire");
  }
  x.encap = wire->encap;
  const bool vxlan = wire->encap.kind == WireEncap::kVxlan;
  const std::string tag = vxlan ? "VNI " : "VLAN ";
  if (x.vlan < 1 + !vxlan || x.vlan > 4094)
    return makeError(-EINVAL, what + ": " + tag + std::to_string(x.vlan) +
                                  (vxlan ? " outside 1..4094 (a VNI names the link's "
                                           "interfaces as a VLAN id does)"
                                         : " outside 2..4094 (802.1Q; 0 and 1 are not a link's)"));
  if (x.end != 'a' && x.end != 'b') return makeError(-EINVAL, what + ": end must be a or b");
  for (const auto& l : links_) {
    if (l.name == x.name) return makeError(-EEXIST, what + " exists already");
    if (l.wire == wire->ifname && l.vlan == x.vlan)
      return makeError(-EEXIST, what + ": " + tag + std::to_string(x.vlan) + " on wire " +
                                    wire->ifname + " is link " + l.name + "'s: one " + tag +
                                    "per link");
  }
  x.wire = wire->ifname;
  if (x.device.empty()) x.device = wireDeviceName(options_.run_tag, x.vlan);
  if (x.mac == MacAddress{}) x.mac = crossLinkMac(x.name, x.end);
  if (x.peer_mac == MacAddress{}) x.peer_mac = crossLinkMac(x.name, x.end == 'a' ? 'b' : 'a');
  if (x.mtu == 0) x.mtu = 1500;
  if (auto st = checkCrossLinks({x}, {{wire->ifname, wire->mtu}}, {{wire->ifname, wire->latency}});
      !st)
    return st.error();
  Fd nl{rtnlOpen()};
  if (nl.fd < 0) return makeError(nl.fd, "wires: cannot open rtnetlink");
  const std::string alias = runTagAlias(options_.run_tag);
  const std::string wend = wireLinkEndName(options_.run_tag, x.vlan);
  bool made = false;
  auto fail = [&](const std::string& step, int err) -> Error {
    link_ends_.erase(x.name);
    if (made)
      if (const int idx = int(if_nametoindex(x.device.c_str())); idx) deleteLink(nl.fd, idx);
    return makeError(err, what + ": cannot " + step + " (" + strerror(-err) + ")");
  };
  if (int err = createVeth(nl.fd, x.device, wend, -1, x.mtu); err)
    return fail("make veth pair " + x.device + " - " + wend, err);
  made = true;
  const int port = int(if_nametoindex(x.device.c_str()));
  const int wside = int(if_nametoindex(wend.c_str()));
  if (int err = setLinkAttrs(nl.fd, port, x.mac.bytes.data(), alias); err)
    return fail("set " + x.device + "'s MAC and alias", err);
  if (int err = setLinkAttrs(nl.fd, wside, nullptr, alias); err)
    return fail("set " + wend + "'s alias", err);
  // No address, no IPv6 on either end: only the node's frames may travel the link.
  for (const auto& dev : {x.device, wend})
    std::ofstream("/proc/sys/net/ipv6/conf/" + dev + "/disable_ipv6") << "1\n";
  for (int idx : {port, wside})
    if (int err = linkUp(nl.fd, idx, 0); err) return fail("set " + x.device + " up", err);
  ClassifierOptions o;
  o.ifname = wend;
  o.wire = FP_WIRE_LINK_END;
  o.wire_vlan = x.vlan;
  o.wire_ifindex = if_nametoindex(wire->ifname.c_str());
  o.allow_generic = false;  // a veth runs XDP natively: anything else is a fault
  if (vxlan) {
    o.encap = FP_ENCAP_VXLAN;
    o.vxlan_hdr = vxlanOuterHeader(wire->mac, wire->next_hop, wire->encap.underlay.v4NetworkOrder(),
                                   wire->encap.peer_underlay.v4NetworkOrder(), wire->encap.port,
                                   x.vlan);
  }
  auto c = Classifier::attach(o);
  if (!c) return fail("attach its link end (" + c.error().message + ")", c.error().code);
  if (vxlan && !wire->hop_up)
    if (auto st = (*c)->setVxlanNextHop(std::nullopt); !st)
      return fail("mark its next hop missing (" + st.error().message + ")", st.error().code);
  link_ends_[x.name] = std::move(*c);
  const uint32_t peer = vxlan ? wire->encap.peer_underlay.v4NetworkOrder() : 0;
  if (auto st = wire->setLinkEntry(x.vlan, WireEntry{x.peer_mac, peer, uint32_t(wside)}); !st)
    return fail("add " + tag + std::to_string(x.vlan) + " to wire " + wire->ifname + " (" +
                    st.error().message + ")",
                st.error().code);
  links_.push_back(x);
  return x;
}

Status Wires::removeLink(const std::string& name) {
  auto it = std::find_if(links_.begin(), links_.end(),
                         [&](const CrossHostLink& l) { return l.name == name; });
  if (it == links_.end()) return makeError(-ENOENT, "cross-host link " + name + ": no such link");
  if (auto w = wires_.find(it->wire); w != wires_.end())
    if (auto st = w->second.setLinkEntry(it->vlan, std::nullopt); !st)
      pr_warn("link %s: removing %s %u from wire %s: %s", name.c_str(),
              w->second.encap.kind == WireEncap::kVxlan ? "VNI" : "VLAN", it->vlan,
              it->wire.c_str(), st.error().message.c_str());
  link_ends_.erase(name);
  Fd nl{rtnlOpen()};
  if (const int idx = int(if_nametoindex(it->device.c_str())); idx && nl.fd >= 0)
    deleteLink(nl.fd, idx);
  links_.erase(it);
  return {};
}

const CrossHostLink* Wires::findLink(const std::string& name) const {
  for (const auto& l : links_)
    if (l.name == name) return &l;
  return nullptr;
}

Result<CrossHostLink> Wires::setEgress(const std::string& name, const LinkParams& egress) {
  auto it = std::find_if(links_.begin(), links_.end(),
                         [&](const CrossHostLink& l) { return l.name == name; });
  if (it == links_.end()) return makeError(-ENOENT, "cross-host link " + name + ": no such link");
  CrossHostLink x = *it;
  x.egress = egress;
  std::map<std::string, uint32_t> mtu;
  std::map<std::string, WireLatency> latency;
  if (auto w = wires_.find(x.wire); w != wires_.end()) {
    mtu[x.wire] = w->second.mtu;
    latency[x.wire] = w->second.latency;
  }
  if (auto st = checkCrossLinks({x}, mtu, latency); !st)
    return makeError(st.error().code, st.error().message + "; the link keeps its parameters");
  *it = x;
  return x;
}

Status Wires::setUp(const std::string& name, bool up) {
  const CrossHostLink* x = findLink(name);
  if (!x) return makeError(-ENOENT, "cross-host link " + name + ": no such link");
  const int idx = int(if_nametoindex(x->device.c_str()));
  if (!idx)
    return makeError(-ENODEV, "cross-host link " + name + ": its port " + x->device +
                                  " is gone (deleted by hand?): delete the link and make it again");
  Fd nl{rtnlOpen()};
  if (nl.fd < 0) return makeError(nl.fd, "cross-host link " + name + ": cannot open rtnetlink");
  NlRequest r(RTM_NEWLINK, 0);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = idx;
  ifi.ifi_flags = up ? IFF_UP : 0;
  ifi.ifi_change = IFF_UP;
  r.put(ifi);
  if (int err = rtnlTalk(nl.fd, r); err)
    return makeError(err, "cross-host link " + name + ": cannot set " + x->device + " " +
                              (up ? "up" : "down") + " (" + strerror(-err) + ")");
  return {};
}

void Wires::setNextHop(Wire& wire, const std::optional<MacAddress>& mac) {
  for (const auto& x : links_) {
    if (x.wire != wire.ifname) continue;
    auto end = link_ends_.find(x.name);
    if (end == link_ends_.end()) continue;
    if (auto st = end->second->setVxlanNextHop(mac); !st)
      pr_warn("link %s: its next hop on wire %s: %s", x.name.c_str(), wire.ifname.c_str(),
              st.error().message.c_str());
  }
}

void Wires::followUnderlay() {
  if (!watch_) return;
  const bool changed = watch_->changed();
  const auto now = std::chrono::steady_clock::now();
  for (auto& [ifname, wire] : wires_) {
    if (wire.encap.kind != WireEncap::kVxlan) continue;
    if (!changed && (wire.hop_up || now < wire.retry_at)) continue;
    IpAddress unresolved;
    auto hop = underlayNextHop(ifname, wire.encap.peer_underlay, &unresolved);
    if (hop) {
      if (wire.hop_up && hop->mac == wire.next_hop) continue;
      setNextHop(wire, hop->mac);
      wire.next_hop = hop->mac;
      wire.hop_up = true;
      ++wire.hop_changes;
      pr_info("wire %s to host %s: next hop now %s (%s)", ifname.c_str(), wire.peer.c_str(),
              hop->next_hop.toString().c_str(), hop->mac.toString().c_str());
      continue;
    }
    // No next hop now: ask the kernel to resolve the one it routes to (its answer is a
    // notification), and again every second while there is none.
    if (!unresolved.isUnspecified())
      (void)watch_->resolve(int(if_nametoindex(ifname.c_str())), unresolved);
    wire.retry_at = now + std::chrono::seconds(1);
    if (!wire.hop_up) continue;
    setNextHop(wire, std::nullopt);
    wire.hop_up = false;
    ++wire.hop_losses;
    pr_warn("host %s: %s; the links on wire %s are dropped (drop_wire_no_next_hop) until the "
            "underlay reaches host %s again",
            options_.host.c_str(), hop.error().message.c_str(), ifname.c_str(), wire.peer.c_str());
  }
}

Wires::~Wires() {
  wires_.clear();  // probes stopped, classifiers detached
  link_ends_.clear();
  Fd nl{rtnlOpen()};
  for (const auto& x : links_)
    if (const int idx = int(if_nametoindex(x.device.c_str())); idx && nl.fd >= 0)
      deleteLink(nl.fd, idx);
}

LinkParams Wires::egressOf(const CrossHostLink& x) const {
  auto w = wires_.find(x.wire);
  return w == wires_.end() ? x.egress : senderParams(x, w->second.latency);
}

std::vector<MultiHostWireInfo> Wires::wireInfo() const {
  std::vector<MultiHostWireInfo> out;
  for (const auto& [ifname, w] : wires_) {
    out.push_back({w.peer, ifname, w.mtu, w.latency.one_way_ns, w.latency.min_ns,
                   w.latency.jitter_ns, uint64_t(w.latency.samples), std::nullopt});
    if (w.encap.kind == WireEncap::kVxlan)
      out.back().vxlan = WireVxlan{w.encap.underlay, w.encap.peer_underlay, w.encap.port};
  }
  return out;
}

std::vector<std::pair<std::string, LinkParams>> Wires::egress() const {
  std::vector<std::pair<std::string, LinkParams>> out;
  for (const auto& x : links_) out.push_back({x.device, egressOf(x)});
  return out;
}

std::vector<std::string> Wires::devices() const {
  std::vector<std::string> out;
  for (const auto& x : links_) out.push_back(x.device);
  return out;
}

std::vector<CounterSet> Wires::counters() const {
  std::vector<CounterSet> out;
  for (const auto& [ifname, w] : wires_) {
    CounterSet cs;
    cs.scope = "wire " + ifname + " (host " + w.peer + ")";
    cs.counters = {{"latency_ns", w.latency.one_way_ns},
                   {"latency_min_ns", w.latency.min_ns},
                   {"jitter_ns", w.latency.jitter_ns},
                   {"probes_answered", w.probe ? w.probe->answered() : 0},
                   {"probes_foreign", w.probe ? w.probe->foreign() : 0}};
    if (w.classifier)
      if (auto s = w.classifier->readStats())
        for (unsigned r : {FP_REASON_PASS_WIRE_LINK, FP_REASON_PASS_WIRE_PROBE,
                           FP_REASON_DROP_WIRE_FOREIGN_TAG, FP_REASON_DROP_WIRE_FOREIGN_HOST,
                           FP_REASON_DROP_WIRE_UNTAGGED, FP_REASON_DROP_TRUNCATED,
                           FP_REASON_PASS_WIRE_UNDERLAY, FP_REASON_DROP_WIRE_UNKNOWN_VNI,
                           FP_REASON_DROP_WIRE_BAD_FLAGS})
          cs.counters.push_back({reasonName(r), s->reason[r].packets});
    if (w.encap.kind == WireEncap::kVxlan) {
      // The next hop as followed, and what its links' ends dropped while there was none.
      uint64_t no_hop = 0;
      for (const auto& x : links_)
        if (auto end = link_ends_.find(x.name); x.wire == ifname && end != link_ends_.end())
          if (auto s = end->second->readStats())
            no_hop += s->reason[FP_REASON_DROP_WIRE_NO_NEXT_HOP].packets;
      cs.counters.push_back({"next_hop_up", w.hop_up ? 1u : 0u});
      cs.counters.push_back({"next_hop_changes", w.hop_changes});
      cs.counters.push_back({"next_hop_losses", w.hop_losses});
      cs.counters.push_back({reasonName(FP_REASON_DROP_WIRE_NO_NEXT_HOP), no_hop});
    }
    out.push_back(std::move(cs));
  }
  if (!wires_.empty()) {
    CounterSet c;
    c.scope = "clock";
    c.counters = {{"offset_known", clock_.known ? 1u : 0u},
                  {"offset_abs_ns", uint64_t(std::abs(clock_.offset_s) * 1e9)}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fastpath
