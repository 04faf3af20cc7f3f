// SPDX-License-Identifier: GPL-2.0-only
// How fpctl shows emulation parameters and counters (link.cc), for the commands that
// show them too (segment.cc).
#pragma once

#include <string>

#include "fastpath/control_backend.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {

/// One line: "rate 10mbit delay 5ms ..." or "none".
std::string linkParamsSummary(const LinkParams& p);
/// The configured parameters as a JSON object.
void linkParamsJson(JsonWriter& w, const LinkParams& p);
/// The measured counters as a JSON object.
void linkStatsJson(JsonWriter& w, const LinkDirectionStats& s);
/// What was measured, one line: "sent N delivered N drops N (x%) queue N in-flight N
/// sojourn p50/p99".
std::string linkStatsLine(const LinkDirectionStats& s);

}  // namespace fastpath::ctrl::fpctl
