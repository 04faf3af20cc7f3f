// SPDX-License-Identifier: GPL-2.0-only
// One node of a multi-node fastpathd, as the control plane sees it: the NodeControl of
// that node alone — its table (a FibManager of its own), neighbours, ports (interface and
// link ports), control rules, control channels and counters. What a node does is done by
// the Daemon that owns it (ports, channels and workers are daemon-wide resources); a node
// only ever touches its own ports, so nothing of one node is visible to another.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "table/fib_manager.h"

namespace fastpath {

class Daemon;

class Node : public NodeControl {
 public:
  Node(Daemon& daemon, uint32_t id, NodeSpec spec, std::unique_ptr<FibManager> fib);

  const std::string& name() const { return spec_.name; }
  const NodeSpec& spec() const { return spec_; }
  uint32_t id() const { return id_; }
  FibManager& fib() { return *fib_; }
  const FibManager& fib() const { return *fib_; }
  /// Interface and link ports, in creation order.
  const std::vector<PortId>& portIds() const { return ports_; }
  bool owns(PortId port) const;
  void addPort(PortId port) { ports_.push_back(port); }
  void removePort(PortId port);
  /// Sets the port's up flag in the node's table (routes through a down port are counted
  /// drops). Error only when the table refuses.
  Status setPortUp(PortId port, bool up);

  // NodeControl: this node's alone.
  Status applyRoutes(const RouteBatch& batch) override;
  std::vector<Route> routes() const override;
  Status addNeighbour(const Neighbour& n) override;
  Status deleteNeighbour(const IpAddress& ip, PortId port) override;
  std::vector<Neighbour> neighbours() const override;
  Status setControlRules(const std::vector<ControlRule>& rules) override;
  std::vector<ControlRule> controlRules() const override { return rules_; }
  std::vector<PortInfo> ports() const override;
  Result<PortId> portByName(const std::string& name) const override;
  std::vector<CounterSet> stats() const override;
  Result<int> controlChannelFd(PortId port) override;
  Result<int> controlChannelFd(PortId port, const ControlChannelTiming& timing) override;
  void releaseControlChannel(PortId port) override;
  Status setPortParams(PortId port, const LinkParams& params) override;

 private:
  /// "node NAME: " before a message, for every error this node returns.
  Error named(const Error& e) const;
  Status checkPort(PortId port) const;

  Daemon& daemon_;
  uint32_t id_;
  NodeSpec spec_;
  std::unique_ptr<FibManager> fib_;
  std::vector<PortId> ports_;
  std::vector<ControlRule> rules_;
};

}  // namespace fastpath
