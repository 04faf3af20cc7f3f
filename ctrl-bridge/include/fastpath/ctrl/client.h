// SPDX-License-Identifier: GPL-2.0-only
// The ctrl-bridge client library: a synchronous C++ client for fastpathd's control socket,
// used by the ns-3 module and fpctl. C++17-clean and free of protobuf types (the ns-3
// module includes it and builds as C++17).
//
// Every call sends one request and waits for its reply. Events (after subscribe()) may
// arrive between replies; they are buffered and handed out by nextEvent().
// A Client is not thread-safe: use it from one thread (or guard it).
//
// Nodes (protocol 1.3): a connection is bound to one fastpathd node (ClientOptions::node,
// bind()); the calls that act on a node take an optional `node` naming another one for
// that call only. Empty everywhere = the default node, as with fastpathd before 1.3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/ctrl/protocol.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"

namespace fastpath::ctrl {

class Client;

struct ClientOptions {
  /// Identity sent in Hello (the ns-3 node name, or the host name for fpctl); the owner of
  /// a route lease. Not a fastpathd node: see `node`.
  std::string node_name;
  /// The fastpathd node this connection is bound to (Hello.node, protocol 1.3): calls that
  /// name no node act on it, subscribe() delivers its events, and a route lease withdraws
  /// from it. Empty = the default node. Unknown: connect() fails with -ENOENT naming it.
  std::string node;
  /// What this client is ("ns-3", "fpctl"); logged by fastpathd.
  std::string client_name = "fastpath-client";
  /// Route lease sent in Hello (protocol 1.1). 0 = the routes and neighbours this client
  /// installs are permanent. > 0 (needs node_name): when this node's last connection
  /// closes, fastpathd keeps them this many ms, then withdraws those this node still owns
  /// (the last writer of a prefix owns it). Reconnecting in time (with auto_reconnect,
  /// on_reconnect replays) cancels the withdrawal. See docs/reference/ipc.md.
  uint32_t route_grace_period_ms = 0;
  /// How long to wait for a reply, in ms; <= 0 waits forever.
  int reply_timeout_ms = 60000;
  /// Largest frame this client sends or accepts. Must not exceed the server's limit.
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  /// applyRoutes() splits batches larger than this into one chunked transaction
  /// (still applied all-or-nothing by the server).
  std::size_t routes_per_chunk = 100000;

  /// Reconnect when the connection breaks during a call: retry connecting with
  /// exponential backoff, redo Hello and subscribe(), call on_reconnect (the replay
  /// hook: e.g. push the full route table again), then retry the interrupted call once,
  /// its requests with the ids they had. A fastpathd of protocol 1.15 or later answers a
  /// request it carried out before the connection broke with the reply that was lost (the
  /// client names itself in Hello.session_id): each change is made at most once. An older
  /// one carries it out again: a create may then fail (it exists), a delete without
  /// ignore_missing with -ENOENT, for what had in fact been done.
  bool auto_reconnect = false;
  int reconnect_attempts = 8;
  int backoff_initial_ms = 50;
  int backoff_max_ms = 2000;
  std::function<Status(Client&)> on_reconnect;

