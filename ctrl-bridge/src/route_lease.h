// SPDX-License-Identifier: GPL-2.0-only
// Route leases: which routes and neighbours each owner (a node_name that said Hello with
// route_grace_period_ms > 0) installed, and when to withdraw them after the owner's last
// connection closed. Pure bookkeeping plus one backend call per expiry; driven by the
// dispatcher (ownership) and the server's poll loop (expire()). Internal to ctrl-bridge.
//
// Leases are per fastpathd node: an owner is (node, node_name), its routes and neighbours
// are those it installed in that node, and they are withdrawn from that node's backend.
// Ownership is "last writer wins" inside one node: a prefix added by an owner belongs to
// it; the same prefix added later in the same node by fpctl or another owner leaves its
// set; a removal (by anyone) removes it from every set of the node; replace-all makes the
// writer the owner of exactly its set in that node. Nodes are named canonically
// (kDefaultNodeName for the default node).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "fastpath/control_backend.h"

namespace fastpath::ctrl {

class RouteLeases {
 public:
  using Clock = std::chrono::steady_clock;

  struct Counters {
    uint64_t expired = 0;    ///< leases that ran out (owner did not come back)
    uint64_t cancelled = 0;  ///< owner said Hello again within the grace period
    uint64_t routes_withdrawn = 0;
    uint64_t neighbours_withdrawn = 0;
  };

  /// `topology`: the daemon's nodes; expiries reach a node through node().
  explicit RouteLeases(TopologyControl& topology) : topology_(topology) {}

  /// A connection of `owner` bound to `node` said Hello with a grace period (> 0). Cancels
  /// a pending expiry.
  void attach(const std::string& node, const std::string& owner, uint32_t grace_ms);
  /// A connection of (`node`, `owner`) went away (or said Hello as someone else). Starts
  /// the grace timer when it was the owner's last connection.
  void detach(const std::string& node, const std::string& owner, Clock::time_point now);

  /// Records a batch applied to `node`; `owner` empty = a writer without a lease (fpctl,
  /// grace 0, or a request for a node other than the writer's own).
  void recordBatch(const std::string& node, const std::string& owner, const RouteBatch& batch);
  void recordNeighbourAdd(const std::string& node, const std::string& owner, const IpAddress& ip,
                          PortId port);
  void recordNeighbourDelete(const std::string& node, const IpAddress& ip, PortId port);
  /// The node was deleted: its leases go with it (nothing left to withdraw).
  void forgetNode(const std::string& node);

  /// Withdraws the routes/neighbours of every owner whose grace period ended by `now`.
  void expire(Clock::time_point now);
  /// The earliest pending expiry, if any (the server bounds its epoll wait by it).
  std::optional<Clock::time_point> nextDeadline() const;

  /// How many prefixes (`node`, `owner`) currently owns (tests, logs).
  std::size_t ownedRoutes(const std::string& node, const std::string& owner) const;
  const Counters& counters() const { return ctr_; }

 private:
  struct PrefixHash {
    std::size_t operator()(const IpPrefix& p) const noexcept;
  };
  struct Owner {
    uint32_t grace_ms = 0;
    int connections = 0;
    bool pending = false;
    Clock::time_point deadline;
    std::unordered_set<IpPrefix, PrefixHash> prefixes;
    std::unordered_map<std::string, std::pair<IpAddress, PortId>> neighbours;
  };
  /// The owners of one node, by node_name.
  using Owners = std::unordered_map<std::string, Owner>;
  static std::string prefixKey(const IpPrefix& p);
  static std::string neighbourKey(const IpAddress& ip, PortId port);
  /// The owners of `node`; nullptr when nobody holds a lease there.
  Owners* ownersOf(const std::string& node);
  void withdraw(const std::string& node, const std::string& name, Owner& o);

  TopologyControl& topology_;
  std::unordered_map<std::string, Owners> nodes_;
  Counters ctr_;
};

}  // namespace fastpath::ctrl
