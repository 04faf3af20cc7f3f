// SPDX-License-Identifier: GPL-2.0-only
// Timed control channels: the framing an ns-3 client and fastpathd agree on when the client
// opens a port's control channel with timing (OpenControlChannel.timed, protocol 1.8), and
// the rules both ends apply to the times it carries. Every message on such a channel, in
// both directions, starts with one ControlStamp before the Ethernet frame:
//   client -> fastpathd: when the model has the node send the frame (the simulator's send
//     time on fastpathd's clock); fastpathd uses it as the frame's sending time on its link.
//   fastpathd -> client: when the model has the frame arrive at the port (0: not emulated,
//     deliver now); fastpathd may hand a frame over up to the channel's lead before it.
// Times are CLOCK_MONOTONIC nanoseconds of the host both run on. Channels opened without
// timing (fpctl, older clients, raw tests) carry bare frames as before.
#pragma once

#include <cstdint>

namespace fastpath {

/// The stamp before each frame of a timed channel (host byte order: both ends share a host).
struct ControlStamp {
  uint64_t time_ns = 0;
};
static_assert(sizeof(ControlStamp) == 8);
inline constexpr uint32_t kControlStampBytes = sizeof(ControlStamp);

/// The most fastpathd hands a frame over before its arrival time (a client asking more
/// gets this).
inline constexpr uint64_t kMaxDeliveryLeadNs = 100000000;  // 100 ms

/// What a client asks for when it opens a control channel.
struct ControlChannelTiming {
  bool timed = false;    ///< frames carry a ControlStamp in both directions
  uint64_t lead_ns = 0;  ///< frames for the client may come this long before their arrival
};

/// A send stamp as fastpathd takes it (the relay, per channel): never in the future (a
/// client clock mapping ahead of fastpathd's clock), never before the channel's previous
/// frame (FIFO on the link holds), and a missing stamp (0) is now.
struct SentStamp {
  uint64_t sent = 0;      ///< the sending time to use
  uint64_t age = 0;       ///< how long before `now` it was (the client's own lateness)
  bool future = false;    ///< clamped to `now`
  bool reordered = false; ///< clamped to the previous frame's
};

inline SentStamp clampSentStamp(uint64_t stamp, uint64_t now, uint64_t previous) {
  SentStamp s;
  s.sent = stamp ? stamp : now;
  if (s.sent > now) {
    s.sent = now;
    s.future = true;
  }
  if (s.sent < previous) {
    s.sent = previous < now ? previous : now;
    s.reordered = true;
  }
  s.age = now - s.sent;
  return s;
}

/// Whether a frame held by a link's emulation may leave it now, before its arrival time:
/// only when its whole remaining way is the timed client of the link's peer end (the peer
/// classifies it CONTROL: nothing forwards it on, so nothing but the client, which delivers
/// it at its arrival time, sees it early), and it arrives within the client's lead.
inline bool mayDeliverEarly(uint64_t arrival, uint64_t now, uint64_t lead_ns,
                            bool peer_client_timed, bool peer_verdict_control) {
  return peer_client_timed && peer_verdict_control && lead_ns > 0 && arrival > now &&
         arrival - now <= lead_ns;
}

}  // namespace fastpath
