// SPDX-License-Identifier: GPL-2.0-only
// The Daemon's emulation and link tables: an interface port's emulated egress, the
// measured side of the emulation (shapers' counters, workers' lateness), and the per-worker
// link port tables the workers read (published through the epoch).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"
#include "worker/lateness_warning.h"

namespace fastpath {

Status Daemon::applyPortParams(PortId port, const LinkParams& params) {
  if (port < net_.ports.size() && !net_.portAttached(port))
    return makeError(-ENODEV, "port " + std::to_string(port) + " is detached");
  if (port >= net_.ports.size())
    return makeError(-EINVAL, "port " + std::to_string(port) +
                                  " is a link port: set its link's parameters instead");
  InterfacePort& p = *net_.ports[port];
  if (auto st = validateLinkParams(params); !st)
    return makeError(st.error().code, "port " + p.info.ifname + ": " + st.error().message +
                                          "; the port keeps its parameters");
  p.info.egress = params;
  applyShaping(p.egress, "port/" + p.info.ifname, params);
  publishLinkTables();
  pr_info_ratelimited("port %s egress: %s", p.info.ifname.c_str(),
                      formatLinkParams(params).c_str());
  return {};
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
    d.aqm_drops += c.aqm_drops.load();
    d.aqm_marks += c.aqm_marks.load();
    d.aqm_forced_drops += c.aqm_forced_drops.load();
    d.aqm_forced_marks += c.aqm_forced_marks.load();
    d.aqm_drop_bytes += c.aqm_drop_bytes.load();
    d.aqm_forced_drop_bytes += c.aqm_forced_drop_bytes.load();
    d.backoff_drops += c.backoff_drops.load();
    d.fq_packets += c.fq_packets.load();
    d.fq_bytes += c.fq_bytes.load();
    d.duplicated += c.duplicated.load();
    d.corrupted += c.corrupted.load();
    d.depth_packets += c.depth_packets.load();
    d.depth_bytes += c.depth_bytes.load();
    d.in_flight += c.in_flight.load();
    d.sojourn_p50_ns = std::max(d.sojourn_p50_ns, c.sojourn.quantile(0.5));
    d.sojourn_p99_ns = std::max(d.sojourn_p99_ns, c.sojourn.quantile(0.99));
    d.sojourn_max_ns = std::max(d.sojourn_max_ns, c.sojourn.max());
    // Per worker's shaper; the worst worker's, as for the sojourn.
    d.lateness_p50_ns = std::max(d.lateness_p50_ns, c.lateness.quantile(0.5));
    d.lateness_p99_ns = std::max(d.lateness_p99_ns, c.lateness.quantile(0.99));
    d.lateness_max_ns = std::max(d.lateness_max_ns, c.lateness.max());
  }
  return d;
}

bool Daemon::emulates() const {
  for (const auto& p : net_.ports)
    if (p && !p->egress.empty()) return true;
  for (const auto& [id, lp] : net_.link_ports)
    if (!lp.shapers.empty()) return true;
  for (const auto& [name, seg] : net_.segments)
    if (!seg.shapers.empty()) return true;
  // A radio medium times every frame it carries (airtime, ACKs, retries): its workers wake
  // for its events as for a link's arrivals.
  return !net_.media.empty();
}

void Daemon::checkEmulationLateness() {
  late_frames_seen_.resize(workers_.size(), 0);
  late_on_arrival_seen_.resize(workers_.size(), 0);
  for (size_t i = 0; i < workers_.size(); ++i) {
    const auto& c = workers_[i]->counters();
    const uint64_t late = c.link_late_frames.get();
    if (late == late_frames_seen_[i]) continue;
    const uint64_t on_arrival = c.link_late_on_arrival.get();
    const std::string text = latenessWarning(
        {i, late - late_frames_seen_[i], on_arrival - late_on_arrival_seen_[i],
         workers_[i]->options().lateness_warn_ns, c.lateness.quantile(0.99), c.lateness.max(),
         wires_ ? wires_->clock().text() : "not checked"});
    pr_warn_ratelimited("%s", text.c_str());
    late_frames_seen_[i] = late;
    late_on_arrival_seen_[i] = on_arrival;
  }
}

void Daemon::checkRtStalls() {
  rt_stall_warned_.resize(workers_.size(), 0);
  for (size_t i = 0; i < workers_.size(); ++i) {
    const auto& c = workers_[i]->counters();
    const uint64_t n = c.stall_rt_throttled.get();
    if (!n || rt_stall_warned_[i]) continue;
    rt_stall_warned_[i] = 1;
    const RtBandwidth& bw = workers_[i]->rtBandwidth();
    pr_warn(
        "worker %zu was stopped by the kernel's real-time throttling: %llu time(s), %llu ms "
        "in all, the longest %llu ms (see stall_rt_throttled in fpctl stats). Real-time "
        "work on its CPU (the worker, its ports' real-time NAPI threads) used up "
        "sched_rt_runtime_us (%s) and the kernel stopped all of it for the rest of the "
        "period: frames arriving meanwhile wait or are dropped. %s; or run the worker "
        "under the normal policy (--rt-priority 0), give it a CPU of its own (--cores), or "
        "lift the limit (sysctl kernel.sched_rt_runtime_us=-1; then nothing stops a "
        "real-time thread that spins)",
        i, (unsigned long long)n, (unsigned long long)(c.stall_rt_throttled_ns.get() / 1000000),
        (unsigned long long)(c.stall_max_ns.get() / 1000000), bw.text().c_str(),
        workers_[i]->options().rt_guard
            ? "The worker steps down to the normal policy before the budget is spent "
              "(--rt-guard on), but the CPU's other real-time work (e.g. NAPI threads at a "
              "real-time priority) used it alone"
            : "Let the worker step down before the budget is spent (--rt-guard on)");
  }
}

