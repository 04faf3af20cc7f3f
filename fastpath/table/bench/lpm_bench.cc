// SPDX-License-Identifier: GPL-2.0-only
// LPM and FIB figures: lookups/s with 1k and 1M IPv4 prefixes for each IPv4 algorithm
// (DIR-24-8, DXR, the small trie and the adaptive table the FIB uses; random and sequential
// destinations, single and bulk-with-prefetch), a node's small table, where the trie and
// DIR-24-8 cross, IPv6 lookups, single and batched route updates, replace-all time (FIB: the
// Lpm4 in use).
// Run: fp_lpm_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
// (the machine is shared: interleaving spreads the noise over both algorithms).
#include <benchmark/benchmark.h>

#include <arpa/inet.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "fib_testing.h"
#include "table/fib_manager.h"
#include "table/lpm.h"

namespace fastpath {
namespace {

constexpr size_t kAddrs = 1u << 22;  // destinations cycled through (16 MiB)

uint32_t mask4(unsigned d) { return d == 0 ? 0 : ~0u << (32 - d); }

// Prefix lengths roughly like a full BGP table: mostly /24, the rest /16-/23, few else.
uint8_t bgpDepth(std::mt19937_64& rng) {
  const unsigned r = rng() % 100;
  if (r < 60) return 24;
  if (r < 97) return static_cast<uint8_t>(16 + rng() % 8);
  if (r < 99) return static_cast<uint8_t>(8 + rng() % 8);
  return static_cast<uint8_t>(25 + rng() % 8);
}

// The same prefixes, next hops and address streams for every IPv4 algorithm (one seed
// per table size); only the table type differs.
template <typename T>
struct Table4 {
  std::unique_ptr<T> lpm;
  std::vector<std::pair<uint32_t, uint8_t>> prefixes;
  std::vector<uint32_t> random;      // random destinations inside random prefixes
  std::vector<uint32_t> sequential;  // runs of consecutive addresses
};

// An empty table for n prefixes. The trie gets room for the worst case (three nodes per
// prefix); the adaptive table has its default threshold.
template <typename T>
std::unique_ptr<T> makeLpm4(size_t n, bool automatic) {
  const auto rules = static_cast<uint32_t>(n + 1024);
  if constexpr (std::is_same_v<T, Lpm4Trie>) {
    return T::create(
               LpmConfig{rules, static_cast<uint32_t>(std::min<size_t>(3 * n + 16, 1u << 24))})
        .value();
  } else {
    auto t = T::create(LpmConfig{rules, 1u << 16}).value();
    if constexpr (std::is_same_v<T, Lpm4Dxr>)
      if (!automatic) t->setCompactMinRules(0);
    return t;
  }
}

// `automatic`: DXR with its default structure choice (the DIR-24-8 answers below
// Lpm4Dxr::kDefaultCompactMinRules rules); otherwise DXR always answers from its compact
// structure, so "Lpm4Dxr" below is the algorithm itself.
template <typename T>
Table4<T>& table4(size_t n, bool automatic = false) {
  static std::map<std::pair<size_t, bool>, std::unique_ptr<Table4<T>>> cache;
  auto& slot = cache[{n, automatic}];
  if (slot) return *slot;
  slot = std::make_unique<Table4<T>>();
  std::mt19937_64 rng(n);
  slot->lpm = makeLpm4<T>(n, automatic);
  while (slot->prefixes.size() < n) {
    const uint8_t d = bgpDepth(rng);
    const uint32_t ip = static_cast<uint32_t>(rng()) & mask4(d);
    if (slot->lpm->find(ip, d)) continue;
    if (!slot->lpm->add(ip, d, static_cast<uint32_t>(rng() % 4096)).ok()) break;
    slot->prefixes.emplace_back(ip, d);
  }
  // What the owner does after its epoch synchronize() (DXR: builds the compact chunks).
  slot->lpm->releaseRetired();
  slot->random.resize(kAddrs);
  for (auto& a : slot->random) {
    const auto& [ip, d] = slot->prefixes[rng() % slot->prefixes.size()];
    a = ip | (static_cast<uint32_t>(rng()) & ~mask4(d));
  }
  slot->sequential.resize(kAddrs);
  uint32_t base = static_cast<uint32_t>(rng());
  for (size_t i = 0; i < kAddrs; ++i) {
    if (i % 4096 == 0) base = static_cast<uint32_t>(rng());
    slot->sequential[i] = base + static_cast<uint32_t>(i % 4096);
  }
  return *slot;
}

template <typename T>
void tableCounters(benchmark::State& state, const T& lpm) {
  state.counters["memory_bytes"] = static_cast<double>(lpm.stats().memory_bytes);
  if constexpr (std::is_same_v<T, Lpm4Dxr>) {
    const auto s = lpm.dxrStats();
    state.counters["hot_bytes"] = static_cast<double>(s.hot_bytes);
    state.counters["fallback_chunks"] = s.fallback_chunks;
    state.counters["compact"] = lpm.compactActive();
  }
  if constexpr (std::is_same_v<T, Lpm4Trie> || std::is_same_v<T, Lpm4Adaptive>)
    state.counters["touched_bytes"] = static_cast<double>(lpm.touchedBytes());
  if constexpr (std::is_same_v<T, Lpm4Adaptive>) state.counters["large"] = lpm.largeActive();
}

// args: prefixes, pattern (0 random, 1 sequential), automatic (DXR: 1 = default choice)
template <typename T>
void BM_Lpm4Lookup(benchmark::State& state) {
  Table4<T>& t = table4<T>(static_cast<size_t>(state.range(0)), state.range(2) != 0);
  const auto& addrs = state.range(1) == 0 ? t.random : t.sequential;
  size_t i = 0;
  uint32_t sum = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < 256; ++k) sum += t.lpm->lookup(addrs[(i + k) & (kAddrs - 1)]);
    i += 256;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 256);
  state.SetLabel(state.range(1) == 0 ? "random" : "sequential");
  tableCounters(state, *t.lpm);
}
BENCHMARK_TEMPLATE(BM_Lpm4Lookup, Lpm4Dir24_8)->ArgsProduct({{1000, 1000000}, {0, 1}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4Lookup, Lpm4Dxr)->ArgsProduct({{1000, 1000000}, {0, 1}, {0, 1}});
BENCHMARK_TEMPLATE(BM_Lpm4Lookup, Lpm4Trie)->ArgsProduct({{1000}, {0, 1}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4Lookup, Lpm4Adaptive)->ArgsProduct({{1000, 1000000}, {0, 1}, {0}});

// args: prefixes, pattern (0 random, 1 sequential), automatic (DXR: 1 = default choice)
template <typename T>
void BM_Lpm4LookupBulk(benchmark::State& state) {
  Table4<T>& t = table4<T>(static_cast<size_t>(state.range(0)), state.range(2) != 0);
  const auto& addrs = state.range(1) == 0 ? t.random : t.sequential;
  uint32_t out[64];
  size_t i = 0;
  uint32_t sum = 0;
  for (auto _ : state) {
    t.lpm->lookupBulk(&addrs[i & (kAddrs - 1)], out, 64);
    sum += out[0] + out[63];
    i += 64;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64);
  state.SetLabel(state.range(1) == 0 ? "random, bulk 64" : "sequential, bulk 64");
  tableCounters(state, *t.lpm);
}
BENCHMARK_TEMPLATE(BM_Lpm4LookupBulk, Lpm4Dir24_8)->ArgsProduct({{1000, 1000000}, {0, 1}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4LookupBulk, Lpm4Dxr)->ArgsProduct({{1000, 1000000}, {0, 1}, {0, 1}});
BENCHMARK_TEMPLATE(BM_Lpm4LookupBulk, Lpm4Trie)->ArgsProduct({{1000}, {0, 1}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4LookupBulk, Lpm4Adaptive)->ArgsProduct({{1000, 1000000}, {0, 1}, {0}});

// Where the small trie stops paying (random destinations, bulk 64): the measurement behind
// Lpm4Adaptive::kDefaultSmallMaxRules. Run with --benchmark_filter=SmallCrossover
// --benchmark_enable_random_interleaving=true.
template <typename T>
void BM_Lpm4SmallCrossover(benchmark::State& state) {
  BM_Lpm4LookupBulk<T>(state);
}
BENCHMARK_TEMPLATE(BM_Lpm4SmallCrossover, Lpm4Dir24_8)
    ->ArgsProduct({{1000, 2000, 4000, 8000, 16000, 32000, 64000}, {0}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4SmallCrossover, Lpm4Trie)
    ->ArgsProduct({{1000, 2000, 4000, 8000, 16000, 32000, 64000}, {0}, {0}});

// A forwarding context's own table, as a multi-node daemon holds thousands of: a default
// route, on-link /24s, gateway /24s, host routes and the neighbours' learnt /32s (15
// rules). Destinations: a quarter anywhere (the default route), the rest spread over the
// other prefixes. args: bulk (0: single lookups, 1: bulk 64).
template <typename T>
void BM_Lpm4NodeTable(benchmark::State& state) {
  static std::unique_ptr<T> lpm;
  static std::vector<uint32_t> addrs;
  if (!lpm) {
    lpm = makeLpm4<T>(16, false);
    std::vector<std::pair<uint32_t, uint8_t>> prefixes = {
        {0xc6120100, 24}, {0xc6140500, 24}, {0xac100000, 24}, {0xac100100, 24}, {0xac100200, 24},
        {0xac100300, 24}, {0x0a000501, 32}, {0x0a000508, 32}, {0x0a00050f, 32}, {0xc6120102, 32},
        {0xc6120103, 32}, {0xc6120104, 32}, {0xc6120105, 32}, {0xc6120106, 32}};
    (void)lpm->add(0, 0, 1);
    for (size_t k = 0; k < prefixes.size(); ++k)
      (void)lpm->add(prefixes[k].first, prefixes[k].second, static_cast<uint32_t>(2 + k));
    lpm->releaseRetired();
    std::mt19937_64 rng(15);
    addrs.resize(1u << 16);
    for (auto& a : addrs) {
      if (rng() % 4 == 0) {
        a = static_cast<uint32_t>(rng());
      } else {
        const auto& [ip, d] = prefixes[rng() % prefixes.size()];
        a = ip | (static_cast<uint32_t>(rng()) & ~mask4(d));
      }
    }
  }
  const size_t mask = addrs.size() - 1;
  size_t i = 0;
  uint32_t sum = 0;
  uint32_t out[64];
  for (auto _ : state) {
    if (state.range(0) == 0) {
      for (size_t k = 0; k < 64; ++k) sum += lpm->lookup(addrs[(i + k) & mask]);
    } else {
      lpm->lookupBulk(&addrs[i & mask], out, 64);
      sum += out[0] + out[63];
    }
    i += 64;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64);
  state.SetLabel(state.range(0) == 0 ? "node table, single" : "node table, bulk 64");
  tableCounters(state, *lpm);
}
BENCHMARK_TEMPLATE(BM_Lpm4NodeTable, Lpm4Dir24_8)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_Lpm4NodeTable, Lpm4Trie)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_Lpm4NodeTable, Lpm4Adaptive)->Arg(0)->Arg(1);
// Where DXR's compact structure starts to beat DIR-24-8 (random destinations, bulk 64):
// the measurement behind Lpm4Dxr::kDefaultCompactMinRules. Run with
// --benchmark_filter=Crossover --benchmark_enable_random_interleaving=true.
template <typename T>
void BM_Lpm4Crossover(benchmark::State& state) {
  BM_Lpm4LookupBulk<T>(state);
}
BENCHMARK_TEMPLATE(BM_Lpm4Crossover, Lpm4Dir24_8)
    ->ArgsProduct({{4000, 16000, 32000, 64000, 128000, 256000, 512000}, {0}, {0}});
BENCHMARK_TEMPLATE(BM_Lpm4Crossover, Lpm4Dxr)
    ->ArgsProduct({{4000, 16000, 32000, 64000, 128000, 256000, 512000}, {0}, {0}});

// Building the 1M-prefix table from nothing with the raw LPM (no FIB), including the
// final releaseRetired() (DXR: every chunk built once).
template <typename T>
void BM_Lpm4Build(benchmark::State& state) {
  const auto& src = table4<Lpm4Dir24_8>(static_cast<size_t>(state.range(0)));
  std::vector<uint32_t> nhs;
  for (const auto& [ip, d] : src.prefixes) nhs.push_back(*src.lpm->find(ip, d));
  for (auto _ : state) {
    auto t =
        T::create(LpmConfig{static_cast<uint32_t>(src.prefixes.size() + 1024), 1u << 16}).value();
    for (size_t k = 0; k < src.prefixes.size(); ++k)
      (void)t->add(src.prefixes[k].first, src.prefixes[k].second, nhs[k]);
    t->releaseRetired();
    benchmark::DoNotOptimize(t->lookup(0));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * src.prefixes.size()));
}
BENCHMARK_TEMPLATE(BM_Lpm4Build, Lpm4Dir24_8)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK_TEMPLATE(BM_Lpm4Build, Lpm4Dxr)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK_TEMPLATE(BM_Lpm4Build, Lpm4Adaptive)  // trie up to the threshold, then the switch
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

// ---------------------------------------------------------------- IPv6
struct Table6 {
  std::unique_ptr<Lpm6> lpm;
  std::vector<std::array<uint8_t, 16>> random;
};

Table6& table6(size_t n) {
  static std::map<size_t, std::unique_ptr<Table6>> cache;
  auto& slot = cache[n];
  if (slot) return *slot;
  slot = std::make_unique<Table6>();
  std::mt19937_64 rng(n + 6);
  slot->lpm = Lpm6::create(LpmConfig{static_cast<uint32_t>(n + 1024), 1u << 20}).value();
  std::vector<std::pair<Lpm6::Address, uint8_t>> prefixes;
  static constexpr uint8_t kDepths[] = {32, 40, 44, 48, 48, 48, 48, 48, 56, 64, 64, 64};
  while (prefixes.size() < n) {
    const uint8_t d = kDepths[rng() % std::size(kDepths)];
    Lpm6::Address a{};
    const uint64_t x = rng();
    std::memcpy(a.data(), &x, 8);
    a[0] = static_cast<uint8_t>(0x20 | (a[0] & 0x0f));  // 2000::/4-ish, like global unicast
    for (unsigned b = d; b < 64; ++b) a[b / 8] &= static_cast<uint8_t>(~(0x80u >> (b % 8)));
    if (slot->lpm->find(a.data(), d)) continue;
    if (!slot->lpm->add(a.data(), d, static_cast<uint32_t>(rng() % 4096)).ok()) break;
    prefixes.emplace_back(a, d);
  }
  slot->random.resize(kAddrs / 4);
  for (auto& a : slot->random) {
    const auto& [p, d] = prefixes[rng() % prefixes.size()];
    const uint64_t lo = rng(), hi = rng();
    std::memcpy(a.data(), &hi, 8);
    std::memcpy(a.data() + 8, &lo, 8);
    for (unsigned b = 0; b < d; ++b) {
      const uint8_t m = static_cast<uint8_t>(0x80u >> (b % 8));
      a[b / 8] = static_cast<uint8_t>((a[b / 8] & ~m) | (p[b / 8] & m));
    }
  }
  return *slot;
}

void BM_Lpm6Lookup(benchmark::State& state) {
  Table6& t = table6(static_cast<size_t>(state.range(0)));
  const size_t n = t.random.size();
  size_t i = 0;
  uint32_t sum = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < 256; ++k) sum += t.lpm->lookup(t.random[(i + k) & (n - 1)].data());
    i += 256;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 256);
}
BENCHMARK(BM_Lpm6Lookup)->Arg(1000)->Arg(65536);

