// SPDX-License-Identifier: GPL-2.0-only
// A run over several hosts (protocol 1.7) on the wire: requests -> validated domain values
// (server side, refusals name the field), domain values -> the wire (both sides) and
// replies -> domain values (client side). Internal to ctrl-bridge.
#pragma once

#include <string>

#include "fastpath/control_types.h"
#include "wire_error.h"

namespace fastpath::ctrl {

/// Host and peer names (validName), the run tag (1..6 of a-z 0-9, empty: the default),
/// 1..64 wires with interface names, each peer once.
WireResult<MultiHostDeclaration> multiHostDeclarationFromWire(const v1::MultiHostDeclare& in,
                                                              const std::string& field);
/// Names, MACs (empty: from the link's name), VLAN 2..4094, MTU (0 = 1500), end a or b,
/// the egress emulation (linkParamsFromWire).
WireResult<CrossLinkSpec> crossLinkSpecFromWire(const v1::MultiHostCreateLink& in,
                                                const std::string& field);

void toWire(const MultiHostDeclaration& in, v1::MultiHostDeclare* out);
void toWire(const CrossLinkSpec& in, v1::MultiHostCreateLink* out);
void toWire(const MultiHostInfo& in, v1::MultiHostState* out);

MultiHostInfo multiHostFromReply(const v1::MultiHostState& in);

}  // namespace fastpath::ctrl
