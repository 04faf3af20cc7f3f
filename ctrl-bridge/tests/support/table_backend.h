// SPDX-License-Identifier: GPL-2.0-only
// One node over a real FibManager, with a fixed port list and a socketpair per port for
// control channels: everything a fastpathd node does except the interfaces. It is its own
// topology, a SingleNodeTopology (one node, no links), so a server can be given it alone.
// Used by the ctrl-bridge tests, the fuzzer and the benchmarks (and fpctl demos).
#pragma once

#include <map>
#include <vector>

#include "fastpath/control_backend.h"
#include "fib_testing.h"
#include "table/fib_manager.h"

namespace fastpath::ctrl::testing {

class TableBackend : public NodeControl, public SingleNodeTopology {
 public:
  /// Ports fp0..fp(n-1), ids 0..n-1, MACs 02:00:00:00:00:0<id+1>.
  static std::vector<PortInfo> defaultPorts(unsigned n = 3);

  explicit TableBackend(std::vector<PortInfo> ports = defaultPorts(),
                        size_t max_v4_routes = 1 << 20, size_t max_v6_routes = 1 << 16);
  ~TableBackend() override;

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
  /// This backend keeps no histograms; its epoch moves with each reset as fastpathd's does.
  StatsEpoch statsEpoch() const override { return epoch_; }
  Result<StatsEpoch> resetStats() override;
  /// A test's epoch (a fixed time, for output compared to the letter).
  void setStatsEpoch(const StatsEpoch& epoch) { epoch_ = epoch; }
  /// Refused: this backend emulates nothing.
  Status setPortParams(PortId port, const LinkParams& params) override;
  Result<int> controlChannelFd(PortId port) override;
  void releaseControlChannel(PortId port) override { released_.push_back(port); }
  /// Ports released so far, in order.
  const std::vector<PortId>& released() const { return released_; }
  void setEventSink(std::function<void(const FastPathEvent&)> sink) override;

  /// Sends an event to the sink (call on the server's thread).
  void emit(const FastPathEvent& e);

  /// Adds a port (a link's end in a multi-node test backend); its id must be unused.
  Status addPort(const PortInfo& port);
  /// Removes a port with the routes and neighbours through it, and its control channel.
  Status removePort(PortId port);
  Status setPortUp(PortId port, bool up);
  /// fastpathd's end of a port's control channel (-1 before the first open).
  int daemonEnd(PortId port) const;
  FibManager& fib() { return *fib_; }

 private:
  Status pushPorts();
  std::vector<PortInfo> ports_;
  std::unique_ptr<FibManager> fib_;
  std::vector<ControlRule> rules_;
  std::map<PortId, std::pair<int, int>> channels_;  // port -> (daemon end, client end)
  std::function<void(const FastPathEvent&)> sink_;
  std::vector<PortId> released_;
  StatsEpoch epoch_;
};

}  // namespace fastpath::ctrl::testing