void Daemon::publishLinkTables() {
  ++link_table_version_;
  for (size_t w = 0; w < workers_.size(); ++w) {
    auto t = std::make_unique<LinkPortTable>();
    t->version = link_table_version_;
    t->slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
    // Bridges first: segment members point into `bridges`, sized once here.
    std::map<PortId, std::pair<const BridgeSlot*, uint16_t>> bridge_port;
    t->bridges.reserve(net_.bridges.size());
    for (const auto& [bname, b] : net_.bridges) {
      BridgeSlot& bs = t->bridges.emplace_back();
      bs.ports = b.ports;
      bs.state = b.states[w].get();
      bs.ageing_ns = b.ageing_ns;
      for (size_t i = 0; i < b.ports.size(); ++i) bridge_port[b.ports[i]] = {&bs, uint16_t(i)};
    }
    // Segments next: their ports' slots point into `segments`, sized once here.
    std::map<std::string, const SegmentSlot*> seg_slot;
    t->segments.reserve(net_.segments.size());
    for (const auto& [sname, seg] : net_.segments) {
      SegmentSlot ss;
      ss.state = seg.state.get();
      ss.shaper = w < seg.shapers.size() ? seg.shapers[w] : nullptr;
      for (PortId p : seg.ports) {
        const LinkPort& lp = net_.link_ports.at(p);
        SegmentMember m;
        m.port = p;
        std::memcpy(m.mac, lp.info.mac.bytes.data(), 6);
        m.inbound = lp.inbound[w];
        m.port_state = lp.port_state.get();
        if (auto it = bridge_port.find(p); it != bridge_port.end()) {
          m.bridge = it->second.first;
          m.bridge_port = it->second.second;
          ss.bridged = true;
        }
        ss.members.push_back(m);
      }
      t->segments.push_back(std::move(ss));
      seg_slot[sname] = &t->segments.back();
    }
    // Media likewise: their ports' slots point into `media`.
    std::map<std::string, const MediumSlot*> medium_slot;
    t->media.reserve(net_.media.size());
    for (const auto& [mname, med] : net_.media) {
      MediumSlot ms;
      ms.state = med.state.get();
      ms.model = med.models[w].get();
      for (PortId p : med.ports) {
        const LinkPort& lp = net_.link_ports.at(p);
        MediumMember m;
        m.port = p;
        std::memcpy(m.mac, lp.info.mac.bytes.data(), 6);
        m.inbound = lp.inbound[w];
        ms.members.push_back(m);
      }
      t->media.push_back(std::move(ms));
      medium_slot[mname] = &t->media.back();
    }
    for (const auto& [mw, m] : retired_media_)
      if (mw == w && !m->drained()) t->retired_media.push_back(m.get());
    for (const auto& [id, lp] : net_.link_ports) {
      LinkPortSlot s;
      s.port = id;
      s.peer = lp.peer;
      s.inbound = lp.inbound[w];
      if (!lp.segment.empty()) {
        s.segment = seg_slot.at(lp.segment);
        s.peer = id;
      } else if (!lp.medium.empty()) {
        const Medium& med = net_.media.at(lp.medium);
        s.medium = medium_slot.at(lp.medium);
        s.member = uint32_t(std::find(med.ports.begin(), med.ports.end(), id) - med.ports.begin());
        s.peer = id;
      } else {
        s.to_peer = net_.link_ports.at(lp.peer).inbound[w];
      }
      s.state = lp.state;
      s.port_state = lp.port_state.get();
      s.fib = &lp.node->fib().view();
      s.classifier = lp.classifier.get();
      s.channel = lp.channel.get();
      s.shaper = w < lp.shapers.size() ? lp.shapers[w] : nullptr;
      t->slot_of[id - kFirstLinkPort] = int32_t(t->slots.size());
      t->slots.push_back(s);
    }
    resources_.retiredFor(uint32_t(w), *t);
    // Egress shapers up to the last port that has one (none: an empty table).
    size_t shaped = 0;
    for (size_t p = 0; p < net_.ports.size(); ++p)
      if (net_.ports[p] && !net_.ports[p]->egress.empty()) shaped = p + 1;
    t->egress.assign(shaped, nullptr);
    for (size_t p = 0; p < shaped; ++p)
      if (net_.ports[p] && w < net_.ports[p]->egress.size()) t->egress[p] = net_.ports[p]->egress[w];
    workers_[w]->publishLinkPorts(t.get());
    if (link_tables_[w]) {
      LinkPortTable* old = link_tables_[w].release();
      epoch_.retire([old] { delete old; });
    }
    link_tables_[w] = std::move(t);
  }
  epoch_.synchronize();
  resources_.recycle();
  // Retired media whose frames every worker gave back (they marked them drained).
  std::erase_if(retired_media_, [](const auto& m) { return m.second->drained(); });
}

}  // namespace fastpath
