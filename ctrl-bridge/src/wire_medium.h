// SPDX-License-Identifier: GPL-2.0-only
// Radio media (protocol 1.6) on the wire: requests -> validated domain values (server
// side, refusals name the field), domain values -> the wire (both sides) and replies ->
// domain values (client side). Internal to ctrl-bridge.
#pragma once

#include <string>

#include "fastpath/medium_types.h"
#include "wire_error.h"

namespace fastpath::ctrl {

WireResult<MediumPhy> mediumPhyFromWire(const v1::MediumPhy& in, const std::string& field);
/// A pair's names and power; membership is the backend's to check (it knows the members).
WireResult<MediumPair> mediumPairFromWire(const v1::MediumPair& in, const std::string& field);
/// Name, 1 .. kMaxMediumPorts ports (as a segment's: each node once, distinct MACs), the
/// PHY (validateMediumPhy), the initial pairs (between members).
WireResult<MediumSpec> mediumSpecFromWire(const v1::CreateMedium& in, const std::string& field);
/// Name and at most kMaxMediumPairsPerUpdate pairs.
WireResult<MediumUpdate> mediumUpdateFromWire(const v1::UpdateMedium& in,
                                              const std::string& field);

void toWire(const MediumPhy& in, v1::MediumPhy* out);
void toWire(const MediumPair& in, v1::MediumPair* out);
void toWire(const MediumSpec& in, v1::CreateMedium* out);
void toWire(const std::string& name, const MediumUpdate& in, v1::UpdateMedium* out);
void toWire(const MediumInfo& in, v1::Medium* out);

MediumPhy mediumPhyFromReply(const v1::MediumPhy& in);
MediumInfo mediumFromReply(const v1::Medium& in);

}  // namespace fastpath::ctrl
