// SPDX-License-Identifier: GPL-2.0-only
// What a sink answers to `read [FLOWS]`: the per-flow counters and the latency histogram
// (fp_bench.h's layout) summed into one JSON line — loss from sequence gaps, reordering,
// Jain's fairness, latency p50/p99/mean. Shared by fp-sink (from its XDP program's maps)
// and fp-stack-sink (from its socket reader's copies).
#pragma once

#include <cstdint>
#include <vector>

#include "fp_bench.h"

namespace fastpath::bench {

/// The histogram bucket of a latency (the XDP sink's latency_bucket()).
unsigned latencyBucket(uint64_t ns);
/// The middle of a bucket, in ns.
double latencyBucketMidNs(unsigned b);
/// Prints the JSON line on stdout. `expect_flows` > 0: Jain's index over flows 0..N-1
/// (missing ones count as 0); otherwise over the flows seen.
void printSinkRead(const std::vector<fp_bench_flow>& flows, const std::vector<uint64_t>& hist,
                   uint64_t other, uint64_t bad_flow, int expect_flows);

}  // namespace fastpath::bench