void BM_Lpm6LookupBulk(benchmark::State& state) {
  Table6& t = table6(static_cast<size_t>(state.range(0)));
  const size_t n = t.random.size();
  std::vector<const uint8_t*> ptrs(n);
  for (size_t i = 0; i < n; ++i) ptrs[i] = t.random[i].data();
  uint32_t out[64];
  size_t i = 0;
  uint32_t sum = 0;
  for (auto _ : state) {
    t.lpm->lookupBulk(&ptrs[i & (n - 1)], out, 64);
    sum += out[0] + out[63];
    i += 64;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64);
  state.SetLabel("bulk 64");
}
BENCHMARK(BM_Lpm6LookupBulk)->Arg(1000)->Arg(65536);

// ---------------------------------------------------------------- updates
// One route added and removed per iteration on a 1M-prefix table (raw LPM), plus the
// releaseRetired() an owner runs after each such update (DXR: rebuilds the chunks).
template <typename T>
void BM_Lpm4AddRemove(benchmark::State& state) {
  Table4<T>& t = table4<T>(1000000);
  std::mt19937_64 rng(99);
  for (auto _ : state) {
    const uint8_t d = bgpDepth(rng);
    const uint32_t ip = static_cast<uint32_t>(rng()) & mask4(d);
    if (t.lpm->find(ip, d)) continue;
    benchmark::DoNotOptimize(t.lpm->add(ip, d, 1).ok());
    t.lpm->releaseRetired();
    benchmark::DoNotOptimize(t.lpm->remove(ip, d).ok());
    t.lpm->releaseRetired();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2);
}
BENCHMARK_TEMPLATE(BM_Lpm4AddRemove, Lpm4Dir24_8);
BENCHMARK_TEMPLATE(BM_Lpm4AddRemove, Lpm4Dxr);
BENCHMARK_TEMPLATE(BM_Lpm4AddRemove, Lpm4Adaptive);

