// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/daemon.h"

#include <net/if.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "daemon/daemon_internal.h"
#include "daemon/port_tuning.h"
#include "fastpath/log.h"

namespace fastpath {

Daemon::Daemon(Config config) : config_(std::move(config)) {}

Daemon::~Daemon() { shutdown(); }

Status Daemon::start() {
  if (auto st = validateConfig(config_); !st) return st;
  // Before the ports: a frame arriving on a port wakes a NAPI thread, and a timer the
  // worker, on CPUs that may be idle; the request keeps them quick to wake.
  if (config_.cpu_wake_latency_us != Config::kNoWakeLatencyRequest) {
    auto hold = CpuWakeLatency::hold(uint32_t(config_.cpu_wake_latency_us));
    if (!hold) return hold.error();
    wake_latency_.emplace(std::move(*hold));
    pr_info("CPU wake-up latency held at %d us on every CPU (%s) while fastpathd runs",
            config_.cpu_wake_latency_us, CpuWakeLatency::kDefaultPath);
  }
  // The wires first: their links' ports are interfaces the checks below look for. They
  // attach XDP programs: root and bpffs before them.
  if (!config_.cross_links.empty()) {
    if (geteuid() != 0)
      return makeError(-EPERM, "fastpathd must run as root for links between hosts (it makes "
                               "veth pairs and attaches XDP programs): run it with sudo");
    if (auto st = checkBpffs(config_.mount_bpffs); !st) return st;
  }
  auto wires = Wires::open(config_);
  if (!wires) return wires.error();
  wires_ = std::move(*wires);
  if (auto st = checkPrerequisites(config_); !st) {
    wires_.reset();
    return st;
  }
  // Hosts a killed fastpathd of this socket and namespace left behind go first.
  host_state_ = std::make_unique<HostState>(config_.control_socket);
  bool live = false;
  if (const size_t n = host_state_->removeStale(&live); n)
    pr_info("removed %zu host(s) a previous fastpathd left (%s)", n, host_state_->path().c_str());
  if (live) wires_.reset();
  if (live)
    return makeError(-EBUSY, "another fastpathd with control socket " + config_.control_socket +
                                 " runs in this network namespace (its hosts are in " +
                                 host_state_->path() + "): stop it or use another --socket");
  if (config_.tune_ports) {
    PortTuningOptions to;
    to.ifnames = config_.ports;
    for (const auto& tn : config_.topology.nodes)
      to.ifnames.insert(to.ifnames.end(), tn.interfaces.begin(), tn.interfaces.end());
    // A VLAN device has no NAPI of its own: nothing to tune.
    for (const auto& dev : wires_->devices())
      to.ifnames.erase(std::remove(to.ifnames.begin(), to.ifnames.end(), dev), to.ifnames.end());
    to.cpus = config_.cores;
    to.napi_priority = config_.napiRtPriority();
    to.control_socket = config_.control_socket;
    auto t = PortTuning::apply(to);
    if (!t) {
      wires_.reset();
      return t.error();
    }
    port_tuning_ = std::move(*t);
  }
  for (auto step : {&Daemon::startPorts, &Daemon::startWorkers, &Daemon::startTopology,
                    &Daemon::startCrossHostLinks}) {
    if (auto st = (this->*step)(); !st) {
      shutdown();
      return st;
    }
  }
  // The ports' NAPI instances (veth: only with XDP) exist now.
  if (port_tuning_) port_tuning_->tune();
  started_ = true;
  return {};
}

Status Daemon::startPorts() {
  net_.ports.clear();
  auto def = addNode(NodeSpec{kDefaultNodeName, "local"});
  if (!def) return def.error();
  net_.default_node = *def;
  for (const auto& tn : config_.topology.nodes)
    if (tn.spec.name != kDefaultNodeName)
      if (auto n = addNode(tn.spec); !n) return n.error();
  // Interface ports: the --port ones (the default node's) first, then each node's.
  std::vector<std::pair<std::string, Node*>> interfaces;
  for (const auto& name : config_.ports) interfaces.push_back({name, net_.default_node});
  for (const auto& tn : config_.topology.nodes)
    for (const auto& name : tn.interfaces) interfaces.push_back({name, net_.findNode(tn.spec.name)});
  if (interfaces.size() > kMaxInterfacePorts)
    return makeError(-ENOSPC, std::to_string(interfaces.size()) + " interface ports; at most " +
                                  std::to_string(kMaxInterfacePorts));
  std::map<Node*, std::vector<PortConfig>> fib_ports;
  for (size_t i = 0; i < interfaces.size(); ++i) {
    auto p = readPortInfo(interfaces[i].first, PortId(i));
    if (!p) return p.error();
    p->queues = config_.queues;
    p->node = interfaces[i].second->name();
    auto port = std::make_unique<InterfacePort>();
    port->info = *p;
    port->node = interfaces[i].second;
    net_.ports.push_back(std::move(port));
    interfaces[i].second->addPort(PortId(i));
    fib_ports[interfaces[i].second].push_back(PortConfig{PortId(i), p->mac, p->mtu, p->up});
  }
  for (auto& [node, ports] : fib_ports)
    if (auto st = node->fib().setPorts(ports); !st) return st;
  if (auto st = staticEntries(*net_.default_node, config_.routes, config_.neighbours); !st) return st;
  for (auto& port : net_.ports) {
    if (auto st = openInterfacePort(*port); !st) return st;
    const PortInfo& p = port->info;
    pr_info("port %u %s: classifier attached (%s XDP), MAC %s, MTU %u, node %s", p.id,
            p.ifname.c_str(), p.xdp_mode.c_str(), p.mac.toString().c_str(), p.mtu,
            p.node.c_str());
  }
  return {};
}

Status Daemon::openInterfacePort(InterfacePort& port) {
  ClassifierOptions co;
  co.ifname = port.info.ifname;
  co.allow_generic = config_.xdp_mode != "native";
  co.no_xsk_policy = config_.no_xsk_drop ? FP_NO_XSK_DROP : FP_NO_XSK_PASS;
  auto c = Classifier::attach(co);
  if (!c) return c.error();
  // A node's rules apply to every port it gets (none yet at start).
  if (auto st = (*c)->setRules(port.node->controlRules()); !st) return st;
  port.info.xdp_mode = (*c)->mode();
  auto ch = ControlChannel::create(port.info.id, port.info.ifname);
  if (!ch) return ch.error();
  port.classifier = std::move(*c);
  port.channel = std::move(*ch);
  return {};
}

XskOptions Daemon::xskOptions(const std::string& ifname, uint32_t queue, XskMode mode,
                              const Classifier& classifier) const {
  XskOptions xo;
  xo.ifname = ifname;
  xo.queue = queue;
  xo.rx_size = config_.ring_size;
  xo.tx_size = config_.ring_size;
  xo.mode = mode;
  xo.busy_poll = config_.busy_poll;
  xo.busy_poll_budget = config_.batch_size;
  xo.xsks_map_fd = classifier.xsksMapFd();
  return xo;
}

Status Daemon::staticEntries(Node& node, const std::vector<RouteConfig>& routes,
                             const std::vector<NeighbourConfig>& neighbours) {
  // Neighbours first so the routes are resolved when they appear.
  for (const auto& n : neighbours) {
    auto port = node.portByName(n.dev);
    if (!port) return port.error();
    if (auto st = node.addNeighbour(Neighbour{n.ip, *port, n.mac}); !st)
      return makeError(st.error().code,
                       "static neighbour " + n.ip.toString() + ": " + st.error().message);
  }
  if (routes.empty()) return {};
  RouteBatch batch;
  for (const auto& r : routes) {
    auto port = node.portByName(r.dev);
    if (!port) return port.error();
    batch.add.push_back(Route{r.prefix, r.via, *port, r.metric});
  }
  if (auto st = node.applyRoutes(batch); !st)
    return makeError(st.error().code, "static routes: " + st.error().message);
  return {};
}

Status Daemon::startWorkers() {
  const uint32_t np = uint32_t(net_.ports.size());
  XskMode mode = config_.xsk_mode;
  if (mode == XskMode::kAuto && np) {
    mode = xskZeroCopySupported(net_.ports[0]->info.ifname, 0) ? XskMode::kZeroCopy : XskMode::kCopy;
  }
  std::vector<ControlChannel*> channels;
  for (auto& p : net_.ports) channels.push_back(p->channel.get());
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
      InterfacePort& port = *net_.ports[p];
      auto s = XskSocket::create(**umem, xskOptions(port.info.ifname, w, mode, *port.classifier));
      if (!s) return s.error();
      port.info.xsk_mode = (*s)->modeName();
      sockets.push_back(std::move(*s));
    }
    WorkerOptions wo;
    wo.index = w;
    wo.queue = w;
    wo.cpu = config_.cores.empty() ? -1 : config_.cores[w];
    wo.batch_size = config_.batch_size;
    wo.idle_poll_us = config_.idle_poll_us;
    wo.idle_spin_ns = config_.idle_spin_us * 1000;
    wo.rx_budget_us = config_.rx_budget_us;
    wo.rt_priority = std::max(config_.rt_priority, 0);
    wo.rt_guard = config_.rt_guard;
    wo.busy_poll = config_.busy_poll;
    wo.punt_to_control = config_.punt_to_control;
    // Each worker limits its own queue: the port's rate and burst are shared out.
    wo.punt_rate = config_.punt_rate / config_.queues;
    wo.punt_burst = std::max<uint64_t>(1, config_.punt_burst / config_.queues);
    wo.max_ports = kMaxPorts;
    // No interface port at start: the UMEM's own socket is bound to lo (copy mode, never
    // served), so that interfaces attached and detached later each get a socket of their
    // own (libxdp hands the UMEM's fd to the first socket, and it can be bound only once).
    std::unique_ptr<XskSocket> anchor;
    if (np == 0) {
      XskOptions xo;
      xo.ifname = "lo";
      xo.queue = 0;
      xo.rx_size = 64;
      xo.tx_size = 64;
      xo.mode = XskMode::kCopy;
      auto s = XskSocket::create(**umem, xo);
      if (s)
        anchor = std::move(*s);
      else
        pr_warn("worker %u: binding the UMEM to lo failed (%s); an interface attached at run "
                "time and detached leaves its worker unable to attach another",
                w, s.error().message.c_str());
    }
    auto worker = std::make_unique<Worker>(wo, std::move(*umem), std::move(sockets), channels,
                                           net_.default_node->fib().view(), epoch_);
    if (anchor) worker->keepAnchor(std::move(anchor));
    for (uint32_t p = 0; p < np; ++p) worker->setPortFib(p, &net_.ports[p]->node->fib().view());
    workers_.push_back(std::move(worker));
  }
  link_tables_.resize(workers_.size());
  // Client frames of a port are transmitted by worker 0 (queue 0 of every port): one
  // producer per TX ring.
  std::vector<ControlRelay::Route> routes;
  for (auto& p : net_.ports)
    routes.push_back({p->channel.get(), &workers_[0]->controlTxQueue(), workers_[0]->wakeFd()});
  relay_ = std::make_unique<ControlRelay>(routes);
  if (auto st = relay_->start(); !st) return st;
  for (auto& w : workers_)
    if (auto st = w->start(); !st) return st;
  if (np)
    pr_info(
        "fastpathd: %u port(s), %u worker(s), AF_XDP %s mode (%u frames per TX kick), "
        "batch %u, %u UMEM frames/worker",
        np, config_.queues, net_.ports[0]->info.xsk_mode.c_str(), workers_[0]->socket(0).txBudget(),
        config_.batch_size, config_.effectiveUmemFrames());
  else
    pr_info("fastpathd: no interface port, %u worker(s), batch %u, %u UMEM frames/worker",
            config_.queues, config_.batch_size, config_.effectiveUmemFrames());
  return {};
}

