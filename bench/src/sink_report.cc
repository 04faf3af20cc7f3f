// SPDX-License-Identifier: GPL-2.0-only
#include "sink_report.h"

#include <cstdio>

namespace fastpath::bench {

unsigned latencyBucket(uint64_t ns) {
  if (ns < (1u << FP_BENCH_LAT_SUB_BITS)) return unsigned(ns);
  const unsigned msb = 63u - unsigned(__builtin_clzll(ns));
  const unsigned sub =
      unsigned(ns >> (msb - FP_BENCH_LAT_SUB_BITS)) & ((1u << FP_BENCH_LAT_SUB_BITS) - 1);
  const unsigned b = (msb << FP_BENCH_LAT_SUB_BITS) | sub;
  return b < FP_BENCH_LAT_BUCKETS ? b : FP_BENCH_LAT_BUCKETS - 1;
}

double latencyBucketMidNs(unsigned b) {
  const unsigned msb = b >> FP_BENCH_LAT_SUB_BITS;
  const unsigned sub = b & ((1u << FP_BENCH_LAT_SUB_BITS) - 1);
  if (msb < FP_BENCH_LAT_SUB_BITS) return double(b);  // exact small values
  const double base = double(1ull << msb);
  return base + base / (1u << FP_BENCH_LAT_SUB_BITS) * (sub + 0.5);
}

double histogramQuantileNs(const std::vector<uint64_t>& hist, double q) {
  uint64_t total = 0;
  for (uint64_t c : hist) total += c;
  if (!total) return 0.0;
  const uint64_t want = uint64_t(q * double(total));
  uint64_t acc = 0;
  for (unsigned i = 0; i < hist.size(); ++i)
    if ((acc += hist[i]) > want) return latencyBucketMidNs(i);
  return 0.0;
}

void printSinkRead(const std::vector<fp_bench_flow>& flows, const std::vector<uint64_t>& hist,
                   uint64_t other, uint64_t bad_flow, int expect_flows,
                   const SinkArrivalSplit* split) {
  uint64_t packets = 0, bytes = 0, gap_loss = 0, reordered = 0, first = ~0ull, last = 0;
  int seen = 0;
  double sum = 0, sum_sq = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    const fp_bench_flow& f = flows[i];
    if (f.packets || f.next_seq) {
      ++seen;
      packets += f.packets;
      bytes += f.bytes;
      gap_loss += f.next_seq > f.packets ? f.next_seq - f.packets : 0;
      reordered += f.reordered;
      if (f.first_ns && f.first_ns < first) first = f.first_ns;
      if (f.last_ns > last) last = f.last_ns;
    }
    if ((expect_flows > 0 && int(i) < expect_flows) || (expect_flows <= 0 && f.packets)) {
      sum += double(f.packets);
      sum_sq += double(f.packets) * double(f.packets);
    }
  }
  const int n_fair = expect_flows > 0 ? expect_flows : seen;
  const double jain = (n_fair > 0 && sum_sq > 0) ? sum * sum / (n_fair * sum_sq) : 0.0;
  uint64_t total = 0;
  double lat_sum = 0;
  for (unsigned i = 0; i < hist.size(); ++i) {
    total += hist[i];
    lat_sum += double(hist[i]) * latencyBucketMidNs(i);
  }
  auto percentile = [&](double q) { return histogramQuantileNs(hist, q); };
  std::printf(
      "{\"packets\": %llu, \"bytes\": %llu, \"flows_seen\": %d, \"gap_loss\": %llu, "
      "\"reordered\": %llu, \"jain\": %.4f, \"lat_p50_us\": %.2f, \"lat_p99_us\": %.2f, "
      "\"lat_mean_us\": %.2f, \"first_ns\": %llu, \"last_ns\": %llu, \"other\": %llu, "
      "\"bad_flow\": %llu",
      (unsigned long long)packets, (unsigned long long)bytes, seen, (unsigned long long)gap_loss,
      (unsigned long long)reordered, jain, percentile(0.50) / 1e3, percentile(0.99) / 1e3,
      total ? lat_sum / double(total) / 1e3 : 0.0, (unsigned long long)(first == ~0ull ? 0 : first),
      (unsigned long long)last, (unsigned long long)other, (unsigned long long)bad_flow);
  if (split)
    std::printf(
        ", \"lat_arrival_p50_us\": %.2f, \"lat_arrival_p99_us\": %.2f, "
        "\"lat_queue_p50_us\": %.2f, \"lat_queue_p99_us\": %.2f, \"unstamped\": %llu",
        histogramQuantileNs(split->to_arrival, 0.50) / 1e3,
        histogramQuantileNs(split->to_arrival, 0.99) / 1e3,
        histogramQuantileNs(split->queued, 0.50) / 1e3,
        histogramQuantileNs(split->queued, 0.99) / 1e3, (unsigned long long)split->unstamped);
  std::printf("}\n");
  std::fflush(stdout);
}

}  // namespace fastpath::bench
