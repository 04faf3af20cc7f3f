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
/// The latency at quantile `q` (0..1) of a histogram, in ns (0 when it is empty).
double histogramQuantileNs(const std::vector<uint64_t>& hist, double q);

/// A kernel-stack sink's latency split at the kernel's receive stamp of each datagram (the
/// skb's arrival at D's stack): the send time to that stamp (what the path and the
/// forwarder took) and that stamp to the reader's recvmmsg return (D's socket queue and
/// reader). Histograms as `hist`; `unstamped` counts datagrams without a stamp.
struct SinkArrivalSplit {
  std::vector<uint64_t> to_arrival, queued;
  uint64_t unstamped = 0;
};

/// Prints the JSON line on stdout. `expect_flows` > 0: Jain's index over flows 0..N-1
/// (missing ones count as 0); otherwise over the flows seen. `split`: a kernel-stack
/// sink's two parts of the latency, printed beside it (`lat_arrival_*`, `lat_queue_*`).
void printSinkRead(const std::vector<fp_bench_flow>& flows, const std::vector<uint64_t>& hist,
                   uint64_t other, uint64_t bad_flow, int expect_flows,
                   const SinkArrivalSplit* split = nullptr);

}  // namespace fastpath::bench