Status Daemon::startTopology() {
  for (const auto& tl : config_.topology.links)
    if (auto st = createLink(tl.spec); !st)
      return makeError(st.error().code, config_.topology_file + ":" + std::to_string(tl.line) +
                                            ": " + st.error().message);
  for (const auto& ts : config_.topology.segments)
    if (auto st = createSegment(ts.spec); !st)
      return makeError(st.error().code, config_.topology_file + ":" + std::to_string(ts.line) +
                                            ": " + st.error().message);
  for (const auto& tb : config_.topology.bridges)
    if (auto st = createBridge(tb.spec); !st)
      return makeError(st.error().code, config_.topology_file + ":" + std::to_string(tb.line) +
                                            ": " + st.error().message);
  for (const auto& tm : config_.topology.media)
    if (auto st = createMedium(tm.spec); !st)
      return makeError(st.error().code, config_.topology_file + ":" + std::to_string(tm.line) +
                                            ": " + st.error().message);
  for (const auto& tn : config_.topology.nodes)
    if (auto st = staticEntries(*net_.findNode(tn.spec.name), tn.routes, tn.neighbours); !st)
      return makeError(st.error().code, config_.topology_file + ":" + std::to_string(tn.line) +
                                            ": " + st.error().message);
  if (net_.nodes.size() > 1 || !net_.links.empty()) {
    // Placement: a frame stays on the worker whose queue received it, through every
    // node and link it crosses; every worker serves every node.
    pr_info("fastpathd: %zu node(s), %zu link(s), %zu interface port(s); served by %zu worker(s)",
            net_.nodes.size(), net_.links.size(), net_.ports.size(), workers_.size());
  }
  return {};
}

