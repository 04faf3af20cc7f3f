// SPDX-License-Identifier: GPL-2.0-only
// The domain types the control plane and the data plane exchange: ports, nodes, links,
// segments, hosts, counters, control rules and events, with the daemon's limits. Plain
// structs, C++17-clean: fastpathd, ctrl-bridge, fpctl and the ns-3 module include them
// (the ns-3 module installs this header; the control interfaces of control_backend.h
// are fastpathd's and ctrl-bridge's business and are not installed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastpath/link_params.h"
#include "fastpath/net_types.h"

namespace fastpath {
/// Limits of one fastpathd (the topology file, the IPC and the daemon enforce them).
inline constexpr size_t kMaxNodes = 4096;
inline constexpr size_t kMaxLinks = 8192;
inline constexpr size_t kMaxInterfacePorts = 256;
/// The node that exists in every daemon: --port interfaces belong to it, and a client that
/// names no node talks to it.
inline constexpr const char* kDefaultNodeName = "default";

struct PortInfo {
  PortId id = 0;   ///< unique in the daemon; a node only accepts its own ports
  std::string ifname;  ///< interface name, or the link port's name inside its node
  int ifindex = 0;
  MacAddress mac;
  uint32_t mtu = 1500;
  bool up = false;
  uint32_t queues = 1;
  std::string xdp_mode;  ///< "native" or "generic"
  std::string xsk_mode;  ///< "zerocopy" or "copy"
  std::string node;      ///< the node the port belongs to
  std::string link;      ///< link ports: the link's name; empty for interface ports
  LinkParams egress;     ///< interface ports: emulation of what leaves through it
};

/// A node to create: a forwarding context of its own (tables, neighbours, ports, rules,
/// control channels, lease, counters). `host` names the machine that runs it ("local").
struct NodeSpec {
  std::string name;
  std::string host = "local";
};

struct NodeInfo {
  std::string name;
  std::string host = "local";
  uint32_t id = 0;
  uint32_t worker = 0;  ///< the worker that serves its ports and links
  std::vector<PortId> ports;
  size_t routes = 0;
  size_t neighbours = 0;
};

/// A node's port on a link or a segment: one end of a point-to-point link, or one of a
/// segment's ports. Both are checked by one rule (name, MTU, MAC).
struct PortSpec {
  std::string node;
  std::string port;  ///< the port's name inside `node` (unique there); empty: the link's or
                     ///< segment's name
  MacAddress mac;    ///< zero: generated (locally administered, unique in the daemon)
  uint32_t mtu = 1500;
};
/// One end of a point-to-point link between two nodes of the daemon.
using LinkEndSpec = PortSpec;

struct LinkSpec {
  std::string name;
  LinkEndSpec a, b;
  bool up = true;
  /// Link emulation of each direction (default: frames pass at once).
  LinkParams a_to_b, b_to_a;
};

/// Which direction(s) of a link a change applies to.
enum class LinkDirection : uint8_t { kBoth, kAToB, kBToA };

/// What the emulation of one direction did (counters since the link was created).
struct LinkDirectionStats {
  uint64_t enqueued = 0, delivered = 0, queue_drops = 0, loss_drops = 0, full_drops = 0;
  uint64_t duplicated = 0, corrupted = 0, link_down_drops = 0;
  uint64_t aqm_drops = 0, aqm_marks = 0;  ///< by the queue discipline: dropped, marked CE
  /// Of aqm_drops and aqm_marks: RED's forced ones (its average over the forced threshold;
  /// the others are its unforced, probabilistic ones).
  uint64_t aqm_forced_drops = 0, aqm_forced_marks = 0;
  uint64_t aqm_drop_bytes = 0, aqm_forced_drop_bytes = 0;  ///< their frames' bytes
  /// A segment's senders gave these up after ns-3's 1000 backoff retries (CsmaNetDevice's
  /// TransmitAbort: the medium busy for over ~0.5 s); always 0 on a link.
  uint64_t backoff_drops = 0;
  /// FqCoDel: frames and network-layer bytes waiting in its flow queues now.
  uint64_t fq_packets = 0, fq_bytes = 0;
  uint64_t depth_packets = 0, depth_bytes = 0, in_flight = 0;
  uint64_t sojourn_p50_ns = 0, sojourn_p99_ns = 0, sojourn_max_ns = 0;
  /// How long after their arrival time frames were handed on at the far end (the
  /// emulation's own error on this direction; 0 with no frame yet).
  uint64_t lateness_p50_ns = 0, lateness_p99_ns = 0, lateness_max_ns = 0;
  uint64_t tx_packets = 0, tx_bytes = 0;  ///< sent into this direction
};

struct LinkInfo {
  std::string name;
  bool up = true;
  struct End {
    std::string node;
    std::string port;
    PortId id = 0;
    MacAddress mac;
    uint32_t mtu = 1500;
    bool down = false;  ///< this end set down on its own (setLinkState with its node)
  };
  End a, b;
  LinkParams a_to_b, b_to_a;  ///< as configured
  LinkDirectionStats a_to_b_stats, b_to_a_stats;  ///< as measured
};

/// A segment: a shared medium joining nodes of the daemon (ns-3's CsmaChannel). Each
/// attached node has a port with its own MAC; a frame reaches the port of its destination
/// MAC, broadcast and multicast every other port; all ports share one medium (one rate,
/// delay, queue and loss, one FIFO for every sender). Segments count as links for
/// kMaxLinks; a segment has 1 .. kMaxSegmentPorts ports.
inline constexpr size_t kMaxSegmentPorts = 64;

/// A node's port on a segment.
using SegmentPortSpec = PortSpec;

struct SegmentSpec {
  std::string name;
  std::vector<SegmentPortSpec> ports;
  bool up = true;
  LinkParams params;  ///< the medium's emulation (default: frames pass at once)
};

struct SegmentInfo {
  std::string name;
  bool up = true;
  struct Port {
    std::string node;
    std::string port;
    PortId id = 0;
    MacAddress mac;
    uint32_t mtu = 1500;
    uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
    uint64_t unknown_dst_drops = 0;  ///< sent to a MAC no other port has
    uint64_t no_frame_drops = 0;     ///< broadcast copies not made: no free frame
    uint64_t queue_full_drops = 0;   ///< delivered while its receive queue was full
    uint64_t down_drops = 0;  ///< sent by or to it while it or the segment was down
    bool up = true;           ///< the port's own state (setSegmentState with its node)
  };
  std::vector<Port> ports;
  LinkParams params;         ///< as configured
  LinkDirectionStats stats;  ///< the medium, as measured (all senders)
};

/// A learning bridge (ns-3's BridgeNetDevice, as BridgeHelper::Install(node, devices)
/// makes it): it joins segment ports of one node, each on another segment, into one
/// Ethernet domain. Every frame on a bridged segment reaches the bridge's port there; the
/// bridge learns its source MAC on that port and sends it on the port its destination was
/// learned on, or floods it to every other port (broadcast, multicast, unknown); there it
/// enters that segment's medium as any sender's frame. No spanning tree (as ns-3). The
/// node's own stack gets nothing through a bridged port.
inline constexpr size_t kMaxBridgePorts = 64;
inline constexpr uint64_t kDefaultBridgeAgeingNs = 300'000'000'000ull;  ///< ns-3's 300 s

struct BridgeSpec {
  std::string name;
  std::string node;
  std::vector<std::string> ports;  ///< the node's segment ports, one per segment
  uint64_t ageing_ns = kDefaultBridgeAgeingNs;  ///< ns-3's ExpirationTime
};

struct BridgeInfo {
  std::string name;
  std::string node;
  uint64_t ageing_ns = kDefaultBridgeAgeingNs;
  struct Port {
    std::string port;
    std::string segment;
    PortId id = 0;
    MacAddress mac;
    uint64_t rx_packets = 0, tx_packets = 0;  ///< heard on it / sent on it by the bridge
  };
  std::vector<Port> ports;
  /// The learned table (every worker's, the newest entry of a MAC): port is an index in
  /// `ports`; expires_in_ns from the moment of the listing.
  struct Learned {
    MacAddress mac;
    uint32_t port = 0;
    uint64_t expires_in_ns = 0;
  };
  std::vector<Learned> learned;
  uint64_t received = 0;    ///< frames heard on its ports
  uint64_t forwarded = 0;   ///< sent on the one learned port
  uint64_t flooded = 0;     ///< sent on every other port
  uint64_t local = 0;       ///< to a bridge port's own MAC (dropped: bridge_local)
  uint64_t no_frame = 0;    ///< copies not made: no free frame (bridge_no_frame)
  uint64_t loop_drops = 0;  ///< relayed through too many bridges at once (bridge_loop)
  uint64_t learn_full = 0;  ///< sources not learned: the table was full of live entries
};

/// A host: a network namespace "fp-<name>" joined by a veth pair to a node of the daemon
/// (eth0 inside, addressed; the other end an interface port of the node).
struct HostSpec {
  std::string name;  ///< validName (names.h): the namespace is "fp-" + name
  std::string node;
  std::vector<IpPrefix> addresses;  ///< eth0's addresses (host bits allowed: an address/len)
  std::vector<IpAddress> gateways;  ///< default routes via eth0 (one IPv4, one IPv6 at most)
  uint32_t mtu = 1500;
};

struct HostInfo {
  HostSpec spec;
  std::string netns;  ///< "fp-" + name
  std::string port;   ///< fastpathd's end of the veth pair: the node's interface port
  PortId port_id = 0;
  MacAddress mac;     ///< eth0's
};

/// A routed wire's underlay: its links travel as VXLAN (one VNI each) in UDP between this
/// host's IPv4 address on the wire's interface and the peer host's, to `port`.
struct WireVxlan {
  IpAddress underlay;       ///< this host's (IPv4, an address the interface has)
  IpAddress peer_underlay;  ///< the peer host's (IPv4)
  uint16_t port = 4789;     ///< the same on both hosts; the probes use port + 1
};
inline bool operator==(const WireVxlan& a, const WireVxlan& b) {
  return a.underlay == b.underlay && a.peer_underlay == b.peer_underlay && a.port == b.port;
}

/// A run spread over several hosts, as one daemon takes part in it: its host name, the
/// run's tag, its wires (peer host -> this host's interface).
struct MultiHostDeclaration {
  std::string host;
  std::string run_tag;
  std::vector<std::pair<std::string, std::string>> wires;  ///< {peer host, interface}
  uint32_t wait_ms = 0;  ///< for the peers' daemons to answer the probes (0: 10 s)
  /// By interface: the wires that carry VXLAN (protocol 1.11); the others carry 802.1Q.
  std::map<std::string, WireVxlan> vxlan;
};

/// One end of a link between two hosts, made on this host: a port of `node` on the wire to
/// peer_host, the link's frames tagged with `vlan`.
struct CrossLinkSpec {
  std::string name;
  std::string node;
  char end = 'a';     ///< which end of the link this is ('a' or 'b')
  MacAddress mac;     ///< zero: from the link's name and end (the same on every host)
  MacAddress peer_mac;  ///< zero: from the link's name and the other end
  uint32_t mtu = 1500;
  uint16_t vlan = 0;
  std::string peer_host;
  LinkParams egress;  ///< the emulation of the frames this host sends
};

struct MultiHostWireInfo {
  std::string peer_host, ifname;
  uint32_t mtu = 0;
  uint64_t latency_ns = 0, latency_min_ns = 0, jitter_ns = 0, probes = 0;
  std::optional<WireVxlan> vxlan;  ///< a VXLAN wire's underlay; none: 802.1Q
};

struct CrossLinkInfo {
  CrossLinkSpec spec;  ///< MACs filled in
  std::string port;    ///< the node's port
  PortId port_id = 0;
  std::string wire;
  LinkParams applied;  ///< on the port: the wire's latency taken off the delay
  bool from_topology = false;
  bool up = true;      ///< the port's state (SetLinkState of the link's name on this host)
};

struct MultiHostInfo {
  std::string host;  ///< empty: no run over several hosts
  std::string run_tag;
  std::vector<MultiHostWireInfo> wires;
  std::vector<CrossLinkInfo> links;
  /// This host's clock against its reference (chrony or PTP), read at the declaration.
  bool clock_known = false;
  int64_t clock_offset_ns = 0;
  std::string clock_source;  ///< "chrony", "ptp", or why the offset is unknown
};

/// Named counters, so the wire format need not change when a counter is added.
struct CounterSet {
  std::string scope;  ///< "port fp1", "worker 0", "classifier fp1", "control", ...
  std::vector<std::pair<std::string, uint64_t>> counters;
};

/// Since when the histograms and maxima of the stats count (the counters never reset).
struct StatsEpoch {
  uint64_t since_unix_ns = 0;  ///< the last reset, else the daemon's start; 0: unknown
  uint64_t resets = 0;         ///< resets since the daemon started
  uint32_t workers = 0;        ///< a reset: the workers that zeroed theirs
};

/// A node's counter sets, and since when their histograms and maxima count.
struct StatsReport {
  std::vector<CounterSet> sets;
  StatsEpoch epoch;  ///< since_unix_ns 0: a fastpathd older than protocol 1.14
};

struct ControlRule {
  enum class Kind : uint8_t { kEtherType, kIpProto, kL4Port, kLocalAddress };
  Kind kind = Kind::kEtherType;
  uint16_t ethertype = 0;       ///< kEtherType, host order
  uint8_t ip_proto = 0;         ///< kIpProto, kL4Port (17 or 6)
  uint16_t port = 0;            ///< kL4Port, host order
  IpAddress address;            ///< kLocalAddress
  bool pass_to_kernel = false;  ///< action PASS instead of CONTROL
};

/// Events fastpathd sends to subscribers. kEventsDropped comes from the control socket's
/// server, not the data plane: a client that stopped reading missed `dropped` events.
/// kMediumRetryLimit: a unicast frame `port` sent on a radio medium was not acknowledged by
/// `mac` after the station's retries (802.11's "final data failed"), and was dropped.
struct FastPathEvent {
  enum class Kind : uint8_t {
    kRouteMiss,
    kPortUp,
    kPortDown,
    kNeighbourNeeded,
    kEventsDropped,
    kMediumRetryLimit,
  };
  Kind kind = Kind::kRouteMiss;
  PortId port = 0;
  IpAddress address;     ///< destination (route miss) or next hop (neighbour needed)
  uint64_t dropped = 0;  ///< kEventsDropped
  std::string node;      ///< the node of `port` (empty: the default node)
  MacAddress mac;        ///< kMediumRetryLimit: the receiver that did not acknowledge
};

}  // namespace fastpath
