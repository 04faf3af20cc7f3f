// SPDX-License-Identifier: GPL-2.0-only
// FqCoDel's link parameters (flows, quantum, drop batch, hash salt, set-associative
// hashing): their words, checks and printed form, kept apart from the other disciplines'.
#pragma once

#include <string>
#include <vector>

#include "fastpath/link_params.h"

namespace fastpath::detail {

/// Applies the FqCoDel word at `a[*i]` (and its value, `*i` moved past it). Returns false
/// when the word is not one of FqCoDel's; `*err` is set when it is, but its value is bad.
bool applyFqCoDelWord(const std::vector<std::string>& a, size_t* i, LinkParams* p,
                      std::string* err);
/// The faults of FqCoDel's values, each appended through `add`.
template <typename Add>
void validateFqCoDel(const LinkParams& p, Add add);
/// The words that set FqCoDel's values that differ from the defaults (all with `all`).
std::string formatFqCoDel(const LinkParams& p, bool all);

template <typename Add>
void validateFqCoDel(const LinkParams& p, Add add) {
  if (p.aqm != LinkParams::Aqm::kFqCoDel) return;
  if (p.aqm_fq_flows < 1 || p.aqm_fq_flows > 65536)
    add("flows " + std::to_string(p.aqm_fq_flows) + " is outside 1 .. 65536");
  if (p.aqm_fq_quantum < 1 || p.aqm_fq_quantum > 65536)
    add("quantum " + std::to_string(p.aqm_fq_quantum) + " is outside 1 .. 65536 bytes");
  if (p.aqm_fq_drop_batch < 1 || p.aqm_fq_drop_batch > 65536)
    add("drop-batch " + std::to_string(p.aqm_fq_drop_batch) + " is outside 1 .. 65536");
  if (p.aqm_fq_set_associative &&
      (p.aqm_fq_set_ways < 1 || p.aqm_fq_flows % p.aqm_fq_set_ways != 0))
    add("set-ways " + std::to_string(p.aqm_fq_set_ways) + " must divide flows " +
        std::to_string(p.aqm_fq_flows));
}

}  // namespace fastpath::detail
