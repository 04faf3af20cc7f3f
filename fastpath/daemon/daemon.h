// SPDX-License-Identifier: GPL-2.0-only
// fastpathd's data plane as a class: brings up the classifier, the forwarding table, the
// control-frame channels and the workers for a validated Config, implements ControlBackend
// (what the control socket's server calls), and tears everything down in reverse order.
// The program (fastpathd/main.cc) pairs it with ctrl-bridge's server; tests link it alone.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/config.h"
#include "daemon/hosts.h"
#include "daemon/node.h"
#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"
#include "link/link_ports.h"
#include "table/fib_manager.h"
#include "userspace_classifier.h"
#include "worker/control_channel.h"
#include "worker/worker.h"

namespace fastpath {

class PortTuning;

/// Checks what fastpathd needs before anything is touched: root, bpffs (mounted when
/// missing and allowed), every port present, enough queues. Clear message on failure.
Status checkPrerequisites(const Config& config);

/// The data plane of one fastpathd: nodes (forwarding contexts, "default" always exists),
/// their interface ports and the links between them, served by the workers. Its own
/// ControlBackend methods are the default node's; node(NAME) gives any other.
class Daemon : public ControlBackend {
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
  /// served port that can run on its CPU, or back to normal when there is none.
  void adjustRtPriority();
  /// One line of counters (the --stats-interval output).
  std::string statsLine();

  // ControlBackend: the default node's (the node a client that names none talks to)
  Status applyRoutes(const RouteBatch& batch) override;
  std::vector<Route> routes() const override;
  Status addNeighbour(const Neighbour& n) override;
  Status deleteNeighbour(const IpAddress& ip, PortId port) override;
  std::vector<Neighbour> neighbours() const override;
  Status setControlRules(const std::vector<ControlRule>& rules) override;
  std::vector<ControlRule> controlRules() const override;
  std::vector<PortInfo> ports() const override;
  Result<PortId> portByName(const std::string& ifname) const override;
  std::vector<CounterSet> stats() const override;
  Result<int> controlChannelFd(PortId port) override;
  void releaseControlChannel(PortId port) override;
  void setEventSink(std::function<void(const FastPathEvent&)> sink) override;
  Result<ControlBackend*> node(const std::string& name) override;
  Status createNode(const NodeSpec& spec) override;
  Status deleteNode(const std::string& name) override;
  std::vector<NodeInfo> nodes() const override;
  Status createLink(const LinkSpec& spec) override;
  Status deleteLink(const std::string& name) override;
  Status setLinkState(const std::string& name, bool up) override;
  Status setLinkParams(const std::string& name, LinkDirection direction,
                       const LinkParams& params) override;
  std::vector<LinkInfo> links() const override;
  Status setPortParams(PortId port, const LinkParams& params) override;
  Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname) override;
  Status detachInterface(const std::string& node, const std::string& ifname) override;
  /// The attach policy (attach_policy.h) with --attachable and the interfaces of the
  /// start (--port, topology) and of the hosts.
  Status mayAttachInterface(const std::string& ifname, bool root) const override;
  Result<HostInfo> createHost(const HostSpec& spec) override;
  Status deleteHost(const std::string& name) override;
  std::vector<HostInfo> hosts() const override;
  Status createSegment(const SegmentSpec& spec) override;
  Status deleteSegment(const std::string& name) override;
  Status setSegmentState(const std::string& name, bool up, const std::string& node = "") override;
  Status setSegmentParams(const std::string& name, const LinkParams& params) override;
  std::vector<SegmentInfo> segments() const override;

  // For the nodes: what a Node does with its ports (daemon-wide resources).
  Node* findNode(const std::string& name) const;
  Node& defaultNode() { return *default_node_; }
  /// The port as it is now (interface: flags read again), with its node and link.
  PortInfo portInfo(PortId port) const;
  /// The port's counters (all workers), scope "port <scope_name>".
  CounterSet portCounters(PortId port, const std::string& scope_name) const;
  /// Daemon-wide sets: workers, events (the default node's stats include them).
  std::vector<CounterSet> daemonCounters() const;
  /// The node's rules on its interface ports' classifiers and link ports' twins.
  Status applyNodeRules(Node& node, const std::vector<ControlRule>& rules);
  Result<int> portChannelFd(PortId port);
  /// Emulation of an interface port's egress.
  Status applyPortParams(PortId port, const LinkParams& params);
  void releasePortChannel(PortId port);

  // For tests and the stats line.
  const Config& config() const { return config_; }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  FibManager& fib() { return default_node_->fib(); }
  uint64_t eventsDelivered() const { return events_delivered_; }
  uint64_t eventsSuppressed() const { return events_suppressed_; }

 private:
  struct LinkPort {
    PortInfo info;
    PortId peer = 0;
    Node* node = nullptr;
    LinkState* state = nullptr;
    std::unique_ptr<UserspaceClassifier> classifier;
    std::unique_ptr<ControlChannel> channel;  ///< created when a client first opens it
    std::vector<LinkQueue*> inbound;          ///< per worker: frames arriving here
    LinkParams params;                        ///< emulation of frames sent here (to the peer)
    std::vector<LinkShaper*> shapers;         ///< per worker, when `params` shape
    std::string segment;                      ///< segment ports: the segment (no peer)
    std::unique_ptr<LinkState> port_state;    ///< segment ports: the port's own up/down
  };
  struct Link {
    std::string name;
    PortId a = 0, b = 0;
    std::unique_ptr<LinkState> state;
  };

  /// A shared medium: its ports (link ports without a peer), one state, one emulation.
  struct Segment {
    std::string name;
    std::vector<PortId> ports;
    std::unique_ptr<LinkState> state;
    LinkParams params;
    std::vector<LinkShaper*> shapers;  ///< per worker, when `params` shape
  };

