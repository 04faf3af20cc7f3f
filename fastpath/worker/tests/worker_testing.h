// SPDX-License-Identifier: GPL-2.0-only
// For the worker's tests and benchmark: what the classifier leaves in front of the frames
// they hand to a worker on in-memory rings.
#pragma once

#include "fp_abi.h"

namespace fastpath::testing {

/// The classifier's metadata for an untagged UDP frame to forward (DATA verdict): IPv4
/// (L4 at 34) or, with `v6`, IPv6 without extension headers (L4 at 54).
inline fp_xdp_meta udpDataMeta(bool v6 = false) {
  fp_xdp_meta meta{};
  meta.magic = FP_META_MAGIC;
  meta.verdict = FP_VERDICT_DATA;
  meta.l3_proto = v6 ? FP_L3_IPV6 : FP_L3_IPV4;
  meta.l4_proto = 17;
  meta.l3_offset = 14;
  meta.l4_offset = v6 ? 54 : 34;
  return meta;
}

}  // namespace fastpath::testing