IpPrefix prefix4(uint32_t ip_host, uint8_t d) {
  IpPrefix p;
  p.address = IpAddress::v4(htonl(ip_host));
  p.length = d;
  return p;
}

std::unique_ptr<FibManager> makeFib(size_t v4 = 1u << 20) {
  auto fib = testing::createFib(v4, 1u << 12);
  PortConfig p0{0, {}, 1500, true}, p1{1, {}, 1500, true};
  p0.mac.bytes = {2, 0, 0, 0, 0, 1};
  p1.mac.bytes = {2, 0, 0, 0, 0, 2};
  (void)fib->setPorts({p0, p1});
  return fib;
}

std::vector<Route> randomRoutes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Route> out;
  std::unordered_map<uint64_t, bool> seen;
  out.reserve(n);
  while (out.size() < n) {
    const uint8_t d = bgpDepth(rng);
    const uint32_t ip = static_cast<uint32_t>(rng()) & mask4(d);
    if (!seen.emplace((uint64_t{ip} << 6) | d, true).second) continue;
    Route r;
    r.prefix = prefix4(ip, d);
    r.next_hop = IpAddress::v4(htonl(0xc6120100u + 2 + static_cast<uint32_t>(rng() % 16)));
    r.port = 1;
    out.push_back(r);
  }
  return out;
}

