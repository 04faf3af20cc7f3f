// SPDX-License-Identifier: GPL-2.0-only
// A topology with many nodes for tests (and the fuzzer): the default node is this
// TableBackend itself (ports fp0..fp2, ids 0..2), every other node a TableBackend of its
// own over its own FibManager, links give each end's node a port and keep their emulation
// parameters (validated as fastpathd does) and the counters a test gives them. What
// fastpathd's daemon does with nodes, minus the workers and interfaces: enough to check
// that the control channel keeps nodes apart.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "table_backend.h"

namespace fastpath::ctrl::testing {

class MultiNodeBackend : public TableBackend {
 public:
  /// `max_nodes` counts the default node; new nodes' tables are sized small (tests).
  explicit MultiNodeBackend(std::vector<PortInfo> default_ports = defaultPorts(),
                            std::size_t max_nodes = 64);
  ~MultiNodeBackend() override;

  /// A node with interface ports, as a topology file would give it (ids must be unused
  /// in the daemon). Such a node cannot be deleted.
  Status addNode(const std::string& name, std::vector<PortInfo> interface_ports,
                 const std::string& host = "local");
  /// The node's table ("" or "default": this); nullptr when there is no such node.
  TableBackend* table(const std::string& node);
  /// Interface ports "<prefix>0".."<prefix>(n-1)" with ids first..first+n-1 for addNode().
  static std::vector<PortInfo> interfacePorts(const std::string& prefix, PortId first,
                                              unsigned n = 2);
  /// Back to the default node alone, its tables empty (the fuzzer, between inputs).
  void resetTopology();
  /// Back to the default node and r1 (interface ports r1-eth0/1, ids 10/11), no links: what
  /// the fuzzers start every input from. An r1 that is there stays (emptying its tables
  /// costs less than a new node's); false when r1 is missing and cannot be added.
  bool keepDefaultAndR1();
  /// What links() reports as measured for a link's directions (the daemon's workers count
  /// them; here a test says what they are). False when there is no such link.
  bool setLinkStats(const std::string& name, const LinkDirectionStats& a_to_b,
                    const LinkDirectionStats& b_to_a);
  /// Counter sets the default node's stats() adds, e.g. fastpathd's "worker N" sets with
  /// the emulation's lateness.
  void setExtraStats(std::vector<CounterSet> sets) { extra_stats_ = std::move(sets); }

  Result<NodeControl*> node(const std::string& name) override;
  Status createNode(const NodeSpec& spec) override;
  Status deleteNode(const std::string& name) override;
  std::vector<NodeInfo> nodes() const override;
  Status createLink(const LinkSpec& spec) override;
  Status deleteLink(const std::string& name) override;
  Status setLinkState(const std::string& name, bool up, const std::string& node) override;
  /// Validated as fastpathd does (validateLinkParams): on error the link keeps its
  /// parameters.
  Status setLinkParams(const std::string& name, LinkDirection direction,
                       const LinkParams& params) override;
  std::vector<LinkInfo> links() const override;
  std::vector<CounterSet> stats() const override;

 private:
  struct Node {
    NodeInfo info;
    std::unique_ptr<TableBackend> table;
    bool has_interfaces = false;
  };
  static bool isDefault(const std::string& name);
  TableBackend* tableOf(const std::string& node);
  Status addLinkPort(const std::string& node, const std::string& link, LinkInfo::End& end);
  void linkEvents(const LinkInfo& l, bool up);

  std::size_t max_nodes_;
  std::map<std::string, Node> nodes_;  // not the default node
  std::map<std::string, LinkInfo> links_;
  std::vector<CounterSet> extra_stats_;
  uint32_t next_node_id_ = 1;
  PortId next_port_ = 1000;
  uint32_t next_mac_ = 1;
};

}  // namespace fastpath::ctrl::testing
