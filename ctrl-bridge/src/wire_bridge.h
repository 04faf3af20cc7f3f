// SPDX-License-Identifier: GPL-2.0-only
// Bridges (protocol 1.11) on the wire: CreateBridge -> a validated BridgeSpec (server
// side, refusals name the field), domain values -> the wire (both sides) and replies ->
// domain values (client side). Internal to ctrl-bridge.
#pragma once

#include <string>

#include "fastpath/control_types.h"
#include "wire_error.h"

namespace fastpath::ctrl {

/// The first protocol minor whose servers have bridges.
inline constexpr uint32_t kBridgeMinor = 11;

/// Name, node, 1 .. kMaxBridgePorts distinct port names, ageing (0: 300 s).
WireResult<BridgeSpec> bridgeSpecFromWire(const v1::CreateBridge& in, const std::string& field);

void toWire(const BridgeSpec& in, v1::CreateBridge* out);
void toWire(const BridgeInfo& in, v1::Bridge* out);

BridgeInfo bridgeFromReply(const v1::Bridge& in);

}  // namespace fastpath::ctrl
