// SPDX-License-Identifier: GPL-2.0-only
// What a worker knows of the link ports it serves: one immutable table per worker,
// published by the daemon's control thread with a release store and reclaimed through the
// epoch domain (as the forwarding table's versions are). A link port has no socket and no
// NIC: frames sent on it go to the peer end's LinkQueue, and frames arriving on it are
// classified by the userspace twin of the XDP classifier with the node's rules.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "link/link_queue.h"
#include "link/link_shaper.h"

namespace fastpath {

class ControlChannel;
class FibView;
class UserspaceClassifier;

/// Port ids: interface ports are [0, kFirstLinkPort), link ports [kFirstLinkPort, kMaxPorts).
inline constexpr PortId kFirstLinkPort = PortId(kMaxInterfacePorts);
inline constexpr PortId kMaxPorts = kFirstLinkPort + PortId(2 * kMaxLinks);

/// Up/down of one link, shared by both ends and every worker.
struct LinkState {
  std::atomic<bool> up{true};
};

struct LinkPortSlot {
  PortId port = 0;                  ///< this end
  PortId peer = 0;                  ///< the other end
  LinkQueue* inbound = nullptr;     ///< frames arriving at `port` (in this worker)
  LinkQueue* to_peer = nullptr;     ///< where frames sent on `port` go (the peer's inbound)
  const LinkState* state = nullptr;
  const FibView* fib = nullptr;     ///< the node's table
  const UserspaceClassifier* classifier = nullptr;  ///< the node's rules, this port's MAC
  ControlChannel* channel = nullptr;  ///< nullptr until a client opens the port's channel
  /// Link emulation of the direction port -> peer (this worker's); nullptr: frames pass
  /// to the peer at once.
  LinkShaper* shaper = nullptr;
};

struct LinkPortTable {
  uint64_t version = 0;
  std::vector<LinkPortSlot> slots;
  /// port - kFirstLinkPort -> index in `slots`, or -1 (sized kMaxPorts - kFirstLinkPort).
  std::vector<int32_t> slot_of;
  /// Queues of deleted links the worker must drain (frames discarded and counted).
  std::vector<LinkQueue*> retired;
  /// Shapers of deleted links (drained, frames discarded and counted) or replaced by a
  /// larger one (their frames and state move to `successor`).
  std::vector<LinkShaper*> retired_shapers;
  /// Emulation of interface ports' egress, by port id (empty, or nullptr: none).
  std::vector<LinkShaper*> egress;

  const LinkPortSlot* find(PortId port) const {
    if (port < kFirstLinkPort || port - kFirstLinkPort >= slot_of.size()) return nullptr;
    const int32_t i = slot_of[port - kFirstLinkPort];
    return i < 0 ? nullptr : &slots[size_t(i)];
  }
};

}  // namespace fastpath
