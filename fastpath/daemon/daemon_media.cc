// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's radio media: ad hoc Wi-Fi channels joining many nodes. A medium port is a
// link port without a peer, as a segment port: its node sees a port like any other (MAC,
// MTU, classifier twin, control channel). What it sends enters the medium's model in the
// worker (worker/medium_egress.h), which decides who receives it and when. Pair updates
// are validated whole, then published to every worker's model at once.
#include <algorithm>
#include <cerrno>
#include <functional>
#include <set>
#include <unordered_map>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "medium/per_table.h"

namespace fastpath {

namespace {

std::string canonical(const std::string& node) { return node.empty() ? kDefaultNodeName : node; }

/// The batch by member index; an error names the pair ("pairs[3].to: ...").
Result<std::vector<medium::IndexedPair>> indexPairs(const std::vector<MediumPair>& pairs,
                                                    const std::vector<std::string>& members) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < members.size(); ++i) index[members[i]] = i;
  std::vector<medium::IndexedPair> out;
  out.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    MediumPair p = pairs[i];
    p.from = canonical(p.from);
    p.to = canonical(p.to);
    if (auto st = validateMediumPair(p, members); !st)
      return makeError(st.error().code, "pairs[" + std::to_string(i) + "]." + st.error().message);
    out.push_back({index.at(p.from), index.at(p.to), p.rx_power_dbm, p.remove});
  }
  return out;
}

}  // namespace

Status Daemon::createMedium(const MediumSpec& in) {
  MediumSpec spec = in;
  const std::string what = "medium " + spec.name;
  if (auto st = checkMediumName("medium", spec.name); !st) return st;
  if (net_.media.count(spec.name)) return makeError(-EEXIST, what + " exists already");
  if (spec.ports.empty() || spec.ports.size() > kMaxMediumPorts)
    return makeError(-EINVAL, what + ": " + std::to_string(spec.ports.size()) +
                                  " ports; a medium joins 1 to " +
                                  std::to_string(kMaxMediumPorts) + " nodes");
  if (net_.link_ports.size() + spec.ports.size() > size_t(kMaxPorts - kFirstLinkPort))
    return makeError(-ENOSPC, what + ": " + std::to_string(spec.ports.size()) +
                                  " more ports than fastpathd has port ids for; delete links, "
                                  "segments or media first");
  if (auto st = validateMediumPhy(spec.phy); !st)
    return makeError(st.error().code, what + ": phy." + st.error().message);
  const size_t n = spec.ports.size();
  std::vector<Node*> nodes(n);
  std::vector<std::string> members(n);
  std::set<Node*> seen;
  std::vector<MacAddress> macs;
  for (size_t i = 0; i < n; ++i) {
    PortSpec& ps = spec.ports[i];
    const std::string at = what + ": port " + std::to_string(i) + " (node " + ps.node + ")";
    auto node = checkLinkPortSpec(what, at, ps.node, ps.port, spec.name, ps.mtu, ps.mac);
    if (!node) return node.error();
    nodes[i] = *node;
    members[i] = nodes[i]->name();
    if (!seen.insert(nodes[i]).second)
      return makeError(-EINVAL, what + ": node " + members[i] +
                                    " is a member twice; a node has one port on a medium");
    if (!ps.mac.isZero()) {
      if (net_.linkMacInUse(ps.mac) || std::count(macs.begin(), macs.end(), ps.mac))
        return makeError(-EEXIST, at + ": MAC " + ps.mac.toString() + " is in use by another port");
      macs.push_back(ps.mac);
    }
  }
  auto pairs = indexPairs(spec.pairs, members);
  if (!pairs) return makeError(pairs.error().code, what + ": " + pairs.error().message);
  for (auto& ps : spec.ports)
    if (ps.mac.isZero()) {
      ps.mac = net_.nextLinkMac(macs);
      macs.push_back(ps.mac);
    }
  // Everything that can fail is checked: the ports are made.
  Medium med;
  med.name = spec.name;
  med.nodes = members;
  med.phy = spec.phy;
  med.state = std::make_unique<LinkState>();
  med.state->up.store(spec.up, std::memory_order_relaxed);
  std::vector<LinkPort> ports(n);
  for (size_t i = 0; i < n; ++i) {
    LinkPort& lp = ports[i];
    lp.info.ifname = spec.ports[i].port;
    lp.info.mac = spec.ports[i].mac;
    lp.info.mtu = spec.ports[i].mtu;
    lp.info.up = spec.up;
    lp.info.xsk_mode = "medium";
    lp.info.node = members[i];
    lp.info.link = spec.name;
    lp.node = nodes[i];
    lp.state = med.state.get();
    lp.medium = spec.name;
  }
  auto ids = addLinkPorts(what, std::move(ports));
  if (!ids) return ids.error();
  med.ports = *ids;
  const uint64_t seed = spec.phy.seed ? spec.phy.seed : std::hash<std::string>{}(spec.name) | 1;
  for (size_t w = 0; w < workers_.size(); ++w) {
    med.models.push_back(std::make_unique<medium::RadioMedium>(spec.phy, uint32_t(n), seed + w));
    med.models.back()->pairs().apply(*pairs, false);
  }
  net_.media[spec.name] = std::move(med);
  publishLinkTables();
  pr_info_ratelimited("medium %s: %zu members, %zu pairs, %u/%u kbit/s, %s", spec.name.c_str(), n,
                      spec.pairs.size(), spec.phy.data_rate_kbps, spec.phy.basic_rate_kbps,
                      spec.up ? "up" : "down");
  return {};
}

