// SPDX-License-Identifier: GPL-2.0-only
// RED's words of the link parameters ("aqm red red-min 5 red-max 15 feng"): read, written
// and checked here, so link_params.cc stays the discipline-neutral part.
#pragma once

#include <string>
#include <vector>

#include "fastpath/link_params.h"
#include "fastpath/result.h"

namespace fastpath {

/// Every out-of-range RED setting, one message each naming the word and the range.
std::vector<std::string> redProblems(const LinkParams::Red& r);

/// Reads the RED word at a[i] (and its value): the number of words used, 0 when a[i] is
/// not one of RED's; a bad value is an error naming the word.
Result<size_t> applyRedWord(const std::vector<std::string>& a, size_t i, LinkParams::Red* r);

/// RED's words, those that differ from ns-3's defaults (all of them with `all`).
std::string formatRedWords(const LinkParams::Red& r, bool all);

/// The list of RED's words, for the unknown-word message.
inline constexpr const char* kRedWords =
    "red-min red-max red-qw red-linterm red-gentle red-no-gentle red-mean-size red-wait "
    "red-no-wait red-hard-drop red-no-hard-drop red-ns1 ared adapt-max-p red-interval "
    "red-target red-alpha red-beta red-top red-bottom red-last-set red-rtt feng feng-alpha "
    "feng-beta nlred red-link-rate red-link-delay";

}  // namespace fastpath