  Status startPorts();
  Status startWorkers();
  /// Links, then the topology file's routes and neighbours (after the workers exist).
  Status startTopology();
  Result<Node*> addNode(const NodeSpec& spec);
  Status staticEntries(Node& node, const std::vector<RouteConfig>& routes,
                       const std::vector<NeighbourConfig>& neighbours);
  Result<std::unique_ptr<UserspaceClassifier>> linkClassifier(const MacAddress& mac,
                                                             const std::vector<ControlRule>& rules);
  LinkQueue* takeQueue();
  /// A generated link port MAC (02:66:70 + a counter) no port uses.
  MacAddress nextLinkMac(const std::vector<MacAddress>& also_taken);
  bool linkMacInUse(const MacAddress& mac) const;
  /// A free link port id, or an error when every id is in use.
  Result<PortId> takeLinkPortId(const std::vector<PortId>& also_taken = {});
  /// Takes a link or segment port out of its node (routes and neighbours through it, the
  /// node's table, its channel, its queues and own shapers retired) and forgets it.
  void removeLinkPort(PortId id, const std::string& what);
  /// Takes `node`'s port out of segment `seg` (node deleted); the segment goes when it
  /// has no port left.
  void detachFromSegment(const std::string& seg, PortId id);
  /// Gives every worker a new link port table, waits for the workers to take it
  /// (epoch), recycles queues they drained.
  void publishLinkTables();
  std::string portNodeName(PortId port) const;
  /// Gives the port's direction these parameters: shapers created, updated in place, or
  /// replaced by larger ones (their frames move over in the worker).
  void applyLinkParams(const std::string& link, LinkPort& port, const LinkParams& params);
  /// One shaper per worker for `params`: created, updated in place, or replaced by a
  /// larger one (the worker moves the old one's frames and state over).
  void applyShaping(std::vector<LinkShaper*>& shapers, const std::string& seed_name,
                    const LinkParams& params);
  LinkDirectionStats shaperStats(const std::vector<LinkShaper*>& shapers) const;
  LinkDirectionStats directionStats(const LinkPort& port) const;
  /// Warns when a worker released emulated frames late (every second, from run()).
  void checkEmulationLateness();
  void emitPortEvent(PortId port, bool up);
  /// Interface ports at run time (daemon_interfaces.cc).
  Result<PortInfo> attachPort(Node& node, const std::string& ifname);
  /// Takes an interface port out of its node and the workers: routes and neighbours
  /// through it, emulated egress, classifier (tuning restored first), sockets (frames
  /// taken back), channel; logs its final counters. The id becomes reusable.
  void detachPort(PortId port, const std::string& why);
  /// Routes and neighbours of `node` through `port`, and the port in its table.
  void removeFromNodeTable(Node& node, PortId port, const std::string& what);
  bool portAttached(PortId port) const { return port < port_node_.size() && port_node_[port]; }
  void removeHost(const std::string& name, const std::string& why);
  void writeHostState();

  Config config_;
  EpochDomain epoch_;  ///< one domain for every node's table and the link tables
  std::vector<PortInfo> ports_;  ///< interface ports, index = PortId
  std::vector<bool> port_gone_;  ///< interface deleted or replaced since start
  std::map<std::string, std::unique_ptr<Node>> nodes_;
  Node* default_node_ = nullptr;
  uint32_t next_node_id_ = 0;
  std::vector<Node*> port_node_;  ///< interface ports: their node
  std::map<PortId, LinkPort> link_ports_;
  std::map<std::string, Link> links_;
  std::map<std::string, Segment> segments_;
  std::vector<PortId> free_link_ports_;  ///< reusable ids (highest first)
  std::vector<std::unique_ptr<LinkQueue>> queue_pool_;
  std::vector<LinkQueue*> free_queues_;
  std::vector<std::pair<uint32_t, LinkQueue*>> retired_queues_;  ///< (worker, queue)
  std::map<LinkShaper*, std::unique_ptr<LinkShaper>> shapers_;   ///< all, owned
  std::vector<std::pair<uint32_t, LinkShaper*>> retired_shapers_;
  std::vector<uint64_t> late_frames_seen_;  ///< per worker, at the last lateness check
  std::vector<std::vector<LinkShaper*>> egress_shapers_;  ///< interface port -> per worker
  std::vector<std::unique_ptr<LinkPortTable>> link_tables_;      ///< per worker, in use
  uint64_t link_table_version_ = 0;
  uint32_t next_link_mac_ = 1;
  std::vector<std::unique_ptr<Classifier>> classifiers_;
  std::vector<std::unique_ptr<ControlChannel>> channels_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<ControlRelay> relay_;
  std::function<void(const FastPathEvent&)> sink_;
  std::map<std::string, std::chrono::steady_clock::time_point> recent_events_;
  uint64_t events_delivered_ = 0;
  uint64_t events_suppressed_ = 0;
  bool started_ = false;
  std::unique_ptr<PortTuning> port_tuning_;  ///< what was set up on the ports (--no-tune: none)
  std::map<PortId, std::unique_ptr<PortTuning>> attached_tuning_;  ///< ports attached at run time
  std::vector<PortId> runtime_ports_;  ///< interface ports attached at run time
  XskMode xsk_mode_ = XskMode::kAuto;  ///< as resolved at start (ports attached later use it)
  struct Host {
    HostInfo info;
    HostRecord record;
  };
  std::map<std::string, Host> hosts_;
  std::unique_ptr<HostState> host_state_;
};

}  // namespace fastpath
