// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/daemon.h"

#include <net/if.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "daemon/daemon_internal.h"
#include "fastpath/log.h"

namespace fastpath {

Daemon::Daemon(Config config) : config_(std::move(config)) {}

Daemon::~Daemon() { shutdown(); }

Status Daemon::start() {
  if (auto st = validateConfig(config_); !st) return st;
  if (auto st = checkPrerequisites(config_); !st) return st;
  if (auto st = startPorts(); !st) {
    shutdown();
    return st;
  }
  if (auto st = startWorkers(); !st) {
    shutdown();
    return st;
  }
  started_ = true;
  return {};
}

Status Daemon::startPorts() {
  ports_.clear();
  std::vector<PortConfig> fib_ports;
  for (size_t i = 0; i < config_.ports.size(); ++i) {
    auto p = readPortInfo(config_.ports[i], PortId(i));
    if (!p) return p.error();
    p->queues = config_.queues;
    ports_.push_back(*p);
    fib_ports.push_back(PortConfig{PortId(i), p->mac, p->mtu, p->up});
  }
  port_gone_.assign(ports_.size(), false);
  auto fib = FibManager::create();
  if (!fib) return fib.error();
  fib_ = std::move(fib).value();
  if (auto st = fib_->setPorts(fib_ports); !st) return st;
  // Static neighbours first so the static routes are resolved when they appear.
  auto portId = [&](const std::string& dev) {
    for (size_t i = 0; i < config_.ports.size(); ++i)
      if (config_.ports[i] == dev) return PortId(i);
    return PortId(0);
  };
  for (const auto& n : config_.neighbours) {
    if (auto st = fib_->addNeighbour(Neighbour{n.ip, portId(n.dev), n.mac}); !st)
      return makeError(st.error().code,
                       "static neighbour " + n.ip.toString() + ": " + st.error().message);
  }
  if (!config_.routes.empty()) {
    RouteBatch batch;
    for (const auto& r : config_.routes)
      batch.add.push_back(Route{r.prefix, r.via, portId(r.dev), r.metric});
    if (auto st = fib_->applyRoutes(batch); !st)
      return makeError(st.error().code, "static routes: " + st.error().message);
  }
  for (auto& p : ports_) {
    ClassifierOptions co;
    co.ifname = p.ifname;
    co.allow_generic = config_.xdp_mode != "native";
    co.no_xsk_policy = config_.no_xsk_drop ? FP_NO_XSK_DROP : FP_NO_XSK_PASS;
    auto c = Classifier::attach(co);
    if (!c) return c.error();
    p.xdp_mode = (*c)->mode();
    pr_info("port %u %s: classifier attached (%s XDP), MAC %s, MTU %u", p.id, p.ifname.c_str(),
            p.xdp_mode.c_str(), p.mac.toString().c_str(), p.mtu);
    classifiers_.push_back(std::move(*c));
    auto ch = ControlChannel::create(p.id, p.ifname);
    if (!ch) return ch.error();
    channels_.push_back(std::move(*ch));
  }
  return {};
}

Status Daemon::startWorkers() {
  const uint32_t np = uint32_t(ports_.size());
  XskMode mode = config_.xsk_mode;
  if (mode == XskMode::kAuto) {
    mode = xskZeroCopySupported(ports_[0].ifname, 0) ? XskMode::kZeroCopy : XskMode::kCopy;
  }
  std::vector<ControlChannel*> channels;
  for (auto& c : channels_) channels.push_back(c.get());
  for (uint32_t w = 0; w < config_.queues; ++w) {
    UmemOptions uo;
    uo.frames = config_.effectiveUmemFrames();
    uo.frame_size = config_.frame_size;
    uo.fill_size = config_.ring_size;
    uo.comp_size = config_.ring_size;
    auto umem = Umem::create(uo);
    if (!umem) return umem.error();
    std::vector<std::unique_ptr<XskSocket>> sockets;
    for (uint32_t p = 0; p < np; ++p) {
      XskOptions xo;
      xo.ifname = ports_[p].ifname;
      xo.queue = w;
      xo.rx_size = config_.ring_size;
      xo.tx_size = config_.ring_size;
      xo.mode = mode;
      xo.busy_poll = config_.busy_poll;
      xo.busy_poll_budget = config_.batch_size;
      xo.xsks_map_fd = classifiers_[p]->xsksMapFd();
      auto s = XskSocket::create(**umem, xo);
      if (!s) return s.error();
      ports_[p].xsk_mode = (*s)->modeName();
      sockets.push_back(std::move(*s));
    }
    WorkerOptions wo;
    wo.index = w;
    wo.queue = w;
    wo.cpu = config_.cores.empty() ? -1 : config_.cores[w];
    wo.batch_size = config_.batch_size;
    wo.idle_poll_us = config_.idle_poll_us;
    wo.rt_priority = std::max(config_.rt_priority, 0);
    wo.busy_poll = config_.busy_poll;
    wo.punt_to_control = config_.punt_to_control;
    // Each worker limits its own queue: the port's rate and burst are shared out.
    wo.punt_rate = config_.punt_rate / config_.queues;
    wo.punt_burst = std::max<uint64_t>(1, config_.punt_burst / config_.queues);
    workers_.push_back(std::make_unique<Worker>(wo, std::move(*umem), std::move(sockets), channels,
                                                fib_->view(), fib_->epoch()));
  }
  // Client frames of a port are transmitted by worker 0 (queue 0 of every port): one
  // producer per TX ring.
  std::vector<ControlRelay::Route> routes;
  for (auto& c : channels_) routes.push_back({c.get(), &workers_[0]->controlTxQueue()});
  relay_ = std::make_unique<ControlRelay>(routes);
  if (auto st = relay_->start(); !st) return st;
  for (auto& w : workers_)
    if (auto st = w->start(); !st) return st;
  pr_info(
      "fastpathd: %u port(s), %u worker(s), AF_XDP %s mode (%u frames per TX kick), "
      "batch %u, %u UMEM frames/worker",
      np, config_.queues, ports_[0].xsk_mode.c_str(), workers_[0]->socket(0).txBudget(),
      config_.batch_size, config_.effectiveUmemFrames());
  return {};
}

void Daemon::shutdown() {
  for (auto& w : workers_) w->stop();
  if (relay_) relay_->stop();
  relay_.reset();
  workers_.clear();      // closes the AF_XDP sockets, then frees the UMEMs
  classifiers_.clear();  // detaches XDP
  channels_.clear();
  fib_.reset();
  started_ = false;
}

Status Daemon::run(const std::atomic<bool>& stop, const ControlPoll& poll_control) {
  using Clock = std::chrono::steady_clock;
  auto next_stats = Clock::now() + std::chrono::seconds(config_.stats_interval_s);
  auto next_link_check = Clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    poll_control(50);
    drainEvents();
    if (Clock::now() >= next_link_check) {
      checkLinks();
      adjustRtPriority();
      next_link_check = Clock::now() + std::chrono::seconds(1);
    }
    if (config_.stats_interval_s && Clock::now() >= next_stats) {
      pr_info("%s", statsLine().c_str());
      next_stats += std::chrono::seconds(config_.stats_interval_s);
    }
  }
  // Final counters, non-zero only: what happened during the run, for logs and benchmarks.
  for (const auto& cs : stats()) {
    std::string line;
    for (const auto& [k, v] : cs.counters)
      if (v) line += " " + k + "=" + std::to_string(v);
    if (!line.empty()) pr_info("final %s:%s", cs.scope.c_str(), line.c_str());
  }
  return {};
}