Status Daemon::deleteMedium(const std::string& name) {
  auto it = net_.media.find(name);
  if (it == net_.media.end())
    return makeError(-ENOENT, "medium " + name + ": no such medium (fpctl medium list)");
  Medium& med = it->second;
  for (PortId id : med.ports) removeLinkPort(id, "medium " + name);
  // The models hold frames: each worker gives back its own before the model is freed.
  for (size_t w = 0; w < med.models.size(); ++w)
    retired_media_.emplace_back(w, std::move(med.models[w]));
  LinkState* state = med.state.release();
  epoch_.retire([state] { delete state; });
  const size_t ports = med.ports.size();
  net_.media.erase(it);
  publishLinkTables();
  pr_info_ratelimited("medium %s deleted with %zu port(s)", name.c_str(), ports);
  return {};
}

Status Daemon::updateMedium(const std::string& name, const MediumUpdate& update) {
  auto it = net_.media.find(name);
  if (it == net_.media.end())
    return makeError(-ENOENT, "medium " + name + ": no such medium (fpctl medium list)");
  if (update.pairs.size() > kMaxMediumPairsPerUpdate)
    return makeError(-E2BIG, "medium " + name + ": " + std::to_string(update.pairs.size()) +
                                 " pairs in one update; at most " +
                                 std::to_string(kMaxMediumPairsPerUpdate));
  auto pairs = indexPairs(update.pairs, it->second.nodes);
  if (!pairs)
    return makeError(pairs.error().code, "medium " + name + ": " + pairs.error().message +
                                             "; nothing changed");
  // Each worker's model adopts the new table at its next frame: a frame sees the whole
  // batch or none of it.
  for (auto& m : it->second.models) m->pairs().apply(*pairs, update.replace_all);
  return {};
}

std::vector<MediumInfo> Daemon::media(const std::string& name) const {
  std::vector<MediumInfo> out;
  for (const auto& [mname, med] : net_.media) {
    if (!name.empty() && mname != name) continue;
    MediumInfo info;
    info.name = mname;
    info.up = med.state->up.load(std::memory_order_relaxed);
    info.phy = med.phy;
    info.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - med.created)
                                   .count());
    for (size_t i = 0; i < med.ports.size(); ++i) {
      const LinkPort& lp = net_.link_ports.at(med.ports[i]);
      MediumInfo::Port p;
      p.node = med.nodes[i];
      p.port = lp.info.ifname;
      p.id = med.ports[i];
      p.mac = lp.info.mac;
      p.mtu = lp.info.mtu;
      for (const auto& m : med.models) {
        const medium::MemberStats& s = m->stats(uint32_t(i));
        p.tx_packets += s.tx_packets.get();
        p.tx_bytes += s.tx_bytes.get();
        p.rx_packets += s.rx_packets.get();
        p.rx_bytes += s.rx_bytes.get();
        p.retries += s.retries.get();
        p.retry_drops += s.retry_drops.get();
        p.collisions += s.collisions.get();
        p.tx_airtime_ns += s.tx_airtime_ns.get();
        p.busy_ns += s.busy_ns.get();
        p.late_frames += s.late_frames.get();
        p.expired_drops += s.expired_drops.get();
        p.acks_lost += s.acks_lost.get();
        p.duplicates += s.duplicates.get();
        p.acks_sent += s.acks_sent.get();
        p.acks_unsent += s.acks_unsent.get();
        p.lateness_max_ns = std::max(p.lateness_max_ns, s.lateness_max_ns.get());
      }
      info.ports.push_back(std::move(p));
    }
    // Every worker's model has the same pairs (one update goes to all of them).
    std::vector<std::vector<medium::PairTables::Snapshot>> snaps;
    for (const auto& m : med.models) snaps.push_back(m->pairs().snapshot());
    const double noise = medium::noiseFloorDbm(med.phy.data_rate_kbps, med.phy.noise_figure_db);
    if (!snaps.empty()) {
      for (size_t k = 0; k < snaps[0].size(); ++k) {
        const auto& sp = snaps[0][k].pair;
        MediumInfo::Pair p;
        p.from = med.nodes[sp.from];
        p.to = med.nodes[sp.to];
        p.rx_power_dbm = sp.rx_dbm;
        p.snr_db = sp.rx_dbm - noise;
        p.expected_delivery = medium::frameSuccess(med.phy.error_model, med.phy.data_rate_kbps,
                                                   p.snr_db, medium::wifiFrameBytes(1000 + 14));
        for (const auto& s : snaps) {
          if (k >= s.size()) continue;
          p.attempts += s[k].stats->attempts.get();
          p.delivered += s[k].stats->delivered.get();
          p.error_drops += s[k].stats->error_drops.get();
          p.collision_drops += s[k].stats->collision_drops.get();
        }
        info.pairs.push_back(std::move(p));
      }
      info.updates = med.models[0]->pairs().updates();
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace fastpath
