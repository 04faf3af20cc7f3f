// SPDX-License-Identifier: GPL-2.0-only
// forwardFrame cost per packet: parse + RFC 1812 checks + LPM + next-hop entry + rewrite,
// over bursts of 64 prebuilt frames (as a worker sees them), with a small table and with
// 1M IPv4 routes and random destinations (cache-missing lookups). Ring operations are
// the worker's and are not included: fp_worker_bench measures the whole batch path.
#include <benchmark/benchmark.h>

#include <arpa/inet.h>

#include <cstring>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "fib_testing.h"
#include "table/checksum.h"
#include "table/forward.h"

namespace fastpath {
namespace {

constexpr size_t kBurst = 64;
constexpr size_t kFrameBytes = 160;  // 160-byte UDP frames, the thesis's VoIP-sized packets

struct Setup {
  std::unique_ptr<FibManager> fib;
  std::vector<uint32_t> dst_pool;  // host order destinations with a route
};

Setup makeSetup(size_t routes) {
  Setup s;
  s.fib = testing::createBenchFib(routes);
  std::mt19937_64 rng(routes);
  RouteBatch b;
  b.replace_all = true;
  s.dst_pool = testing::addRandomRoutes4(b, routes, rng);
  (void)s.fib->applyRoutes(b);
  testing::addGatewayNeighbours(*s.fib);
  return s;
}

void buildFrame(uint8_t* f, uint32_t dst_host, bool v6, std::mt19937_64& rng) {
  std::memset(f, 0, kFrameBytes);
  f[12] = v6 ? 0x86 : 0x08;
  f[13] = v6 ? 0xdd : 0x00;
  uint8_t* ip = f + 14;
  if (!v6) {
    ip[0] = 0x45;
    const uint16_t tot = htons(kFrameBytes - 14);
    std::memcpy(ip + 2, &tot, 2);
    ip[8] = 255;
    ip[9] = 17;
    const uint32_t sa = htonl(0xc6130000u | static_cast<uint32_t>(rng() & 0xffff)),
                   da = htonl(dst_host);
    std::memcpy(ip + 12, &sa, 4);
    std::memcpy(ip + 16, &da, 4);
    const uint16_t c = ipv4HeaderChecksum(ip, 20);
    std::memcpy(ip + 10, &c, 2);
  } else {
    ip[0] = 0x60;
    const uint16_t plen = htons(kFrameBytes - 14 - 40);
    std::memcpy(ip + 4, &plen, 2);
    ip[6] = 17;
    ip[7] = 255;
    const uint8_t src[16] = {0x20, 0x01, 0, 2, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    const uint8_t dst[16] = {0x20, 0x01, 0, 2, 0, 2, 0, 0,
                             0,    0,    0, 0, 0, 0, 0, static_cast<uint8_t>(2 + rng() % 200)};
    std::memcpy(ip + 8, src, 16);
    std::memcpy(ip + 24, dst, 16);
  }
}

// args: routes, destination pool size (1 = same destination, else random from pool),
// ipv6 (0/1). Frames are reused: every 200 bursts their TTL is restored (amortised).
void BM_ForwardFrame(benchmark::State& state) {
  static std::unordered_map<size_t, Setup> setups;
  const size_t routes = static_cast<size_t>(state.range(0));
  auto it = setups.find(routes);
  if (it == setups.end()) it = setups.emplace(routes, makeSetup(routes)).first;
  Setup& s = it->second;
  const bool v6 = state.range(2) != 0;
  if (v6) {
    Route r;
    r.prefix = IpPrefix::parse("2001:2:2::/48").value();
    r.next_hop = IpAddress::parse("2001:2:1::2").value();
    r.port = 1;
    RouteBatch b;
    b.add = {r};
    (void)s.fib->applyRoutes(b);
    (void)s.fib->addNeighbour({r.next_hop, 1, s.fib->neighbours().front().mac});
  }
  std::mt19937_64 rng(1);
  const size_t kFrames = 4096;  // distinct frames cycled through, like UMEM frames
  std::vector<uint8_t> pool(kFrames * kFrameBytes), pristine;
  for (size_t i = 0; i < kFrames; ++i) {
    const uint32_t dst =
        state.range(1) == 1 ? s.dst_pool[0] : s.dst_pool[rng() % s.dst_pool.size()];
    buildFrame(&pool[i * kFrameBytes], dst, v6, rng);
  }
  pristine = pool;
  fp_xdp_meta meta{};
  meta.magic = FP_META_MAGIC;
  meta.verdict = FP_VERDICT_DATA;
  meta.l3_proto = v6 ? FP_L3_IPV6 : FP_L3_IPV4;
  meta.l3_offset = 14;
  const FibView& view = s.fib->view();
  size_t burst = 0, forwarded = 0;
  for (auto _ : state) {
    uint8_t* base = &pool[(burst % (kFrames / kBurst)) * kBurst * kFrameBytes];
    for (size_t k = 0; k < kBurst; ++k) {
      const ForwardDecision d = forwardFrame(base + k * kFrameBytes, kFrameBytes, meta, view);
      forwarded += d.result == ForwardResult::kForward;
    }
    if (++burst % (200 * (kFrames / kBurst)) == 0) {
      state.PauseTiming();
      pool = pristine;
      state.ResumeTiming();
    }
  }
  if (forwarded != state.iterations() * kBurst)
    state.SkipWithError("not every frame was forwarded");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBurst));
  state.SetLabel(std::string(v6 ? "ipv6" : "ipv4") +
                 (state.range(1) == 1 ? ", one flow" : ", random dst"));
}
BENCHMARK(BM_ForwardFrame)
    ->Args({1000, 1, 0})
    ->Args({1000, 0, 0})
    ->Args({1000000, 0, 0})
    ->Args({1000, 1, 1});

}  // namespace
}  // namespace fastpath

BENCHMARK_MAIN();
