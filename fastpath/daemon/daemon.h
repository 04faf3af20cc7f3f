// SPDX-License-Identifier: GPL-2.0-only
// fastpathd's data plane as a class: brings up the classifier, the forwarding table, the
// control-frame channels and the workers for a validated Config, implements TopologyControl
// (what the control socket's server calls; each Node is a NodeControl), and tears
// everything down in reverse order.
// The program (fastpathd/main.cc) pairs it with ctrl-bridge's server; tests link it alone.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/capture.h"
#include "daemon/config.h"
#include "daemon/cpu_wake_latency.h"
#include "daemon/hosts.h"
#include "daemon/link_resources.h"
#include "daemon/network.h"
#include "daemon/wires.h"
#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"
#include "fastpath/monotonic_clock.h"
#include "fastpath/userspace_classifier.h"
#include "link/link_ports.h"
#include "table/fib_manager.h"
#include "worker/control_channel.h"
#include "worker/worker.h"

namespace fastpath {

/// Checks what fastpathd needs before anything is touched: root, bpffs (mounted when
/// missing and allowed), every port present, enough queues. Clear message on failure.
Status checkPrerequisites(const Config& config);

/// The data plane of one fastpathd: nodes (forwarding contexts, "default" always exists),
/// their interface ports and the links between them, served by the workers. node(NAME)
/// gives a node's control plane; defaultNode() the one a client that names none talks to.
class Daemon : public TopologyControl {
 public:
  explicit Daemon(Config config);
  ~Daemon() override;
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// Validates the configuration and prerequisites, then attaches the classifier to every
  /// port, installs static routes/neighbours, creates channels, sockets and workers, and
  /// starts forwarding. On error everything already done is undone.
  Status start();
  /// Stops workers and the relay, closes sockets, detaches XDP. Idempotent.
  void shutdown();
  /// Waits up to `timeout_ms` for control-plane work and does it (fastpathd passes its
  /// control socket's server; a test may pass a plain sleep).
  using ControlPoll = std::function<void(int timeout_ms)>;
  /// The control thread's loop until `stop` becomes true: calls `poll_control`, drains
  /// worker events, checks links and logs stats if asked, then logs the final counters.
  Status run(const std::atomic<bool>& stop, const ControlPoll& poll_control);
  /// Moves worker events to the event sink (deduplicated: one event per key per second).
  void drainEvents();
  /// Emits port up/down events when a port's IFF_UP flag changed or its interface vanished
  /// (run() does it every second), and publishes the state to the FIB: routes through a
  /// down port become counted drops (drop_port_down).
  void checkLinks();
  /// --rt-priority auto: puts each worker one priority above a real-time NAPI thread of a
  /// served port that can run on its CPU; with none, at kEmulationRtPriority while the
  /// daemon emulates links or radio media (its wake-ups time the frames), else back to
  /// normal.
  void adjustRtPriority();
  /// SCHED_FIFO priority of workers timing emulated links (--rt-priority auto, no
  /// real-time NAPI thread on their CPU): the lowest, above every normal thread only.
  static constexpr int kEmulationRtPriority = 1;
  /// One line of counters (the --stats-interval output).
  std::string statsLine();

  // TopologyControl: the nodes, links, segments, interfaces and hosts.
  void setEventSink(std::function<void(const FastPathEvent&)> sink) override;
  Result<NodeControl*> node(const std::string& name) override;
  Status createNode(const NodeSpec& spec) override;
  Status deleteNode(const std::string& name) override;
  std::vector<NodeInfo> nodes() const override;
  Status createLink(const LinkSpec& spec) override;
  Status deleteLink(const std::string& name) override;
  Status setLinkState(const std::string& name, bool up, const std::string& node = "") override;
  Status setLinkParams(const std::string& name, LinkDirection direction,
                       const LinkParams& params) override;
  std::vector<LinkInfo> links() const override;
  Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname) override;
  Status detachInterface(const std::string& node, const std::string& ifname) override;
  /// The attach policy (attach_policy.h) with --attachable and the interfaces of the
  /// start (--port, topology) and of the hosts.
  Status mayAttachInterface(const std::string& ifname, bool root) const override;
  Result<HostInfo> createHost(const HostSpec& spec) override;
  Status deleteHost(const std::string& name) override;
  std::vector<HostInfo> hosts() const override;
  Result<CaptureInfo> startCapture(const CaptureSpec& spec) override;
  CaptureCounters readCapture(uint64_t id, std::vector<CapturedFrame>* out, size_t max) override;
  void stopCapture(uint64_t id) override;
  Status createSegment(const SegmentSpec& spec) override;
  Status deleteSegment(const std::string& name) override;
  Status setSegmentState(const std::string& name, bool up, const std::string& node = "") override;
  Status setSegmentParams(const std::string& name, const LinkParams& params) override;
  std::vector<SegmentInfo> segments() const override;
  /// Learning bridges over segment ports (daemon_bridges.cc).
  std::vector<BridgeInfo> bridges() const override;
  Status createBridge(const BridgeSpec& spec) override;
  Status deleteBridge(const std::string& name) override;
  /// Since when the histograms and maxima count; zeroing them in every worker
  /// (daemon_counters.cc).
  StatsEpoch statsEpoch() const override { return stats_epoch_; }
  Result<StatsEpoch> resetStats() override;
  /// Radio media (daemon_media.cc).
  std::vector<MediumInfo> media(const std::string& name = "") const override;
  Status createMedium(const MediumSpec& spec) override;
  Status deleteMedium(const std::string& name) override;
  Status updateMedium(const std::string& name, const MediumUpdate& update) override;
  /// A run over several hosts declared over the socket (daemon_cross_links.cc).
  Result<MultiHostInfo> declareMultiHost(const MultiHostDeclaration& d) override;
  Result<CrossLinkInfo> createCrossLink(const CrossLinkSpec& spec) override;
  Status deleteCrossLink(const std::string& name) override;
  MultiHostInfo multiHost() const override;
  /// A cross-host link's end given SetLinkParams or SetLinkState by its link's name: the
  /// direction this host sends (the other is the peer host's), its port's state.
  Status setCrossLinkParams(const std::string& name, LinkDirection direction,
                            const LinkParams& params);
  Status setCrossLinkState(const std::string& name, bool up);
  /// The attached port of a cross-host link's end.
  Result<PortId> crossLinkPort(const CrossHostLink& x) const;