void Daemon::drainEvents() {
  using Clock = std::chrono::steady_clock;
  auto now = Clock::now();
  for (auto& w : workers_) {
    WorkerEvent e;
    for (int i = 0; i < 4096 && w->events().pop(&e); ++i) {
      std::string key =
          std::to_string(int(e.kind)) + "/" + std::to_string(e.port) + "/" + e.address.toString();
      auto it = recent_events_.find(key);
      if (it != recent_events_.end() && now - it->second < std::chrono::seconds(1)) {
        ++events_suppressed_;
        continue;
      }
      recent_events_[key] = now;
      ++events_delivered_;
      if (sink_) sink_(FastPathEvent{e.kind, e.port, e.address});
    }
  }
  if (recent_events_.size() > 65536) recent_events_.clear();  // bound the memory
}

void Daemon::adjustRtPriority() {
  if (config_.rt_priority != Config::kRtAuto || config_.idle_poll_us == 0 || config_.busy_poll)
    return;
  auto napis = findRtNapiThreads(config_.ports);
  for (auto& w : workers_) {
    int cpu = w->options().cpu;
    int want = 0;
    const RtNapiThread* above = nullptr;
    for (const auto& t : napis) {
      // An unpinned worker may share any CPU with the thread.
      if (cpu >= 0 && !CPU_ISSET(cpu, &t.cpus)) continue;
      if (t.priority + 1 > want) {
        want = std::min(t.priority + 1, 99);
        above = &t;
      }
    }
    // Adaptive: one below the NAPI thread while the RX rings have room (NAPI empties the
    // driver's ring, e.g. veth's 256 entries, into the AF_XDP ring at once: bursts are
    // absorbed there), one above it only while an RX ring is over 3/4 full.
    const int below =
        (above && config_.rt_adaptive && above->priority > 1) ? above->priority - 1 : 0;
    if (want == w->rtPriority() && below == w->rtBelow()) continue;
    if (auto st = w->setRtPriority(want, below); !st) {
      pr_warn("%s", st.error().message.c_str());
      continue;
    }
    if (above && below)
      pr_info(
          "worker %u: SCHED_FIFO %d, under %s (pid %d, priority %d) that shares its CPU, "
          "and %d (above it) while an RX ring is over 3/4 full: NAPI empties the driver's "
          "ring at once, the worker is not starved under overload (--rt-mode above: always "
          "above; --rt-priority 0: never real-time)",
          w->options().index, below, above->comm.c_str(), int(above->pid), above->priority, want);
    else if (above)
      pr_info(
          "worker %u: SCHED_FIFO %d, above %s (pid %d, priority %d) that shares its CPU: "
          "the worker is woken to drain its rings instead of being starved (--rt-priority 0 "
          "disables this)",
          w->options().index, want, above->comm.c_str(), int(above->pid), above->priority);
    else
      pr_info("worker %u: back to normal scheduling (no real-time NAPI thread on its CPU)",
              w->options().index);
  }
}

