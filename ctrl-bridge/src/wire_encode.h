// SPDX-License-Identifier: GPL-2.0-only
// Domain types -> the wire schema (fastpath.v1), used by both ends of the control socket.
// Internal to ctrl-bridge.
#pragma once

#include "fastpath/control_backend.h"
#include "fastpath/net_types.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

namespace v1 = ::fastpath::v1;

void toWire(const IpAddress& in, v1::IpAddress* out);
void toWire(const IpPrefix& in, v1::Prefix* out);
void toWire(const Route& in, v1::Route* out);
void toWire(const Neighbour& in, v1::Neighbour* out);
void toWire(const ControlRule& in, v1::ControlRule* out);
void toWire(const PortInfo& in, v1::Port* out);
void toWire(const CounterSet& in, v1::CounterSet* out);
void toWire(const FastPathEvent& in, v1::Event* out);
void toWire(const NodeInfo& in, v1::Node* out);
void toWire(const LinkInfo& in, v1::Link* out);
void toWire(const LinkParams& in, v1::LinkParams* out);
void toWire(const LinkDirectionStats& in, v1::LinkDirectionStats* out);
v1::LinkDirection toWire(LinkDirection in);
/// What a client sends to create a node or a link (client side).
void toWire(const NodeSpec& in, v1::CreateNode* out);
void toWire(const LinkSpec& in, v1::CreateLink* out);
void toWire(const SegmentInfo& in, v1::Segment* out);
void toWire(const SegmentSpec& in, v1::CreateSegment* out);
void toWire(const HostSpec& in, v1::CreateHost* out);

}  // namespace fastpath::ctrl
