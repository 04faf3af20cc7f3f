// SPDX-License-Identifier: GPL-2.0-only
// What the ctrl-bridge server needs from fastpathd, as two interfaces: NodeControl, the
// control plane of one node (routes, neighbours, rules, ports, counters, control channels,
// port emulation), and TopologyControl, the network those nodes form (nodes, links,
// segments, interfaces, hosts, events). fastpathd implements them (its Node and its
// Daemon); the ctrl-bridge server translates protobuf to these domain types at its edge
// and calls them, always from fastpathd's single control thread. Tests implement them over
// plain FibManagers without any interface. Internal to fastpathd and ctrl-bridge: the
// ns-3 module uses the types (control_types.h) only.
#pragma once

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "fastpath/capture_types.h"
#include "fastpath/control_timing.h"
#include "fastpath/control_types.h"
#include "fastpath/medium_types.h"
#include "fastpath/result.h"

namespace fastpath {

/// The control plane of one node: everything here concerns that node's ports and tables
/// only; a port id of another node is refused.
class NodeControl {
 public:
  virtual ~NodeControl() = default;

  /// Applies a batch all-or-nothing. Returns only once workers can see the result.
  virtual Status applyRoutes(const RouteBatch& batch) = 0;
  virtual std::vector<Route> routes() const = 0;

  virtual Status addNeighbour(const Neighbour& n) = 0;
  virtual Status deleteNeighbour(const IpAddress& ip, PortId port) = 0;
  virtual std::vector<Neighbour> neighbours() const = 0;

  virtual Status setControlRules(const std::vector<ControlRule>& rules) = 0;
  virtual std::vector<ControlRule> controlRules() const = 0;

  virtual std::vector<PortInfo> ports() const = 0;
  virtual Result<PortId> portByName(const std::string& ifname) const = 0;
  virtual std::vector<CounterSet> stats() const = 0;

  /// The client end of the port's control-frame channel (SOCK_SEQPACKET, one frame per
  /// message). A fresh dup each call; the caller passes it on (SCM_RIGHTS) and closes it.
  virtual Result<int> controlChannelFd(PortId port) = 0;
  /// As controlChannelFd(), with the channel's framing from now on (control_timing.h):
  /// timed, frames carry their model times and may come up to `lead_ns` before their
  /// arrival. A backend without timing refuses a timed channel.
  virtual Result<int> controlChannelFd(PortId port, const ControlChannelTiming& timing) {
    if (timing.timed)
      return makeError(-EOPNOTSUPP, "this data plane has no timed control channels");
    return controlChannelFd(port);
  }
  /// The last client that opened the port's channel is gone (its control connection
  /// closed): frames for the port are counted drops (no_control_client) instead of
  /// filling a channel nobody reads, until a client opens it again.
  virtual void releaseControlChannel(PortId port) = 0;

  /// Emulation of an interface port's egress (the same model as a link's direction):
  /// frames the node sends through the port wait, are delayed or lost before the wire.
  /// Link ports: use TopologyControl::setLinkParams. Invalid values: an error, nothing
  /// changes.
  virtual Status setPortParams(PortId port, const LinkParams& params) = 0;
};

/// The network of one data plane: its nodes, the links and segments between them, the
/// interfaces and hosts attached to them, and the events of all of them.
class TopologyControl {
 public:
  virtual ~TopologyControl() = default;

  /// The control plane of one node. "" and kDefaultNodeName give the default node. Error
  /// (ENOENT, naming the node) when there is no such node. The pointer stays valid until
  /// the node is deleted.
  virtual Result<NodeControl*> node(const std::string& name) = 0;
  /// Called (on the control thread) for every event of every node (FastPathEvent::node
  /// says whose); set once by the server.
  virtual void setEventSink(std::function<void(const FastPathEvent&)> sink) = 0;

  virtual std::vector<NodeInfo> nodes() const = 0;
  virtual Status createNode(const NodeSpec& spec) = 0;
  /// Deletes a node with its links; error when it still has interface ports.
  virtual Status deleteNode(const std::string& name) = 0;

  virtual std::vector<LinkInfo> links() const = 0;
  virtual Status createLink(const LinkSpec& spec) = 0;
  virtual Status deleteLink(const std::string& name) = 0;
  /// Down: both ends stop passing frames (counted) and both nodes' clients get a port
  /// down event for their end. With `node`, that node's end only: the node forwards nothing
  /// onto it or from it (counted; its own client decides for itself), its node's clients
  /// get the event, the other end keeps its state.
  virtual Status setLinkState(const std::string& name, bool up, const std::string& node = "") = 0;
  /// Link emulation parameters of one or both directions, at run time and atomically:
  /// frames already in the link keep their times (none lost, duplicated or reordered).
  /// Invalid values: an error, and the link keeps its previous parameters.
  virtual Status setLinkParams(const std::string& name, LinkDirection direction,
                               const LinkParams& params) = 0;

  /// Segments: created with all their ports, deleted with them (frames held are
  /// discarded, counted); down: no port passes frames and each node's clients get a port
  /// down event; parameters as setLinkParams, for the one shared medium.
  virtual std::vector<SegmentInfo> segments() const = 0;
  virtual Status createSegment(const SegmentSpec& spec) = 0;
  virtual Status deleteSegment(const std::string& name) = 0;
  /// `node` non-empty: that node's port alone (it neither sends nor receives while down;
  /// a port passes frames when it and the segment are up).
  virtual Status setSegmentState(const std::string& name, bool up,
                                 const std::string& node = "") = 0;
  virtual Status setSegmentParams(const std::string& name, const LinkParams& params) = 0;