void Daemon::checkLinks() {
  bool changed = false;
  for (auto& p : ports_) {
    // A port whose name now resolves to no interface, or to another one, is gone for good:
    // its AF_XDP sockets were bound to the deleted device. It stays down; the others go on.
    const int ifindex = int(if_nametoindex(p.ifname.c_str()));
    if (ifindex == 0 && errno != ENODEV && errno != ENXIO) {
      // Not an answer about the interface (if_nametoindex needs a socket: EMFILE, ENFILE,
      // ENOBUFS): the port keeps its state and forwarding goes on; look again next time.
      pr_warn_ratelimited("port %u %s: cannot check it (%s); keeping its state", p.id,
                          p.ifname.c_str(), errnoText(errno).c_str());
      continue;
    }
    bool up = false;
    if (ifindex != p.ifindex) {
      if (!port_gone_[p.id]) {
        port_gone_[p.id] = true;
        pr_err(
            "port %u %s vanished (%s): frames routed to it are now counted drops "
            "(drop_port_down); the other ports keep forwarding; restart fastpathd to serve "
            "it again",
            p.id, p.ifname.c_str(),
            ifindex ? "replaced by another interface of that name"
                    : "deleted or moved to another namespace");
      }
    } else {
      auto now = readPortInfo(p.ifname, p.id);
      if (!now) continue;  // a transient ioctl failure: look again in a second
      up = now->up;
    }
    if (up == p.up) continue;
    p.up = up;
    changed = true;
    pr_info("port %u %s is %s", p.id, p.ifname.c_str(), p.up ? "up" : "down");
    ++events_delivered_;
    if (sink_)
      sink_(FastPathEvent{
          p.up ? FastPathEvent::Kind::kPortUp : FastPathEvent::Kind::kPortDown, p.id, {}});
  }
  if (!changed) return;
  // Routes through a down port become counted drops instead of frames stuck in its TX ring.
  std::vector<PortConfig> fib_ports = fib_->ports();
  for (auto& fp : fib_ports) fp.up = ports_[fp.id].up;
  if (auto st = fib_->setPorts(fib_ports); !st)
    pr_warn("ports: publishing up/down state failed: %s", st.error().message.c_str());
}