void Daemon::shutdown() {
  for (auto& w : workers_) w->stop();
  if (relay_) relay_->stop();
  relay_.reset();
  workers_.clear();      // closes the AF_XDP sockets, then frees the UMEMs
  captures_.clear();     // no worker copies into their rings any more
  capture_tables_.clear();
  port_tuning_.reset();  // restores the ports' settings while their NAPIs exist (XDP on)
  wake_latency_.reset();  // no frames or timers to wake for any more
  // Each port: its own tuning restored, XDP detached, its channel closed (in that order);
  // then links, segments and nodes.
  net_.clear();
  link_tables_.clear();
  resources_.clear();
  // Hosts last: their veths were ports until now.
  for (const auto& [name, h] : net_.hosts) {
    unmakeHost(h.record);
    pr_info("host %s removed (fastpathd stops): namespace %s, veth %s", name.c_str(),
            h.record.netns.c_str(), h.record.veth.c_str());
  }
  net_.hosts.clear();
  if (host_state_) (void)host_state_->write({});
  wires_.reset();  // the VLAN devices were ports until now
  started_ = false;
}

Status Daemon::startCrossHostLinks() {
  for (const auto& [dev, params] : wires_->egress()) {
    for (const auto& p : net_.ports) {
      if (!p || p->info.ifname != dev) continue;
      if (auto st = applyPortParams(p->info.id, params); !st) return st;
    }
  }
  return {};
}

