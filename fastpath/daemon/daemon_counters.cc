// SPDX-License-Identifier: GPL-2.0-only
// The counters the Daemon reports: a port's (all workers, its classifier twin or AF_XDP
// sockets, its channel, its emulation) and the daemon-wide sets (workers, classifiers,
// events, nodes).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/daemon.h"
#include "daemon/daemon_internal.h"
#include "fastpath/log.h"

namespace fastpath {

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
                       {"emu_aqm_drops", d.aqm_drops},
                       {"emu_aqm_marks", d.aqm_marks},
                       {"emu_aqm_forced_drops", d.aqm_forced_drops},
                       {"emu_aqm_forced_marks", d.aqm_forced_marks},
                       {"emu_duplicated", d.duplicated},
                       {"emu_corrupted", d.corrupted},
                       {"emu_depth_packets", d.depth_packets},
                       {"emu_depth_bytes", d.depth_bytes},
                       {"emu_in_flight", d.in_flight},
                       {"emu_sojourn_p50_ns", d.sojourn_p50_ns},
                       {"emu_sojourn_p99_ns", d.sojourn_p99_ns},
                       {"emu_link_lateness_p50_ns", d.lateness_p50_ns},
                       {"emu_link_lateness_p99_ns", d.lateness_p99_ns},
                       {"emu_link_lateness_max_ns", d.lateness_max_ns}});
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
    auto it = net_.link_ports.find(port);
    if (it != net_.link_ports.end()) {
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
    const InterfacePort* ip = port < net_.ports.size() ? net_.ports[port].get() : nullptr;
    if (ip) ch = ip->channel.get();
    if (ip && !ip->egress.empty()) appendEmulationCounters(shaperStats(ip->egress), &v);
  }
  v.push_back({"control_client_attached", ch && ch->attached() ? 1u : 0u});
  if (ch) {
    v.push_back({"from_control", ch->from_client.load()});
    v.push_back({"from_control_bytes", ch->from_client_bytes.load()});
    v.push_back({"drop_ctrl_tx_queue_full", ch->drop_tx_queue_full.load()});
    v.push_back({"drop_ctrl_oversize", ch->drop_oversize.load()});
    v.push_back({"drop_ctrl_runt", ch->drop_runt.load()});
    v.push_back({"drop_ctrl_stale_at_attach", ch->drop_stale_at_attach.load()});
    v.push_back({"control_timed", ch->timed() ? 1u : 0u});
    v.push_back({"control_lead_ns", ch->leadNs()});
    v.push_back({"control_stamp_future", ch->stamp_future.load()});
    v.push_back({"control_stamp_reordered", ch->stamp_reordered.load()});
    v.push_back({"control_stamp_age_max_ns", ch->stamp_age_max_ns.load()});
    v.push_back({"to_control_early", ch->to_client_early.load()});
  }
  v.push_back({"punt_rate", config_.punt_rate});
  v.push_back({"punt_burst", config_.punt_burst});
  if (!link && port < net_.ports.size()) {
    const bool zc = net_.ports[port] && net_.ports[port]->info.xsk_mode == "zerocopy";
    v.push_back({"xsk_zerocopy", zc ? 1u : 0u});
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
                   {"rt_guard_steps", c.rt_guard_steps.get()},
                   {"rt_guard_normal_ns", c.rt_guard_normal_ns.get()},
                   {"stall_rt_throttled", c.stall_rt_throttled.get()},
                   {"stall_rt_throttled_ns", c.stall_rt_throttled_ns.get()},
                   {"stall_other", c.stall_other.get()},
                   {"stall_other_ns", c.stall_other_ns.get()},
                   {"stall_max_ns", c.stall_max_ns.get()},
                   {"rt_refused", uint64_t(w->options().index < rt_refused_.size()
                                               ? std::max(rt_refused_[w->options().index], 0)
                                               : 0)},
                   {"rx_budget_frames", w->rxFillTarget()},
                   {"rx_overload_windows", c.rx_overload_windows.get()},
                   {"rx_drain_rate_pps", w->rxRatePps()},
                   {"link_tables", c.link_tables.get()},
                   {"link_frames_discarded", c.link_frames_discarded.get()},
                   {"emu_late_frames", c.link_late_frames.get()},
                   {"emu_late_on_arrival", c.link_late_on_arrival.get()},
                   {"ctrl_tx_reordered", c.ctrl_tx_reordered.get()},
                   {"emu_lateness_p50_ns", c.lateness.quantile(0.5)},
                   {"emu_lateness_p99_ns", c.lateness.quantile(0.99)},
                   {"emu_lateness_max_ns", c.lateness.max()},
                   {"rx_wait_p50_ns", c.rx_wait.quantile(0.5)},
                   {"rx_wait_p99_ns", c.rx_wait.quantile(0.99)},
                   {"rx_wait_max_ns", c.rx_wait.max()},
                   {"emu_wakeups", c.emu_wakeups.get()},
                   {"emu_wake_late_p50_ns", c.emu_wake_late.quantile(0.5)},
                   {"emu_wake_late_p99_ns", c.emu_wake_late.quantile(0.99)},
                   {"emu_wake_late_max_ns", c.emu_wake_late.max()},
                   {"emu_spin_ns", c.emu_spin_ns.get()},
                   {"emu_spin_over_budget", c.emu_spin_over_budget.get()},
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
  for (const auto& port : net_.ports) {
    if (!port) continue;  // a detached port's id
    const auto& c = port->classifier;
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
                           {{"nodes", net_.nodes.size()},
                            {"links", net_.links.size()},
                            {"link_queues", resources_.queues()},
                            {"link_queues_retired", resources_.retiredQueues()},
                            {"link_shapers", resources_.shapers()},
                            {"link_shapers_retired", resources_.retiredShapers()}}});
  captureCounters(out);
  // The wires to other hosts and this host's clock offset, beside the workers' lateness.
  if (wires_)
    for (auto& cs : wires_->counters()) out.push_back(std::move(cs));
  return out;
}

Result<StatsEpoch> Daemon::resetStats() {
  // Each worker zeroes its own (it is their only writer), those of the links, segments,
  // egresses and media in its table included; the daemon's epoch moves only when all did.
  uint32_t done = 0;
  for (const auto& w : workers_) {
    if (auto st = w->resetHistograms(); !st)
      return makeError(st.error().code, st.error().message + " (" + std::to_string(done) +
                                            " of " + std::to_string(workers_.size()) +
                                            " workers reset theirs)");
    ++done;
  }
  // The one maximum the relay thread writes: the control channels' stamp age.
  for (const auto& p : net_.ports)
    if (p && p->channel) p->channel->stamp_age_max_ns.store(0, std::memory_order_relaxed);
  for (const auto& [id, lp] : net_.link_ports)
    if (lp.channel) lp.channel->stamp_age_max_ns.store(0, std::memory_order_relaxed);
  stats_epoch_.since_unix_ns = realtimeNowNs();
  ++stats_epoch_.resets;
  StatsEpoch out = stats_epoch_;
  out.workers = done;
  return out;
}

}  // namespace fastpath
