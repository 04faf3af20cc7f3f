// SPDX-License-Identifier: GPL-2.0-only
// The wire schema -> domain types for what a server sends (client side): lenient, since
// the server validated it and a newer server may add values this client does not know.
// Internal to ctrl-bridge.
#pragma once

#include <cstring>
#include <optional>

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

namespace v1 = ::fastpath::v1;

IpAddress addressFromReply(const v1::IpAddress& in);
IpPrefix prefixFromReply(const v1::Prefix& in);
Route routeFromReply(const v1::Route& in);
Neighbour neighbourFromReply(const v1::Neighbour& in);
ControlRule controlRuleFromReply(const v1::ControlRule& in);
PortInfo portFromReply(const v1::Port& in);
CounterSet counterSetFromReply(const v1::CounterSet& in);
/// Empty for an event kind this client does not know (sent by a newer server).
std::optional<FastPathEvent> eventFromReply(const v1::Event& in);
NodeInfo nodeFromReply(const v1::Node& in);
/// With the configured parameters and measured counters of each direction (1.4; a 1.3
/// server sends none: frames pass at once, counters 0).
LinkInfo linkFromReply(const v1::Link& in);
LinkParams linkParamsFromReply(const v1::LinkParams& in);
/// The queue discipline of `in` into `p` (none when unset); false: a kind this version
/// does not know (`p` unchanged).
bool linkAqmFromWire(const v1::LinkParams& in, LinkParams* p);
LinkDirectionStats linkStatsFromReply(const v1::LinkDirectionStats& in);
SegmentInfo segmentFromReply(const v1::Segment& in);
HostInfo hostFromReply(const v1::Host& in);

/// The fields a segment's and a medium's member ports share (v1::SegmentPort,
/// v1::MediumPort): where the port is, its MAC and MTU, what it sent and received.
template <typename Wire, typename Port>
void memberPortFromReply(const Wire& w, Port* p) {
  p->node = w.node();
  p->port = w.port();
  p->id = w.id();
  if (w.mac().size() == 6) std::memcpy(p->mac.bytes.data(), w.mac().data(), 6);
  p->mtu = w.mtu();
  p->tx_packets = w.tx_packets();
  p->tx_bytes = w.tx_bytes();
  p->rx_packets = w.rx_packets();
  p->rx_bytes = w.rx_bytes();
}

}  // namespace fastpath::ctrl