Status Daemon::run(const std::atomic<bool>& stop, const ControlPoll& poll_control) {
  using Clock = std::chrono::steady_clock;
  auto next_stats = Clock::now() + std::chrono::seconds(config_.stats_interval_s);
  auto next_link_check = Clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    poll_control(50);
    drainEvents();
    if (wires_) wires_->followUnderlay();  // a VXLAN wire's next hop, as the kernel changes it
    if (Clock::now() >= next_link_check) {
      checkLinks();
      checkEmulationLateness();
      checkRtStalls();
      adjustRtPriority();
      next_link_check = Clock::now() + std::chrono::seconds(1);
    }
    if (config_.stats_interval_s && Clock::now() >= next_stats) {
      pr_info("%s", statsLine().c_str());
      next_stats += std::chrono::seconds(config_.stats_interval_s);
    }
  }
  // Final counters, non-zero only: what happened during the run, for logs and benchmarks.
  std::vector<CounterSet> sets;
  for (const auto& [name, node] : net_.nodes)
    for (auto& cs : node->stats())
      if (name == kDefaultNodeName || cs.scope.rfind("port ", 0) == 0 || cs.scope == "fib")
        sets.push_back(CounterSet{name == kDefaultNodeName ? cs.scope : name + " " + cs.scope,
                                  std::move(cs.counters)});
  for (const auto& cs : sets) {
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
      if (e.kind == FastPathEvent::Kind::kMediumRetryLimit) {
        // Each is a frame the medium dropped after its tries (bounded by airtime): all are
        // passed on, as ns-3's MAC reports each one.
        ++events_delivered_;
        FastPathEvent out{e.kind, e.port, e.address, 0, net_.portNodeName(e.port), e.mac};
        if (sink_) sink_(out);
        continue;
      }
      std::string key =
          std::to_string(int(e.kind)) + "/" + std::to_string(e.port) + "/" + e.address.toString();
      auto it = recent_events_.find(key);
      if (it != recent_events_.end() && now - it->second < std::chrono::seconds(1)) {
        ++events_suppressed_;
        continue;
      }
      recent_events_[key] = now;
      ++events_delivered_;
      if (sink_) sink_(FastPathEvent{e.kind, e.port, e.address, 0, net_.portNodeName(e.port), {}});
    }
  }
  if (recent_events_.size() > 65536) recent_events_.clear();  // bound the memory
}

