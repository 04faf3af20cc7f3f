// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/wires.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "daemon/rtnetlink.h"
#include "fastpath/link_params.h"
#include "fastpath/log.h"

namespace fastpath {
namespace {

std::string micros(uint64_t ns) { return std::to_string((ns + 500) / 1000) + "us"; }

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
    const std::string what = "link " + x.link + " (line " + std::to_string(x.line) +
                             ", VLAN " + std::to_string(x.vlan) + " on wire " + x.wire +
                             " to host " + x.peer_host + ")";
    if (auto m = wire_mtu.find(x.wire); m != wire_mtu.end() && x.mtu > m->second)
      add(what + ": mtu " + std::to_string(x.mtu) + " is more than the wire carries (" +
          std::to_string(m->second) + "; 802.1Q adds " + std::to_string(kVlanOverhead) +
          " bytes a frame, which an Ethernet wire's 1522-byte frames allow): lower the "
          "link's mtu or raise the wire's");
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
  std::unique_ptr<Wires> w(new Wires());
  w->links_ = config.cross_links;
  if (w->links_.empty()) return w;
  // What needs no change first: the wires exist and carry the links' MTUs.
  std::map<std::string, uint32_t> mtu;
  for (const auto& x : w->links_) {
    if (mtu.count(x.wire)) continue;
    auto m = interfaceMtu(x.wire);
    if (!m) return m.error();
    mtu[x.wire] = *m;
  }
  if (auto st = checkCrossLinks(w->links_, mtu, {}); !st) return st.error();
  w->clock_ = readClockOffset();
  pr_info("host %s: clock offset %s", config.host_name.c_str(), w->clock_.text().c_str());
  auto tag = RunTag::take(config.run_tag);
  if (!tag) return tag.error();
  w->tag_ = std::move(*tag);
  Fd nl{rtnlOpen()};
  if (nl.fd < 0) return makeError(nl.fd, "wires: cannot open rtnetlink");
  const std::string alias = runTagAlias(config.run_tag);
  std::map<std::string, std::map<uint16_t, Classifier::WireTag>> tags;  // by wire
  for (const auto& x : w->links_) {
    Wire& wire = w->wires_[x.wire];
    wire.ifname = x.wire;
    wire.peer = x.peer_host;
    const std::string end = wireLinkEndName(config.run_tag, x.vlan);
    auto fail = [&](const std::string& what, int err) {
      return makeError(err, "link " + x.link + ": cannot " + what + " (" + strerror(-err) + ")");
    };
    if (int err = createVeth(nl.fd, x.device, end, -1, x.mtu); err)
      return fail("make veth pair " + x.device + " - " + end, err);
    w->made_.push_back(x.device);
    const int port = int(if_nametoindex(x.device.c_str())), wside = int(if_nametoindex(end.c_str()));
    if (int err = setLinkAttrs(nl.fd, port, x.mac.bytes.data(), alias); err)
      return fail("set " + x.device + "'s MAC and alias", err);
    if (int err = setLinkAttrs(nl.fd, wside, nullptr, alias); err)
      return fail("set " + end + "'s alias", err);
    // No address, no IPv6 on either end: only the node's frames may travel the link.
    for (const auto& dev : {x.device, end})
      std::ofstream("/proc/sys/net/ipv6/conf/" + dev + "/disable_ipv6") << "1\n";
    for (int idx : {port, wside})
      if (int err = linkUp(nl.fd, idx, 0); err) return fail("set " + x.device + " up", err);
    ClassifierOptions o;
    o.ifname = end;
    o.wire = FP_WIRE_LINK_END;
    o.wire_vlan = x.vlan;
    o.wire_ifindex = if_nametoindex(x.wire.c_str());
    o.allow_generic = false;  // a veth runs XDP natively: anything else is a fault
    auto c = Classifier::attach(o);
    if (!c) return makeError(c.error().code, "link " + x.link + ": " + c.error().message);
    w->link_ends_.push_back(std::move(*c));
    tags[x.wire][x.vlan] = {x.peer_mac, uint32_t(wside)};
  }
  for (auto& [ifname, wire] : w->wires_) {
    if (int err = linkUp(nl.fd, int(if_nametoindex(ifname.c_str())), 0); err)
      return makeError(err, "wire " + ifname + ": cannot set it up (" + strerror(-err) + ")");
    ClassifierOptions o;
    o.ifname = ifname;
    o.wire = FP_WIRE_PORT;
    o.allow_generic = config.xdp_mode != "native";
    auto c = Classifier::attach(o);
    if (!c) return makeError(c.error().code, "wire " + ifname + ": " + c.error().message);
    if (auto st = (*c)->setWireTags(tags[ifname]); !st) return st.error();
    wire.classifier = std::move(*c);
    auto p = WireProbe::open(ifname, config.run_tag, config.host_name, wire.peer);
    if (!p) return p.error();
    wire.probe = std::move(*p);
  }
  // Each wire measured once both daemons answer; then the delays checked against it.
  std::map<std::string, WireLatency> latency;
  for (auto& [ifname, wire] : w->wires_) {
    auto l = wire.probe->measure(config.wire_wait_ms);
    if (!l) return l.error();
    wire.latency = *l;
    latency[ifname] = *l;
    pr_info("wire %s to host %s: one-way latency %s (min %s, jitter %s, %zu probes)",
            ifname.c_str(), wire.peer.c_str(), micros(l->one_way_ns).c_str(),
            micros(l->min_ns).c_str(), micros(l->jitter_ns).c_str(), l->samples);
  }
  if (auto st = checkCrossLinks(w->links_, mtu, latency); !st) return st.error();
  return w;
}

Wires::~Wires() {
  wires_.clear();  // probes stopped, classifiers detached
  link_ends_.clear();
  Fd nl{rtnlOpen()};
  for (const auto& dev : made_)
    if (const int idx = int(if_nametoindex(dev.c_str())); idx && nl.fd >= 0)
      deleteLink(nl.fd, idx);
}

std::vector<std::pair<std::string, LinkParams>> Wires::egress() const {
  std::vector<std::pair<std::string, LinkParams>> out;
  for (const auto& x : links_) out.push_back({x.device, senderParams(x, wires_.at(x.wire).latency)});
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
                           FP_REASON_DROP_WIRE_UNTAGGED, FP_REASON_DROP_TRUNCATED})
          cs.counters.push_back({reasonName(r), s->reason[r].packets});
    out.push_back(std::move(cs));
  }
  if (!links_.empty()) {
    CounterSet c;
    c.scope = "clock";
    c.counters = {{"offset_known", clock_.known ? 1u : 0u},
                  {"offset_abs_ns", uint64_t(std::abs(clock_.offset_s) * 1e9)}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fastpath