  /// Protocol version to announce; only tests change these.
  uint32_t protocol_major = kProtocolMajor;
  uint32_t protocol_minor = kProtocolMinor;
};

/// What the server said in its Hello reply.
struct ServerInfo {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string daemon_name;
  std::string node_name;  ///< the daemon's identity (host name or --node)
  /// The node the connection is bound to ("default", ...); empty from a server before 1.3.
  std::string node;
};

/// What subscribe() asks for.
struct Subscription {
  /// The node whose events to deliver; empty = the connection's node (and it follows a
  /// later bind()).
  std::string node;
  /// Every node's events (FastPathEvent::node says whose).
  bool all_nodes = false;
};

/// A batch of a capture's frames, as the server streams them after startCapture().
struct CaptureBatch {
  uint64_t capture_id = 0;
  std::vector<CapturedFrame> frames;  ///< oldest first
  uint64_t captured = 0;  ///< frames the workers copied so far
  uint64_t dropped = 0;   ///< frames lost so far: the capture's ring was full (reader slow)
  bool done = false;      ///< the last batch: count reached, or stopCapture()
};

/// A connection to fastpathd.
///
/// Errors: transport failures carry a negative errno (-ECONNREFUSED, -EPIPE, -ETIMEDOUT,
/// ...). Errors reported by the server carry the mapping of its ErrorCode:
/// INVALID_ARGUMENT -EINVAL, NOT_FOUND -ENOENT, VERSION_MISMATCH -EPROTONOSUPPORT,
/// FAILED_PRECONDITION -EBADE, PERMISSION_DENIED -EACCES, MESSAGE_TOO_LARGE -EMSGSIZE,
/// MALFORMED -EBADMSG, ABORTED -ECANCELED, RESOURCE_EXHAUSTED -ENOSPC, INTERNAL -EIO,
/// UNIMPLEMENTED -ENOSYS; the message is the server's, naming the offending field.
class Client {
 public:
  /// Connects to the Unix socket at `socket_path` and performs the Hello exchange.
  static Result<std::unique_ptr<Client>> connect(const std::string& socket_path,
                                                 const ClientOptions& options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Sends Hello again with a new node name (connect() already did it once).
  Status hello(const std::string& node_name);
  /// Binds the connection to another fastpathd node (a new Hello; a route lease moves
  /// with it). On error the connection stays bound where it was.
  Status bind(const std::string& node);
  /// The node the connection is bound to, as the server named it ("default", ...).
  const std::string& boundNode() const;
  /// The server's answer to the last Hello.
  const ServerInfo& serverInfo() const;

  // Calls acting on one node: `node` empty = the connection's node.

  /// Applies one transaction all-or-nothing; returns once forwarding workers see it.
  Status applyRoutes(const RouteBatch& batch, const std::string& node = {});
  Status addRoute(const Route& route, const std::string& node = {});
  Status deleteRoute(const IpPrefix& prefix, bool ignore_missing = false,
                     const std::string& node = {});
  /// Replaces the whole table with `routes` (atomically, chunked if large).
  Status replaceAllRoutes(const std::vector<Route>& routes, const std::string& node = {});
  /// The current table (fetched page by page).
  Result<std::vector<Route>> routes(const std::string& node = {});

  Status addNeighbour(const Neighbour& neighbour, const std::string& node = {});
  Status deleteNeighbour(const IpAddress& ip, PortId port, const std::string& node = {});
  Result<std::vector<Neighbour>> neighbours(const std::string& node = {});

  Result<std::vector<ControlRule>> controlRules(const std::string& node = {});
  /// Replaces the complete rule set.
  Status setControlRules(const std::vector<ControlRule>& rules, const std::string& node = {});

  Result<std::vector<PortInfo>> ports(const std::string& node = {});
  Result<PortId> portByName(const std::string& ifname, const std::string& node = {});

  /// Returns a new fd: the client end of the port's control-frame channel
  /// (SOCK_SEQPACKET, one Ethernet frame per message), received via SCM_RIGHTS.
  /// The caller owns it (close() it, or hand it to an ns-3 FdNetDevice).
  /// `timing.timed`: a timed channel (control_timing.h); refused (EPROTONOSUPPORT) by a
  /// fastpathd that does not confirm it.
  Result<int> openControlChannel(PortId port, const std::string& node = {},
                                 const ControlChannelTiming& timing = {});

  Result<std::vector<CounterSet>> stats(const std::string& node = {});
  /// stats() with since when the histograms and maxima count (StatsReport::epoch).
  Result<StatsReport> statsReport(const std::string& node = {});
  /// Zeroes fastpathd's histograms and maxima (every worker, link, segment and medium;
  /// the counters stay); returns once every worker did. Operators only; needs 1.14.
  Result<StatsEpoch> resetStats();

  /// Starts event delivery (route miss, port up/down, neighbour needed) for the
  /// connection's node, another node, or all nodes; redone after a reconnect.
  Status subscribe(const Subscription& what = {});
  /// The next event: a buffered one at once, else waits up to `timeout_ms`
  /// (0 = just poll, < 0 = forever). An empty optional means none arrived in time.
  Result<std::optional<FastPathEvent>> nextEvent(int timeout_ms);
  /// True when events are buffered (fd() may not be readable then).
  bool hasBufferedEvents() const;

  // Nodes and links of the daemon (protocol 1.3). Creating, deleting and changing them
  // needs an operator (root, the socket's owner, an allowed uid or the daemon's uid):
  // -EACCES otherwise.

  Status createNode(const NodeSpec& spec);
  /// Deletes a node with its links; the default node and nodes with interface ports stay.
  Status deleteNode(const std::string& name);
  Result<std::vector<NodeInfo>> nodes();
  /// An empty LinkEndSpec::port is named after the link; a zero MAC is generated.
  /// LinkSpec::a_to_b/b_to_a emulate the directions (protocol 1.4: a server before 1.4
  /// would ignore them, so such a link is refused here with -ENOSYS). A queue discipline
  /// (LinkParams::aqm) needs 1.9: -EPROTONOSUPPORT naming both versions from an older one.
  Status createLink(const LinkSpec& spec);
  Status deleteLink(const std::string& name);
  /// The whole link, or (`node`, protocol 1.10) that node's end only.
  Status setLinkState(const std::string& name, bool up, const std::string& node = "");
  /// Replaces the emulation parameters of one or both directions of a link, whole (read
  /// links() first to change one field). Invalid values: -EINVAL naming the field, and
  /// the link keeps its previous parameters. Protocol 1.4 (-ENOSYS from an older server);
  /// a queue discipline 1.9 (-EPROTONOSUPPORT naming both versions from an older one).
  Status setLinkParams(const std::string& name, LinkDirection direction, const LinkParams& params);
  /// With each direction's parameters and counters (LinkInfo::a_to_b, a_to_b_stats, ...).
  Result<std::vector<LinkInfo>> links();

  // Segments (protocol 1.5; -ENOSYS from an older server): shared media joining many
  // nodes, as ns-3's CsmaChannel. Same operator rule as links.

  /// An empty SegmentPortSpec::port is named after the segment; a zero MAC is generated.
  Status createSegment(const SegmentSpec& spec);
  Status deleteSegment(const std::string& name);
  /// `node` non-empty: that node's port alone.
  Status setSegmentState(const std::string& name, bool up, const std::string& node = "");
  /// Replaces the medium's emulation parameters, whole (read segments() first to change
  /// one field).
  Status setSegmentParams(const std::string& name, const LinkParams& params);
  /// With the medium's parameters and counters and each port's counters.
  Result<std::vector<SegmentInfo>> segments();

  /// Bridges (protocol 1.11; control_types.h): a learning bridge over segment ports of one
  /// node. A fastpathd older than 1.11: -EPROTONOSUPPORT naming both versions.
  Status createBridge(const BridgeSpec& spec);
  Status deleteBridge(const std::string& name);
  Result<std::vector<BridgeInfo>> bridges();

  // Interface ports at run time and hosts (protocol 1.5; -ENOSYS from an older server;
  // changes need an operator).
  /// Makes interface `ifname` of fastpathd's namespace a port of `node`; the new port.
  Result<PortInfo> attachInterface(const std::string& node, const std::string& ifname);
  Status detachInterface(const std::string& node, const std::string& ifname);
  /// Namespace fp-<name> joined by a veth pair to `node` (eth0 inside, addressed); the host
  /// with its port and eth0's MAC.
  Result<HostInfo> createHost(const HostSpec& spec);
  Status deleteHost(const std::string& name);
  Result<std::vector<HostInfo>> hosts();

  // Packet capture (protocol 1.6; -ENOSYS from an older server; operators only: -EACCES).
  // Frames of a port (received and sent), of a link (each end's frames into it, one
  // direction or both) or of a segment (each port's frames onto it), streamed to this
  // connection in batches until the count is reached or stopCapture(). A capture lives as
  // long as the connection (it does not survive a reconnect).

  /// Starts a capture; spec.node is the node of a port target (empty: the connection's).
  /// A bad target or snap length: -EINVAL / -ENOENT naming the field.
  Result<CaptureInfo> startCapture(const CaptureSpec& spec);
  /// Ends a capture: its last batch (done) follows.
  Status stopCapture(uint64_t id);
  /// The next batch of any capture of this connection: a buffered one at once, else waits
  /// up to `timeout_ms` (0 = just poll, < 0 = forever). Empty: none arrived in time.
  /// Events arriving meanwhile are buffered for nextEvent().
  Result<std::optional<CaptureBatch>> nextCaptureBatch(int timeout_ms);
  // Radio media (protocol 1.6; fastpath/medium_types.h): ad hoc Wi-Fi channels joining many
  // nodes, with a received power per ordered pair of members. Same operator rule as links.

  /// Members as segment ports (an empty port is named after the medium; a zero MAC is
  /// generated); MediumSpec::pairs are the initial pairs.
  Status createMedium(const MediumSpec& spec);
  Status deleteMedium(const std::string& name);
  /// One batch of pair changes, applied at once (a frame sees all of it or none): a pair
  /// with `remove`, or with a power below both thresholds, goes; others are set. Invalid
  /// pairs (unknown member, power out of range): -EINVAL or -ENOENT naming the pair, and
  /// nothing changes.
  Status updateMedium(const std::string& name, const MediumUpdate& update);
  /// With each pair's configured and measured delivery and each member's counters. `name`
  /// empty: every medium; an unknown name: -ENOENT.
  Result<std::vector<MediumInfo>> media(const std::string& name = "");
  // A run over several hosts (protocol 1.7; control_types.h). Operators only, except
  // multiHost().

  /// Declares this daemon's host, the run's tag and its wires; each wire is measured
  /// (waits for the peer's daemon up to the declaration's wait_ms). Returns the state.
  Result<MultiHostInfo> declareMultiHost(const MultiHostDeclaration& declaration);
  /// One end of a link whose other end is on another host; returns it as made (its port).
  Result<CrossLinkInfo> createCrossLink(const CrossLinkSpec& spec);
  Status deleteCrossLink(const std::string& name);
  Result<MultiHostInfo> multiHost();

  /// The socket, for poll()/epoll in the caller's event loop (readable = event or EOF).
  int fd() const;

  /// Drops the connection and connects again (Hello, subscribe, on_reconnect).
  Status reconnect();

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fastpath::ctrl