void Daemon::adjustRtPriority() {
  if (config_.rt_priority == 0 || config_.idle_poll_us == 0 || config_.busy_poll) return;
  // Only the NAPI threads of the daemon's interface ports count: --port, the topology's
  // interfaces and those attached at run time (hosts).
  std::vector<std::string> ifnames = config_.ports;
  for (const auto& p : net_.ports)
    if (p && !p->gone &&
        std::find(ifnames.begin(), ifnames.end(), p->info.ifname) == ifnames.end())
      ifnames.push_back(p->info.ifname);
  auto napis = findPortNapiThreads(ifnames);
  // The real-time NAPI threads pinned to a worker's CPU spend the kernel's real-time
  // budget of that CPU with the worker (its RtBudgetGuard counts them).
  for (auto& w : workers_) {
    std::vector<int> peers;
    const int cpu = w->options().cpu;
    for (const auto& t : napis)
      if (cpu >= 0 && t.realtime && CPU_COUNT(&t.cpus) == 1 && CPU_ISSET(cpu, &t.cpus))
        peers.push_back(int(t.pid));
    w->setRtPeers(peers);
  }
  if (config_.rt_priority != Config::kRtAuto) return;
  // A worker timing emulated links sleeps until just before each arrival: a normal
  // thread's wake-up waits behind whatever runs on its CPU, on a PREEMPT_NONE kernel up to
  // a scheduler tick (4 ms at 250 Hz), on every hop. Real-time, it runs when its timer
  // fires; it spins only its wake margin before an arrival (WakeMargin, tens of
  // microseconds), so it does not take the CPU from the scenario.
  const bool emulating = emulates();
  rt_refused_.resize(workers_.size(), -1);
  for (auto& w : workers_) {
    int cpu = w->options().cpu;
    int want = 0;
    const PortNapiThread* above = nullptr;
    for (const auto& t : napis) {
      // An unpinned worker may share any CPU with the thread.
      if (cpu >= 0 && !CPU_ISSET(cpu, &t.cpus)) continue;
      // A NAPI thread under the normal policy counts as priority 0: the worker goes to
      // SCHED_FIFO 1. Sharing the CPU fairly with it, the worker would wait a time slice
      // (milliseconds) behind NAPI after each wake-up while NAPI fills its rings, and
      // under overload get only half the CPU while NAPI copies in frames that are then
      // dropped for want of room; above it, the worker forwards each NAPI batch at once
      // and sleeps, handing the CPU back, so NAPI works only for frames that get out.
      if (t.priority + 1 > want) {
        want = std::min(t.priority + 1, 99);
        above = &t;
      }
    }
    // Adaptive: one below a real-time NAPI thread while the RX rings have room (NAPI
    // empties the driver's ring, e.g. veth's 256 entries, into the AF_XDP ring at once:
    // bursts are absorbed there), one above it only while an RX ring is over 3/4 full.
    // Under a normal NAPI thread there is no "below": it would be the fair sharing above.
    const int below =
        (above && above->realtime && config_.rt_adaptive && above->priority > 1)
            ? above->priority - 1
            : 0;
    if (!above && emulating) want = kEmulationRtPriority;
    if (want == w->rtPriority() && below == w->rtBelow()) continue;
    int& refused = rt_refused_[w->options().index];
    if (want == refused) continue;  // said once; asked again when the wish changes
    if (auto st = w->setRtPriority(want, below); !st) {
      refused = want;
      if (emulating && !above)
        pr_warn("%s: emulated links are timed by a normal thread, whose wake-ups can come a "
                "scheduler tick late when its CPU is shared (see emu_wake_late_* in the "
                "worker's counters); run fastpathd with CAP_SYS_NICE or give the worker a "
                "CPU of its own (--cores)",
                st.error().message.c_str());
      else
        pr_warn("%s", st.error().message.c_str());
      continue;
    }
    refused = -1;
    if (above && below)
      pr_info(
          "worker %u: SCHED_FIFO %d, under %s (pid %d, priority %d) that shares its CPU, "
          "and %d (above it) while an RX ring is over 3/4 full: NAPI empties the driver's "
          "ring at once, the worker is not starved under overload (--rt-mode above: always "
          "above; --rt-priority 0: never real-time)",
          w->options().index, below, above->comm.c_str(), int(above->pid), above->priority, want);
    else if (above && !above->realtime)
      pr_info(
          "worker %u: SCHED_FIFO %d, above %s (pid %d, normal scheduling) that shares its "
          "CPU: the worker forwards what NAPI receives as it lands instead of waiting a "
          "time slice behind it (--rt-priority 0 disables this)",
          w->options().index, want, above->comm.c_str(), int(above->pid));
    else if (above)
      pr_info(
          "worker %u: SCHED_FIFO %d, above %s (pid %d, priority %d) that shares its CPU: "
          "the worker is woken to drain its rings instead of being starved (--rt-priority 0 "
          "disables this)",
          w->options().index, want, above->comm.c_str(), int(above->pid), above->priority);
    else if (want)
      pr_info("worker %u: SCHED_FIFO %d: it times emulated links, and a normal thread's "
              "wake-ups wait behind what runs on its CPU (--rt-priority 0 disables this)",
              w->options().index, want);
    else
      pr_info("worker %u: back to normal scheduling (no threaded NAPI of its ports on its "
              "CPU, no emulated link)",
              w->options().index);
  }
}