  // For the nodes: what a Node does with its ports (daemon-wide resources).
  Node* findNode(const std::string& name) const { return net_.findNode(name); }
  Node& defaultNode() { return *net_.default_node; }
  /// The port as it is now (interface: flags read again), with its node and link.
  PortInfo portInfo(PortId port) const;
  /// The port's counters (all workers), scope "port <scope_name>".
  CounterSet portCounters(PortId port, const std::string& scope_name) const;
  /// Daemon-wide sets: workers, events (the default node's stats include them).
  std::vector<CounterSet> daemonCounters() const;
  /// The node's rules on its interface ports' classifiers and link ports' twins.
  Status applyNodeRules(Node& node, const std::vector<ControlRule>& rules);
  Result<int> portChannelFd(PortId port, const ControlChannelTiming& timing = {});
  /// Emulation of an interface port's egress.
  Status applyPortParams(PortId port, const LinkParams& params);
  void releasePortChannel(PortId port);

  // For tests and the stats line.
  const Config& config() const { return config_; }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  FibManager& fib() { return net_.default_node->fib(); }
  uint64_t eventsDelivered() const { return events_delivered_; }
  uint64_t eventsSuppressed() const { return events_suppressed_; }

 private:
  Status startPorts();
  Status startWorkers();
  /// Links, then the topology file's routes and neighbours (after the workers exist).
  Status startTopology();
  Result<Node*> addNode(const NodeSpec& spec);
  Status staticEntries(Node& node, const std::vector<RouteConfig>& routes,
                       const std::vector<NeighbourConfig>& neighbours);
  Result<std::unique_ptr<UserspaceClassifier>> linkClassifier(const MacAddress& mac,
                                                             const std::vector<ControlRule>& rules);
  /// A link's, segment's or medium's name: valid, unused by any, within kMaxLinks. `kind`
  /// is "link", "segment" or "medium".
  Status checkMediumName(const std::string& kind, const std::string& name) const;
  /// The checks a link end and a segment port share: its node exists, its name (empty:
  /// `default_name`) is valid and free in the node, its MTU fits the frames, its MAC (zero:
  /// generated later) is unicast. `at` names the end in messages.
  Result<Node*> checkLinkPortSpec(const std::string& what, const std::string& at,
                                  const std::string& node, std::string& port,
                                  const std::string& default_name, uint32_t mtu,
                                  const MacAddress& mac);
  /// The one path that makes the ports of a link (two, each the other's peer) or of a
  /// segment (each its own peer) once their specs are checked: port ids, classifier twins,
  /// the nodes' tables, queues, the nodes' port lists. All or nothing. The ids, in order.
  Result<std::vector<PortId>> addLinkPorts(const std::string& what, std::vector<LinkPort> ports);
  /// Takes a link or segment port out of its node (routes and neighbours through it, the
  /// node's table, its channel, its queues and own shapers retired) and forgets it.
  void removeLinkPort(PortId id, const std::string& what);
  /// Takes `node`'s port out of segment `seg` (node deleted); the segment goes when it
  /// has no port left.
  void detachFromSegment(const std::string& seg, PortId id);
  /// Forgets bridge `name`: new link tables without it published, then its tables freed.
  void removeBridge(const std::string& name);
  /// Gives every worker a new link port table, waits for the workers to take it
  /// (epoch), recycles queues they drained.
  void publishLinkTables();
  /// Gives the port's direction these parameters: shapers created, updated in place, or
  /// replaced by larger ones (their frames move over in the worker).
  void applyLinkParams(const std::string& link, LinkPort& port, const LinkParams& params);
  /// One shaper per worker for `params` (LinkResources::applyShaping).
  void applyShaping(std::vector<LinkShaper*>& shapers, const std::string& seed_name,
                    const LinkParams& params,
                    LinkShaper::Medium medium = LinkShaper::Medium::kPointToPoint) {
    resources_.applyShaping(shapers, workers_.size(), seed_name, params, medium);
  }
  LinkDirectionStats shaperStats(const std::vector<LinkShaper*>& shapers) const;
  LinkDirectionStats directionStats(const LinkPort& port) const;
  /// Warns when a worker released emulated frames late (every second, from run()).
  void checkEmulationLateness();
  /// Warns once per worker when the kernel's real-time throttling stopped it, with the
  /// remedy (daemon_emulation.cc).
  void checkRtStalls();
  /// Some link, segment or interface egress is emulated (has shapers), or a radio medium
  /// exists (it times every frame it carries).
  bool emulates() const;
  void emitPortEvent(PortId port, bool up);
  /// Gives every worker a new capture table (the taps of every open capture), then waits
  /// for the workers to take it (epoch) (daemon_captures.cc).
  void publishCaptureTables();
  /// "captures" (open, and frames lost by captures since the start) and one set per open
  /// capture ("capture ID": captured, dropped_reader_slow, delivered).
  void captureCounters(std::vector<CounterSet>& out) const;
  /// What start-up and run-time attach both do for an interface port: the XDP classifier
  /// (with the node's rules) and the control channel.
  Status openInterfacePort(InterfacePort& port);
  /// The AF_XDP socket options of `ifname`'s queue `queue` (start-up and attach alike).
  XskOptions xskOptions(const std::string& ifname, uint32_t queue, XskMode mode,
                        const Classifier& classifier) const;
  /// Interface ports at run time (daemon_interfaces.cc).
  Result<PortInfo> attachPort(Node& node, const std::string& ifname);
  /// Takes an interface port out of its node and the workers: routes and neighbours
  /// through it, emulated egress, classifier (tuning restored first), sockets (frames
  /// taken back), channel; logs its final counters. The id becomes reusable.
  void detachPort(PortId port, const std::string& why);
  /// Routes and neighbours of `node` through `port`, and the port in its table.
  void removeFromNodeTable(Node& node, PortId port, const std::string& what);
  void removeHost(const std::string& name, const std::string& why);
  void writeHostState();
  /// The cross-host links of `node` made over the socket (with the node).
  void removeCrossLinksOf(const std::string& node);