// ---- ControlBackend ----

Status Daemon::applyRoutes(const RouteBatch& batch) { return fib_->applyRoutes(batch); }
std::vector<Route> Daemon::routes() const { return fib_->routes(); }
Status Daemon::addNeighbour(const Neighbour& n) { return fib_->addNeighbour(n); }
Status Daemon::deleteNeighbour(const IpAddress& ip, PortId port) {
  return fib_->deleteNeighbour(ip, port);
}
std::vector<Neighbour> Daemon::neighbours() const { return fib_->neighbours(); }

Status Daemon::setControlRules(const std::vector<ControlRule>& rules) {
  for (auto& c : classifiers_)
    if (auto st = c->setRules(rules); !st) return st;
  std::vector<IpAddress> local;
  for (const auto& r : rules)
    if (r.kind == ControlRule::Kind::kLocalAddress) local.push_back(r.address);
  if (auto st = fib_->setLocalAddresses(local); !st) return st;
  rules_ = rules;
  return {};
}

std::vector<ControlRule> Daemon::controlRules() const { return rules_; }

std::vector<PortInfo> Daemon::ports() const {
  std::vector<PortInfo> out = ports_;
  for (auto& p : out) {
    if (port_gone_[p.id]) continue;  // stays down: its name may now be another interface
    auto now = readPortInfo(p.ifname, p.id);
    if (now) p.up = now->up;
  }
  return out;
}

Result<PortId> Daemon::portByName(const std::string& ifname) const {
  for (const auto& p : ports_)
    if (p.ifname == ifname) return p.id;
  return makeError(
      -ENODEV, "no port named " + ifname + " (fastpathd serves: " + [&] {
        std::string s;
        for (const auto& p : ports_) s += (s.empty() ? "" : ", ") + p.ifname;
        return s;
      }() + ")");
}

Result<int> Daemon::controlChannelFd(PortId port) {
  if (port >= channels_.size())
    return makeError(-ENODEV, "no port " + std::to_string(port) + " (there are " +
                                  std::to_string(channels_.size()) + ")");
  return channels_[port]->clientFd();
}

void Daemon::releaseControlChannel(PortId port) {
  if (port >= channels_.size()) return;
  channels_[port]->detach();
  pr_info(
      "port %u %s: its control client is gone; frames for it are counted drops "
      "(drop_no_control_client) until a client opens the channel again",
      port, channels_[port]->ifname().c_str());
}

void Daemon::setEventSink(std::function<void(const FastPathEvent&)> sink) {
  sink_ = std::move(sink);
}

