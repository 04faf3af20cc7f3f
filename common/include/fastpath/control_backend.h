// SPDX-License-Identifier: GPL-2.0-only
// What the ctrl-bridge server needs from fastpathd. fastpathd implements it; the
// ctrl-bridge server (ctrl-bridge/) translates protobuf to these domain types at its edge
// and calls it, always from fastpathd's single control thread. Tests implement it over a
// plain FibManager without any interface.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastpath/net_types.h"
#include "fastpath/result.h"

namespace fastpath {

struct PortInfo {
  PortId id = 0;
  std::string ifname;
  int ifindex = 0;
  MacAddress mac;
  uint32_t mtu = 1500;
  bool up = false;
  uint32_t queues = 1;
  std::string xdp_mode;  ///< "native" or "generic"
  std::string xsk_mode;  ///< "zerocopy" or "copy"
};

/// Named counters, so the wire format need not change when a counter is added.
struct CounterSet {
  std::string scope;  ///< "port fp1", "worker 0", "classifier fp1", "control", ...
  std::vector<std::pair<std::string, uint64_t>> counters;
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
struct FastPathEvent {
  enum class Kind : uint8_t { kRouteMiss, kPortUp, kPortDown, kNeighbourNeeded, kEventsDropped };
  Kind kind = Kind::kRouteMiss;
  PortId port = 0;
  IpAddress address;     ///< destination (route miss) or next hop (neighbour needed)
  uint64_t dropped = 0;  ///< kEventsDropped
};

class ControlBackend {
 public:
  virtual ~ControlBackend() = default;

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
  /// The last client that opened the port's channel is gone (its control connection
  /// closed): frames for the port are counted drops (no_control_client) instead of
  /// filling a channel nobody reads, until a client opens it again.
  virtual void releaseControlChannel(PortId port) = 0;

  /// Called (on the control thread) for every event; set once by the server.
  virtual void setEventSink(std::function<void(const FastPathEvent&)> sink) = 0;
};

}  // namespace fastpath