  Config config_;
  EpochDomain epoch_;  ///< one domain for every node's table and the link tables
  Network net_;  ///< nodes, ports, links, segments, hosts
  LinkResources resources_{epoch_};  ///< queues and shapers of links, segments, egresses
  StatsEpoch stats_epoch_{realtimeNowNs(), 0, 0};  ///< the daemon's start, then resets
  std::vector<uint64_t> late_frames_seen_;  ///< per worker, at the last lateness check
  std::vector<uint64_t> late_on_arrival_seen_;  ///< per worker, likewise
  std::vector<uint8_t> rt_stall_warned_;  ///< per worker: throttling reported
  std::vector<int> rt_refused_;  ///< per worker: the priority last refused (warned once), or -1
  std::vector<std::unique_ptr<LinkPortTable>> link_tables_;      ///< per worker, in use
  uint64_t link_table_version_ = 0;
  /// Models of deleted media, freed once every worker gave their frames back.
  /// (worker, model): each worker gives back the frames of its own model.
  std::vector<std::pair<size_t, std::unique_ptr<medium::RadioMedium>>> retired_media_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::map<uint64_t, std::unique_ptr<PacketCapture>> captures_;  ///< open captures, by id
  std::vector<std::unique_ptr<CaptureTable>> capture_tables_;  ///< per worker, in use
  uint64_t capture_table_version_ = 0;
  uint64_t next_capture_id_ = 1;
  uint64_t closed_captures_dropped_ = 0;  ///< dropped by captures stopped since the start
  std::unique_ptr<ControlRelay> relay_;
  std::function<void(const FastPathEvent&)> sink_;
  std::map<std::string, std::chrono::steady_clock::time_point> recent_events_;
  uint64_t events_delivered_ = 0;
  uint64_t events_suppressed_ = 0;
  bool started_ = false;
  std::unique_ptr<PortTuning> port_tuning_;  ///< what was set up on the ports (--no-tune: none)
  /// --cpu-wake-latency-us: the CPUs' wake-up latency request, held from the start.
  std::optional<CpuWakeLatency> wake_latency_;
  XskMode xsk_mode_ = XskMode::kAuto;  ///< as resolved at start (ports attached later use it)
  std::unique_ptr<HostState> host_state_;
  /// The wires to other hosts and their links' VLAN devices (made before the ports,
  /// removed after them).
  std::unique_ptr<Wires> wires_;
  /// Each cross-host link's egress emulation on its VLAN device's port.
  Status startCrossHostLinks();
};

}  // namespace fastpath
