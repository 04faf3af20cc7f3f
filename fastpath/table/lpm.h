// SPDX-License-Identifier: GPL-2.0-only
// The longest-prefix-match tables of the forwarding table: one interface (lpm_common.h),
// one file per algorithm (DPDK l3fwd style), and the choice the forwarding table uses.
#pragma once

#include "table/lpm4_adaptive.h"
#include "table/lpm4_dir24_8.h"
#include "table/lpm4_dxr.h"
#include "table/lpm4_trie.h"
#include "table/lpm6_trie.h"
#include "table/lpm_common.h"

namespace fastpath {
/// The algorithms the forwarding table uses (swap here to try another implementation;
/// -DFASTPATH_LPM4_DXR selects DXR for a whole build, to run every test and benchmark with it).
/// Lpm4Adaptive: a small trie while the table is small, DIR-24-8 from
/// Lpm4Adaptive::kDefaultSmallMaxRules rules on.
#ifdef FASTPATH_LPM4_DXR
using Lpm4 = Lpm4Dxr;
#else
using Lpm4 = Lpm4Adaptive;
#endif
using Lpm6 = Lpm6Trie;
static_assert(Lpm4Table<Lpm4>);
static_assert(Lpm4Table<Lpm4Dir24_8>);
static_assert(Lpm4Table<Lpm4Dxr>);
static_assert(Lpm4Table<Lpm4Trie>);
static_assert(Lpm4Table<Lpm4Adaptive>);
static_assert(Lpm6Table<Lpm6>);
}  // namespace fastpath