void Daemon::checkLinks() {
  // Ports attached at run time whose interface vanished are detached (a host's veth: the
  // host goes); the id is free again.
  std::vector<PortId> vanished;
  for (PortId id = 0; id < net_.ports.size(); ++id) {
    if (!net_.portAttached(id) || !net_.ports[id]->runtime) continue;
    errno = 0;
    const int ifindex = int(if_nametoindex(net_.ports[id]->info.ifname.c_str()));
    if (ifindex == 0 && errno != ENODEV && errno != ENXIO) continue;  // no answer: next time
    if (ifindex != net_.ports[id]->info.ifindex) vanished.push_back(id);
  }
  for (PortId id : vanished) {
    std::string host;
    for (const auto& [name, h] : net_.hosts)
      if (h.info.port_id == id) host = name;
    pr_warn("port %u %s vanished; detaching it", id, net_.ports[id]->info.ifname.c_str());
    if (!host.empty())
      removeHost(host, "lost its veth");
    else
      detachPort(id, "detached (its interface vanished)");
  }
  for (PortId id = 0; id < net_.ports.size(); ++id) {
    if (!net_.portAttached(id)) continue;
    InterfacePort& port = *net_.ports[id];
    PortInfo& p = port.info;
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
      if (!port.gone) {
        port.gone = true;
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
    pr_info("port %u %s is %s", p.id, p.ifname.c_str(), p.up ? "up" : "down");
    emitPortEvent(p.id, p.up);
    // Routes through a down port become counted drops instead of frames stuck in its TX ring.
    if (auto st = port.node->setPortUp(p.id, p.up); !st)
      pr_warn("ports: publishing up/down state failed: %s", st.error().message.c_str());
  }
}

void Daemon::setEventSink(std::function<void(const FastPathEvent&)> sink) {
  sink_ = std::move(sink);
}

std::string Daemon::statsLine() {
  std::string s = "stats:";
  std::vector<CounterSet> sets;
  for (const auto& [name, node] : net_.nodes)
    for (PortId p : node->portIds())
      sets.push_back(portCounters(
          p, (name == kDefaultNodeName ? "" : name + "/") + portInfo(p).ifname));
  for (const auto& cs : sets) {
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
