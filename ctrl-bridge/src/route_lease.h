// SPDX-License-Identifier: GPL-2.0-only
// Route leases: which routes and neighbours each owner (a node_name that said Hello with
// route_grace_period_ms > 0) installed, and when to withdraw them after the owner's last
// connection closed. Pure bookkeeping plus one backend call per expiry; driven by the
// dispatcher (ownership) and the server's poll loop (expire()). Internal to ctrl-bridge.
//
// Ownership is "last writer wins": a prefix added by an owner belongs to it; the same
// prefix added later by fpctl or another owner leaves its set; a removal (by anyone)
// removes it from every set; replace-all makes the writer the owner of exactly its set.
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

  explicit RouteLeases(ControlBackend& backend) : backend_(backend) {}

  /// A connection of `owner` said Hello with a grace period (> 0). Cancels a pending expiry.
  void attach(const std::string& owner, uint32_t grace_ms);
  /// A connection of `owner` went away (or said Hello as someone else). Starts the grace
  /// timer when it was the owner's last connection.
  void detach(const std::string& owner, Clock::time_point now);

  /// Records an applied batch; `owner` empty = a writer without a lease (fpctl, grace 0).
  void recordBatch(const std::string& owner, const RouteBatch& batch);
  void recordNeighbourAdd(const std::string& owner, const IpAddress& ip, PortId port);
  void recordNeighbourDelete(const IpAddress& ip, PortId port);

  /// Withdraws the routes/neighbours of every owner whose grace period ended by `now`.
  void expire(Clock::time_point now);
  /// The earliest pending expiry, if any (the server bounds its epoll wait by it).
  std::optional<Clock::time_point> nextDeadline() const;

  /// How many prefixes `owner` currently owns (tests, logs).
  std::size_t ownedRoutes(const std::string& owner) const;
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
  static std::string prefixKey(const IpPrefix& p);
  static std::string neighbourKey(const IpAddress& ip, PortId port);
  void withdraw(const std::string& name, Owner& o);

  ControlBackend& backend_;
  std::unordered_map<std::string, Owner> owners_;
  Counters ctr_;
};

}  // namespace fastpath::ctrl