  /// Since when the histograms and maxima of every node's stats() count.
  virtual StatsEpoch statsEpoch() const { return {}; }
  /// Zeroes the histograms and maxima of the whole daemon (workers, links, segments,
  /// media), counters untouched; returns once every worker did.
  virtual Result<StatsEpoch> resetStats() {
    return makeError(-EOPNOTSUPP, "this backend cannot reset its statistics");
  }

  /// Bridges (control_types.h): created over existing segment ports of one node, deleted
  /// alone or with any of their ports. A backend without bridges says so (ENOSYS).
  virtual std::vector<BridgeInfo> bridges() const { return {}; }
  virtual Status createBridge(const BridgeSpec& spec) {
    return makeError(-ENOSYS, "bridge " + spec.name + ": this data plane has no bridges");
  }
  virtual Status deleteBridge(const std::string& name) {
    return makeError(-ENOSYS, "bridge " + name + ": this data plane has no bridges");
  }

  /// Interface ports at run time: an interface of the daemon's namespace becomes a port of
  /// `node` (classifier, AF_XDP sockets, tuning), or stops being one (routes, neighbours
  /// and frames queued for it go; settings restored).
  virtual Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname) = 0;
  virtual Status detachInterface(const std::string& node, const std::string& ifname) = 0;
  /// Whether a control-socket peer may attach `ifname` (`root`: uid 0; otherwise an
  /// operator), asked before attachInterface: an error says why not and what would allow
  /// it. The default allows everything (a backend without interfaces of its own).
  virtual Status mayAttachInterface(const std::string& ifname, bool root) const;
  /// Hosts (network namespace + veth pair attached to a node), made by the daemon.
  virtual std::vector<HostInfo> hosts() const = 0;
  virtual Result<HostInfo> createHost(const HostSpec& spec) = 0;
  virtual Status deleteHost(const std::string& name) = 0;

  /// Packet capture: taps on the target's ports copy the frames the workers carry there
  /// into the capture's bounded rings (a full ring drops and counts, never slows
  /// forwarding); readCapture() drains them. The defaults refuse (no data plane).
  virtual Result<CaptureInfo> startCapture(const CaptureSpec& spec);
  /// Up to `max` frames, oldest first; the counters after the read.
  virtual CaptureCounters readCapture(uint64_t id, std::vector<CapturedFrame>* out, size_t max);
  /// Removes the taps (once workers stopped using them) and forgets the capture.
  virtual void stopCapture(uint64_t id);
  /// Radio media (medium_types.h): created with their members and initial pairs, deleted
  /// with their ports; updateMedium applies one batch of pair changes at once (a frame sees
  /// all of it or none). `name` empty in media(): every medium. The defaults refuse
  /// (ENOTSUP): a backend without radio media.
  virtual std::vector<MediumInfo> media(const std::string& name = "") const;
  virtual Status createMedium(const MediumSpec& spec);
  virtual Status deleteMedium(const std::string& name);
  virtual Status updateMedium(const std::string& name, const MediumUpdate& update);
  /// A run over several hosts (control_types.h): this daemon's part declared (its wires
  /// measured), then the ends of cross-host links made and deleted one by one. The
  /// defaults refuse (ENOTSUP): a backend without wires.
  virtual Result<MultiHostInfo> declareMultiHost(const MultiHostDeclaration& d);
  virtual Result<CrossLinkInfo> createCrossLink(const CrossLinkSpec& spec);
  virtual Status deleteCrossLink(const std::string& name);
  virtual MultiHostInfo multiHost() const;
};

/// The refusal of a data plane with one node: "WHAT: this data plane has one node, ..."
/// (ENOTSUP).
Error singleNodeRefusal(const std::string& what);

/// The topology of a data plane with one node, kDefaultNodeName, that cannot change (no
/// nodes, links, segments, interfaces or hosts to create): the ctrl-bridge tests' tables
/// and any backend that serves one node. Every change is refused with a message that says
/// so; a derived backend overrides what it does support.
class SingleNodeTopology : public TopologyControl {
 public:
  explicit SingleNodeTopology(NodeControl& node) : node_(node) {}

  Result<NodeControl*> node(const std::string& name) override;
  std::vector<NodeInfo> nodes() const override;
  Status createNode(const NodeSpec& spec) override;
  Status deleteNode(const std::string& name) override;
  std::vector<LinkInfo> links() const override;
  Status createLink(const LinkSpec& spec) override;
  Status deleteLink(const std::string& name) override;
  Status setLinkState(const std::string& name, bool up, const std::string& node = "") override;
  Status setLinkParams(const std::string& name, LinkDirection direction,
                       const LinkParams& params) override;
  std::vector<SegmentInfo> segments() const override;
  Status createSegment(const SegmentSpec& spec) override;
  Status deleteSegment(const std::string& name) override;
  Status setSegmentState(const std::string& name, bool up, const std::string& node = "") override;
  Status setSegmentParams(const std::string& name, const LinkParams& params) override;
  Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname) override;
  Status detachInterface(const std::string& node, const std::string& ifname) override;
  std::vector<HostInfo> hosts() const override;
  Result<HostInfo> createHost(const HostSpec& spec) override;
  Status deleteHost(const std::string& name) override;

 private:
  NodeControl& node_;
};

}  // namespace fastpath
