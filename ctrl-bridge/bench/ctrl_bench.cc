// SPDX-License-Identifier: GPL-2.0-only
// Route updates through the real path: client library -> Unix socket -> ControlServer ->
// FibManager (TableBackend), acknowledged once workers could see them.
//   fp_ctrl_bench --benchmark_filter=.   (reference numbers: docs/benchmarks/results.md)
#include <arpa/inet.h>
#include <benchmark/benchmark.h>

#include "fastpath/ctrl/client.h"
#include "fastpath/log.h"
#include "server_harness.h"

namespace fastpath::ctrl {
namespace {

using testing::ServerHarness;

Route nthRoute(uint32_t i, uint32_t salt = 0) {
  Route r;
  r.prefix.address = IpAddress::v4(htonl(0x0b000000u + (((i + salt) & 0xffffffu) << 8)));
  r.prefix.length = 24;
  r.next_hop.family = Family::kIpv4;
  r.port = i % 3;
  return r;
}

struct Fixture {
  ServerHarness harness;
  std::unique_ptr<Client> client;
  Fixture() {
    setLogLevel(LogLevel::kWarn);
    if (!harness.start()) std::abort();
    ClientOptions o;
    o.node_name = "bench";
    auto c = Client::connect(harness.socketPath(), o);
    if (!c) std::abort();
    client = std::move(c).value();
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_SingleRouteUpdate(benchmark::State& state) {
  auto& f = fixture();
  (void)f.client->replaceAllRoutes({});
  uint32_t i = 0;
  for (auto _ : state) {
    if (auto st = f.client->addRoute(nthRoute(i++ % 65536)); !st) {
      state.SkipWithError(st.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SingleRouteUpdate)->UseRealTime();

void BM_BatchedRouteUpdates(benchmark::State& state) {
  auto& f = fixture();
  (void)f.client->replaceAllRoutes({});
  const auto n = static_cast<uint32_t>(state.range(0));
  uint32_t salt = 0;
  for (auto _ : state) {
    RouteBatch b;
    b.add.reserve(n);
    for (uint32_t i = 0; i < n; ++i) b.add.push_back(nthRoute(i, salt));
    salt = (salt + n) % (1u << 16);
    if (auto st = f.client->applyRoutes(b); !st) {
      state.SkipWithError(st.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_BatchedRouteUpdates)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->UseRealTime();

void BM_ReplaceAll(benchmark::State& state) {
  auto& f = fixture();
  const auto n = static_cast<uint32_t>(state.range(0));
  std::vector<Route> table;
  table.reserve(n);
  for (uint32_t i = 0; i < n; ++i) table.push_back(nthRoute(i));
  for (auto _ : state) {
    if (auto st = f.client->replaceAllRoutes(table); !st) {
      state.SkipWithError(st.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["routes"] = n;
}
BENCHMARK(BM_ReplaceAll)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The same replace-all without IPC: what the table itself costs.
void BM_ReplaceAllDirect(benchmark::State& state) {
  auto& f = fixture();
  const auto n = static_cast<uint32_t>(state.range(0));
  RouteBatch b;
  b.replace_all = true;
  for (uint32_t i = 0; i < n; ++i) b.add.push_back(nthRoute(i));
  for (auto _ : state) {
    auto st = f.harness.onServer([&] { return f.harness.backend().applyRoutes(b); });
    if (!st) {
      state.SkipWithError(st.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ReplaceAllDirect)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The same replace-all by a client holding a route lease (Hello.route_grace_period_ms):
// the extra cost is the server's per-owner bookkeeping of the prefixes.
void BM_ReplaceAllLeased(benchmark::State& state) {
  auto& f = fixture();
  ClientOptions o;
  o.node_name = "bench-leased";
  o.route_grace_period_ms = 60000;
  auto c = Client::connect(f.harness.socketPath(), o);
  if (!c) {
    state.SkipWithError(c.error().message.c_str());
    return;
  }
  const auto n = static_cast<uint32_t>(state.range(0));
  std::vector<Route> table;
  table.reserve(n);
  for (uint32_t i = 0; i < n; ++i) table.push_back(nthRoute(i));
  for (auto _ : state) {
    if (auto st = (*c)->replaceAllRoutes(table); !st) {
      state.SkipWithError(st.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["routes"] = n;
}
BENCHMARK(BM_ReplaceAllLeased)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace fastpath::ctrl

BENCHMARK_MAIN();
