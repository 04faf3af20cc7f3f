// SPDX-License-Identifier: GPL-2.0-only
// What tells a host's VXLAN wires that the underlay changed: the kernel's route and
// neighbour notifications (rtnetlink groups RTNLGRP_IPV4_ROUTE and RTNLGRP_NEIGH, through
// libnl), read without blocking from the daemon's control loop. The wires then ask the
// kernel for their next hop again (underlay.h): the host's own routing stays the authority
// on where the underlay goes, and a watcher only says when to look. It also asks the kernel
// to resolve a next hop that has no MAC yet (NTF_USE), as sending a frame to it would.
// Not a public header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fastpath/net_types.h"
#include "fastpath/result.h"

struct nl_sock;
struct nl_msg;

namespace fastpath {

class UnderlayWatch {
 public:
  /// Subscribes to the kernel's IPv4 route and neighbour changes of this network namespace.
  static Result<std::unique_ptr<UnderlayWatch>> open();
  ~UnderlayWatch();
  UnderlayWatch(const UnderlayWatch&) = delete;
  UnderlayWatch& operator=(const UnderlayWatch&) = delete;

  /// Reads every notification the kernel queued since the last call, never blocking: true
  /// when a route or a neighbour was added, changed or removed (or notifications were lost:
  /// the caller looks again either way).
  bool changed();
  /// Asks the kernel to resolve `next_hop` on interface `ifindex` (ARP), as a frame to it
  /// would; its answer arrives as a neighbour notification. 0 or a negative errno.
  int resolve(int ifindex, const IpAddress& next_hop);
  /// Notifications read so far (route and neighbour), for the counters.
  uint64_t notifications() const { return notifications_; }

 private:
  UnderlayWatch() = default;
  static int onMessage(nl_msg* msg, void* self);

  nl_sock* sock_ = nullptr;  ///< the subscription
  nl_sock* req_ = nullptr;   ///< requests (NTF_USE)
  bool changed_ = false;
  uint64_t notifications_ = 0;
};

}  // namespace fastpath
