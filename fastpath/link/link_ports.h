// SPDX-License-Identifier: GPL-2.0-only
// What a worker knows of the link ports it serves: one immutable table per worker,
// published by the daemon's control thread with a release store and reclaimed through the
// epoch domain (as the forwarding table's versions are). A link port has no socket and no
// NIC: frames sent on it go to the peer end's LinkQueue, and frames arriving on it are
// classified by the userspace twin of the XDP classifier with the node's rules. Segment
// ports are link ports too: what they send enters their segment's medium and is fanned out
// to the destination's port(s).
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
struct BridgeState;
namespace medium {
class RadioMedium;
}
class FibView;
class UserspaceClassifier;

/// Port ids: interface ports are [0, kFirstLinkPort), link ports [kFirstLinkPort, kMaxPorts).
inline constexpr PortId kFirstLinkPort = PortId(kMaxInterfacePorts);
inline constexpr PortId kMaxPorts = kFirstLinkPort + PortId(2 * kMaxLinks);

/// Up/down of one link (shared by both ends and every worker) or of one port.
struct LinkState {
  std::atomic<bool> up{true};
};

struct BridgeSlot;

/// One port of a segment, as the fan-out at delivery needs it.
struct SegmentMember {
  PortId port = 0;
  uint8_t mac[6] = {};
  LinkQueue* inbound = nullptr;  ///< frames delivered to `port` (in this worker)
  const LinkState* port_state = nullptr;  ///< the port's own up/down
  /// A bridge's port (as ns-3's BridgeNetDevice puts its ports in promiscuous mode): it
  /// hears every frame on the segment and hands it to `bridge` as its port `bridge_port`,
  /// never to its node. nullptr: a node's port.
  const BridgeSlot* bridge = nullptr;
  uint16_t bridge_port = 0;
};

/// A learning bridge in one worker (ns-3's BridgeNetDevice): its ports, each a segment
/// port (port i is `ports[i]`), and this worker's learning table and counters.
struct BridgeSlot {
  std::vector<PortId> ports;
  BridgeState* state = nullptr;
  uint64_t ageing_ns = 300'000'000'000ull;  ///< ns-3's ExpirationTime, 300 s
};

/// A segment (shared medium) in one worker: its ports, its state and the one shaper of
/// the medium, which every port's frames enter in sending order. Frames leave the medium
/// whole and are fanned out: to the port of the destination MAC, or (broadcast,
/// multicast) to every port but the sender, a copy per extra port.
struct SegmentSlot {
  std::vector<SegmentMember> members;
  const LinkState* state = nullptr;
  LinkShaper* shaper = nullptr;  ///< nullptr: frames are fanned out at once
  bool bridged = false;          ///< a member is a bridge's port
};

/// A radio medium in one worker: its members (member i is `members[i]`), its state and
/// this worker's model of the channel (medium/radio_medium.h), which decides who receives
/// what and when.
struct MediumMember {
  PortId port = 0;
  uint8_t mac[6] = {};
  LinkQueue* inbound = nullptr;  ///< frames received by `port` (in this worker)
};
struct MediumSlot {
  std::vector<MediumMember> members;
  const LinkState* state = nullptr;
  medium::RadioMedium* model = nullptr;
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
  /// Segment ports: their segment (then `peer`, `to_peer` and `shaper` are unused).
  const SegmentSlot* segment = nullptr;
  /// The port's own up/down (link and segment ports; `state` is the link's or the
  /// segment's): a port that is down neither sends nor receives. nullptr: always up.
  const LinkState* port_state = nullptr;
  /// Radio medium ports: their medium and their member index in it.
  const MediumSlot* medium = nullptr;
  uint32_t member = 0;
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
  /// Segments (LinkPortSlot::segment points here; never resized after publication).
  std::vector<SegmentSlot> segments;
  /// Bridges (SegmentMember::bridge points here; never resized after publication).
  std::vector<BridgeSlot> bridges;
  /// Radio media (LinkPortSlot::medium points here; never resized after publication).
  std::vector<MediumSlot> media;
  /// Models of deleted media: the worker gives their frames back, then marks them drained.
  std::vector<medium::RadioMedium*> retired_media;
  /// Emulation of interface ports' egress, by port id (empty, or nullptr: none).
  std::vector<LinkShaper*> egress;

  const LinkPortSlot* find(PortId port) const {
    if (port < kFirstLinkPort || port - kFirstLinkPort >= slot_of.size()) return nullptr;
    const int32_t i = slot_of[port - kFirstLinkPort];
    return i < 0 ? nullptr : &slots[size_t(i)];
  }
};

}  // namespace fastpath
