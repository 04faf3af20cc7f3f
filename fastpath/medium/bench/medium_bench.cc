// SPDX-License-Identifier: GPL-2.0-only
// The radio medium's cost on the data path: one broadcast frame reaching N members in range
// (its start and end: every receiver's reception, interference and decision), one unicast
// exchange among N members that all hear each other (the frame, its ACK, the sender's
// decision), and pair batches applied while frames flow (the control thread's rebuild and
// publication).
#include <benchmark/benchmark.h>

#include <vector>

#include "medium/radio_medium.h"

namespace fastpath::medium {
namespace {

struct NullSink : MediumSink {
  uint64_t n = 0;
  void deliver(uint64_t, uint32_t, uint64_t) override { ++n; }
  void done(uint64_t, uint32_t, TxOutcome) override { ++n; }
};

/// One sender heard by `receivers` members at powers spread over 20 dB.
std::vector<IndexedPair> star(uint32_t receivers) {
  std::vector<IndexedPair> p;
  for (uint32_t k = 1; k <= receivers; ++k) {
    p.push_back({0, k, -60.0 - 20.0 * k / receivers, false});
    p.push_back({k, 0, -60.0 - 20.0 * k / receivers, false});
  }
  return p;
}

void BM_BroadcastToReceivers(benchmark::State& state) {
  const uint32_t n = uint32_t(state.range(0));
  RadioMedium m(MediumPhy{}, n + 1, 1);
  m.pairs().apply(star(n), false);
  NullSink sink;
  uint64_t now = 1000000, cookie = 0;
  for (auto _ : state) {
    m.send(now, 0, kBroadcast, 200, cookie++, sink);
    now = m.nextEventNs();  // access
    m.advance(now, sink);
    now = m.nextEventNs();  // end: n decisions
    m.advance(now, sink);
    now += 1000000;
  }
  benchmark::DoNotOptimize(sink.n);
  state.counters["receivers"] = n;
}
BENCHMARK(BM_BroadcastToReceivers)->Arg(10)->Arg(50)->Arg(200);

void BM_UnicastInANeighbourhood(benchmark::State& state) {
  // `n` + 1 members, every one in range of every other (powers spread over 20 dB): 0 sends
  // to 1, and every member hears both the frame and the answer.
  const uint32_t n = uint32_t(state.range(0));
  std::vector<IndexedPair> p;
  for (uint32_t a = 0; a <= n; ++a)
    for (uint32_t b = 0; b <= n; ++b)
      if (a != b) p.push_back({a, b, -60.0 - 20.0 * ((a + b) % n) / n, false});
  RadioMedium m(MediumPhy{}, n + 1, 1);
  m.pairs().apply(p, false);
  NullSink sink;
  uint64_t now = 1000000, cookie = 0;
  for (auto _ : state) {
    m.send(now, 0, 1, 200, cookie++, sink);
    for (uint64_t t = m.nextEventNs(); t != UINT64_MAX; t = m.nextEventNs()) {
      now = t;
      m.advance(now, sink);
    }
    now += 1000000;
  }
  benchmark::DoNotOptimize(sink.n);
  state.counters["members"] = n + 1;
}
BENCHMARK(BM_UnicastInANeighbourhood)->Arg(10)->Arg(50)->Arg(200);

void BM_UpdateBatch(benchmark::State& state) {
  // 200 members, each in range of 50: 10,000 pairs; a batch changes `range` of them.
  const uint32_t members = 200, changes = uint32_t(state.range(0));
  RadioMedium m(MediumPhy{}, members, 1);
  std::vector<IndexedPair> all;
  for (uint32_t a = 0; a < members; ++a)
    for (uint32_t d = 1; d <= 50; ++d) all.push_back({a, (a + d) % members, -70, false});
  m.pairs().apply(all, false);
  uint64_t round = 0;
  NullSink sink;
  for (auto _ : state) {
    std::vector<IndexedPair> batch(all.begin(), all.begin() + changes);
    for (auto& p : batch) p.rx_dbm = -70 - double(round % 10);
    m.pairs().apply(batch, false);
    m.send(round * 1000000, round % members, kBroadcast, 200, round, sink);  // adopts it
    m.advance(round * 1000000 + 500000, sink);
    ++round;
  }
  state.counters["pairs"] = double(all.size());
}
BENCHMARK(BM_UpdateBatch)->Arg(1000)->Arg(5000);

}  // namespace
}  // namespace fastpath::medium

BENCHMARK_MAIN();