// args: batch size. A FibManager with 100k routes; each iteration applies one batch that
// replaces `batch` routes' next hops (an epoch synchronize per batch, no reader).
void BM_FibApplyRoutes(benchmark::State& state) {
  static auto fib = makeFib();
  static std::vector<Route> routes = randomRoutes(100000, 5);
  static bool loaded = false;
  if (!loaded) {
    RouteBatch all;
    all.add = routes;
    all.replace_all = true;
    if (!fib->applyRoutes(all).ok()) state.SkipWithError("load failed");
    loaded = true;
  }
  const size_t batch = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(3);
  size_t updates = 0;
  for (auto _ : state) {
    RouteBatch b;
    b.add.reserve(batch);
    for (size_t k = 0; k < batch; ++k) {
      Route r = routes[(updates + k * 7919) % routes.size()];
      r.next_hop = IpAddress::v4(htonl(0xc6120100u + 2 + static_cast<uint32_t>(rng() % 16)));
      b.add.push_back(r);
    }
    if (!fib->applyRoutes(b).ok()) state.SkipWithError("apply failed");
    updates += batch;
  }
  state.SetItemsProcessed(static_cast<int64_t>(updates));
  state.SetLabel("routes/s");
}
BENCHMARK(BM_FibApplyRoutes)->Arg(1)->Arg(100)->Arg(10000)->Unit(benchmark::kMicrosecond);

// args: routes. Time to build a complete new table and swap it in.
void BM_FibReplaceAll(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  static std::map<size_t, std::vector<Route>> cache;
  auto& routes = cache[n];
  if (routes.empty()) routes = randomRoutes(n, n);
  auto fib = makeFib(std::max<size_t>(n, 1u << 16));
  RouteBatch b;
  b.add = routes;
  b.replace_all = true;
  for (auto _ : state) {
    if (!fib->applyRoutes(b).ok()) state.SkipWithError("replace-all failed");
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_FibReplaceAll)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

}  // namespace
}  // namespace fastpath

BENCHMARK_MAIN();