std::vector<CounterSet> Daemon::stats() const {
  std::vector<CounterSet> out;
  for (const auto& p : ports_) {
    CounterSet cs;
    cs.scope = "port " + p.ifname;
    uint64_t rx = 0, rxb = 0, tx = 0, txb = 0, toc = 0, tocb = 0, ctx = 0, nometa = 0, kicks = 0,
             kick_err = 0;
    uint64_t verdict[FP_VERDICT_MAX] = {};
    uint64_t result[size_t(ForwardResult::kMax)] = {};
    uint64_t drop[size_t(WorkerDrop::kMax)] = {};
    xdp_statistics xs{};
    for (const auto& w : workers_) {
      const auto& c = w->portCounters(p.id);
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
      for (size_t i = 0; i < size_t(ForwardResult::kMax); ++i) result[i] += c.result[i].get();
      for (size_t i = 0; i < size_t(WorkerDrop::kMax); ++i) drop[i] += c.drop[i].get();
      if (auto st = w->socket(p.id).statistics(); st) {
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
    v.push_back({"xsk_rx_dropped", xs.rx_dropped});
    v.push_back({"xsk_rx_invalid_descs", xs.rx_invalid_descs});
    v.push_back({"xsk_tx_invalid_descs", xs.tx_invalid_descs});
    v.push_back({"xsk_rx_ring_full", xs.rx_ring_full});
    v.push_back({"xsk_fill_ring_empty", xs.rx_fill_ring_empty_descs});
    v.push_back({"xsk_tx_ring_empty", xs.tx_ring_empty_descs});
    if (p.id < channels_.size()) {
      const auto& ch = *channels_[p.id];
      v.push_back({"control_client_attached", ch.attached() ? 1u : 0u});
      v.push_back({"from_control", ch.from_client.load()});
      v.push_back({"from_control_bytes", ch.from_client_bytes.load()});
      v.push_back({"drop_ctrl_tx_queue_full", ch.drop_tx_queue_full.load()});
      v.push_back({"drop_ctrl_oversize", ch.drop_oversize.load()});
      v.push_back({"drop_ctrl_runt", ch.drop_runt.load()});
      v.push_back({"drop_ctrl_stale_at_attach", ch.drop_stale_at_attach.load()});
    }
    v.push_back({"punt_rate", config_.punt_rate});
    v.push_back({"punt_burst", config_.punt_burst});
    v.push_back({"xsk_zerocopy", p.xsk_mode == "zerocopy" ? 1u : 0u});
    if (!workers_.empty()) v.push_back({"xsk_tx_budget", workers_[0]->socket(p.id).txBudget()});
    out.push_back(std::move(cs));
  }
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
                   {"umem_frames", a.total},
                   {"frames_free", a.free},
                   {"frames_fill_ring", a.fill_ring},
                   {"frames_rx_ring", a.rx_ring},
                   {"frames_tx_ring", a.tx_ring},
                   {"frames_comp_ring", a.comp_ring},
                   {"frames_in_kernel", uint64_t(std::max<int64_t>(0, a.inKernel()))},
                   {"frames_held", a.held},
                   {"frames_balanced", a.balanced() ? 1u : 0u}};
    if (w->options().cpu >= 0)
      cs.counters.push_back({"cpu", uint64_t(w->options().cpu)});  // pinned
    out.push_back(std::move(cs));
  }
  for (const auto& c : classifiers_) {
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
  if (fib_) {
    auto fc = fib_->counters();
    out.push_back(CounterSet{"fib",
                             {{"routes_v4", fc.routes_v4},
                              {"routes_v6", fc.routes_v6},
                              {"next_hops", fc.next_hops},
                              {"neighbours", fc.neighbours},
                              {"batches_applied", fc.batches_applied},
                              {"batches_rejected", fc.batches_rejected},
                              {"route_updates", fc.route_updates},
                              {"sync_timeouts", fc.sync_timeouts}}});
  }
  out.push_back(
      CounterSet{"events", {{"delivered", events_delivered_}, {"suppressed", events_suppressed_}}});
  return out;
}

std::string Daemon::statsLine() {
  std::string s = "stats:";
  for (const auto& cs : stats()) {
    if (cs.scope.rfind("port ", 0) != 0) continue;
    uint64_t rx = 0, tx = 0, toc = 0, drops = 0;
    for (const auto& [k, v] : cs.counters) {
      if (k == "rx_packets")
        rx = v;
      else if (k == "tx_packets")
        tx = v;
      else if (k == "to_control")
        toc = v;
      else if (k.rfind("drop_", 0) == 0)
        drops += v;
    }
    s += " " + cs.scope.substr(5) + " rx=" + std::to_string(rx) + " tx=" + std::to_string(tx) +
         " ctrl=" + std::to_string(toc) + " drop=" + std::to_string(drops) + ";";
  }
  return s;
}

}  // namespace fastpath
