// SPDX-License-Identifier: GPL-2.0-only
// Per-packet userspace cost of fastpathd's worker: the production batch code
// (Worker::pollOnce: completion drain, fill refill, RX ring peek/release, metadata read,
// verdict handling, parse + RFC 1812 checks, LPM + next-hop entry, rewrite, staging into
// the egress TX ring and its flush, counters, accounting publish) on in-memory AF_XDP
// rings (XskSocket::createInMemory, flags 0: no syscall). The benchmark plays the kernel
// between batches - copies 64 prebuilt 160-byte frames (+ classifier metadata) into the
// frames the fill ring offers and moves TX descriptors to the completion ring - and that
// part is timed separately (kernel_sim_ns), not in the reported time (manual timing
// around pollOnce only).
//
// Args: routes, IPv6 (0/1), cold (1: the frames' cache lines are flushed after the
// "kernel" wrote them, like a DMA that bypasses the cache; 0: hot, like the copy-mode
// kernel on the same CPU), frames the "kernel" delivers per loop (64 = a full batch; the
// live daemon on veth sees fewer, which spreads the per-loop work over fewer frames),
// distinct frames cycled through ("flows": 4096 keeps the route lookups' working set in
// L2; 262144 makes a 1M-prefix table's lookups miss like many flows would).
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <immintrin.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include "classifier_frames.h"
#include "fastpath/monotonic_clock.h"
#include "fastpath/userspace_classifier.h"
#include "fib_testing.h"
#include "table/checksum.h"
#include "table/fib_manager.h"
#include "worker/worker.h"
#include "worker_testing.h"
#include "xsk_kernel_side.h"

namespace fastpath {
namespace {

constexpr uint32_t kBatch = 64;
constexpr uint32_t kFrameBytes = 160;  // 160-byte UDP frames, the thesis's VoIP-sized packets
constexpr uint32_t kHeadroom = 256;    // XDP_PACKET_HEADROOM
constexpr uint32_t kRing = 2048;       // as in the docs' measurements (fastpathd's default: 4096)

struct Table {
  std::unique_ptr<FibManager> fib;
  std::vector<uint32_t> dst4;                 // host order, each with a route
  std::vector<std::array<uint8_t, 16>> dst6;  // each with a route
};

// `routes` IPv4 prefixes (60% /24, 37% /16-/23, 3% /8-/15) via 8 gateways on port 1, and
// 1000 IPv6 prefixes (/32-/64 inside 2001:2::/32 ... random) via one gateway.
Table makeTable(size_t routes) {
  Table t;
  t.fib = testing::createBenchFib(routes);
  std::mt19937_64 rng(routes);
  RouteBatch b;
  b.replace_all = true;
  t.dst4 = testing::addRandomRoutes4(b, routes, rng);
  std::set<std::pair<std::array<uint8_t, 16>, uint8_t>> seen6;
  while (t.dst6.size() < 1000) {
    std::array<uint8_t, 16> a{0x20, 0x01, 0, 2};
    const uint8_t len = static_cast<uint8_t>(32 + rng() % 33);
    for (int k = 4; k < 16; ++k) a[size_t(k)] = static_cast<uint8_t>(rng());
    std::array<uint8_t, 16> p = a;
    for (unsigned bit = len; bit < 128; ++bit)
      p[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
    if (!seen6.insert({p, len}).second) continue;
    Route rt;
    rt.prefix.address = IpAddress::v6(p);
    rt.prefix.length = len;
    rt.next_hop = IpAddress::parse("2001:2:1::2").value();
    rt.port = 1;
    b.add.push_back(rt);
    t.dst6.push_back(a);
  }
  if (auto st = t.fib->applyRoutes(b); !st) {
    std::fprintf(stderr, "worker_bench: route table: %s\n", st.error().message.c_str());
    std::abort();
  }
  testing::addGatewayNeighbours(*t.fib);
  (void)t.fib->addNeighbour(
      {IpAddress::parse("2001:2:1::2").value(), 1, t.fib->neighbours().front().mac});
  return t;
}

Table& table(size_t routes) {
  static std::unordered_map<size_t, Table> tables;
  auto it = tables.find(routes);
  if (it == tables.end()) it = tables.emplace(routes, makeTable(routes)).first;
  return it->second;
}

// One frame as the classifier leaves it: fp_xdp_meta, then the Ethernet frame.
struct Prebuilt {
  uint8_t bytes[sizeof(fp_xdp_meta) + kFrameBytes];
};

void buildFrame(Prebuilt* pb, const Table& t, bool v6, std::mt19937_64& rng) {
  fp_xdp_meta meta = testing::udpDataMeta(v6);
  meta.rx_ns = monotonicNs();  // stamped as the classifier stamps: the worker reads it

  std::memcpy(pb->bytes, &meta, sizeof(meta));
  const testing::L2 l2{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 9, 9}, {}};
  testing::Bytes frame;
  if (!v6) {
    testing::V4 ip;
    const uint32_t sa = htonl(0xc6130000u | static_cast<uint32_t>(rng() & 0xffff));
    const uint32_t da = htonl(t.dst4[rng() % t.dst4.size()]);
    std::memcpy(ip.src.data(), &sa, 4);
    std::memcpy(ip.dst.data(), &da, 4);
    frame = testing::ipv4(l2, ip, testing::udp(1000, 2000, kFrameBytes - 14 - 20 - 8));
  } else {
    testing::V6 ip;
    ip.src = {0x20, 0x01, 0, 2, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    std::memcpy(ip.dst.data(), t.dst6[rng() % t.dst6.size()].data(), 16);
    frame = testing::ipv6(l2, ip, testing::udp(1000, 2000, kFrameBytes - 14 - 40 - 8));
  }
  std::memcpy(pb->bytes + sizeof(meta), frame.data(), kFrameBytes);
}

// User-space cycles and instructions of this thread (perf_event_open group), read around
// each pollOnce: immune to preemption, unlike time on a shared machine. Absent (ok()
// false) when perf events are not allowed.
class CycleCounter {
 public:
  CycleCounter() {
    fd_cycles_ = open(PERF_COUNT_HW_CPU_CYCLES, -1);
    if (fd_cycles_ >= 0) fd_instr_ = open(PERF_COUNT_HW_INSTRUCTIONS, fd_cycles_);
  }
  ~CycleCounter() {
    if (fd_instr_ >= 0) close(fd_instr_);
    if (fd_cycles_ >= 0) close(fd_cycles_);
  }
  bool ok() const { return fd_instr_ >= 0; }
  /// {cycles, instructions} so far.
  std::pair<uint64_t, uint64_t> read() const {
    uint64_t v[3] = {};
    if (!ok() || ::read(fd_cycles_, v, sizeof(v)) != sizeof(v)) return {0, 0};
    return {v[1], v[2]};
  }

 private:
  static int open(uint64_t config, int group) {
    perf_event_attr a{};
    a.size = sizeof(a);
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    return int(syscall(SYS_perf_event_open, &a, 0, -1, group, 0));
  }
  int fd_cycles_ = -1, fd_instr_ = -1;
};

// A UMEM of `frames` 4 KiB frames and two in-memory AF_XDP sockets on it (ports 0 and 1),
// every ring kRing deep: the worker's rings with the kernel's side played by the benchmark.
InMemoryPorts benchPorts(uint32_t frames) {
  UmemOptions uo;
  uo.frames = frames;
  uo.frame_size = 4096;
  uo.fill_size = kRing;
  uo.comp_size = kRing;
  return InMemoryPorts(uo, kRing, kRing);
}

// False, with the benchmark skipped, when the rig's UMEM could not be mapped.
bool mapped(const InMemoryPorts& rig, benchmark::State& state) {
  if (!rig.umem) state.SkipWithError("UMEM mmap failed");
  return rig.umem != nullptr;
}

void BM_WorkerBatch(benchmark::State& state) {
  const size_t routes = size_t(state.range(0));
  const bool v6 = state.range(1) != 0;
  const bool cold = state.range(2) != 0;
  const uint32_t per_loop = uint32_t(state.range(3));
  const size_t flows = size_t(state.range(4));
  Table& t = table(routes);

  std::mt19937_64 rng(7);
  std::vector<Prebuilt> frames(flows);
  for (auto& f : frames) buildFrame(&f, t, v6, rng);

  // As fastpathd sizes them for two ports.
  InMemoryPorts rig = benchPorts(2 * kRing * 2 + 4 * kBatch);
  if (!mapped(rig, state)) return;
  WorkerOptions wo;
  wo.batch_size = kBatch;
  Worker worker(wo, std::move(rig.umem), std::move(rig.sockets), {nullptr, nullptr},
                t.fib->view(), t.fib->epoch());

  size_t next = 0;
  auto kernelRx = [&](uint64_t a) {
    const Prebuilt& pb = frames[next++ % flows];
    uint8_t* dst = rig.area->data(a) - sizeof(fp_xdp_meta);
    std::memcpy(dst, pb.bytes, sizeof(pb.bytes));
    if (cold)
      for (uint32_t off = 0; off < sizeof(pb.bytes) + 64; off += 64) _mm_clflush(dst + off);
    return kFrameBytes;
  };
  bool pending = false;
  worker.pollOnce(&pending);  // fill rings filled
  uint64_t sim_ns = 0, received = 0, cycles = 0, instructions = 0;
  CycleCounter pmu;
  // Per-batch times: their median is robust against the preemptions of a shared machine.
  std::vector<uint32_t> batch_ns;
  batch_ns.reserve(1u << 22);
  for (auto _ : state) {
    const uint64_t s0 = monotonicNs();
    kernelTransmit(*rig.out, kRing);
    received += kernelReceive(*rig.in, per_loop, kHeadroom, kernelRx);
    if (cold) _mm_mfence();
    const auto c0 = pmu.read();
    const uint64_t t0 = monotonicNs();
    worker.pollOnce(&pending);
    const uint64_t t1 = monotonicNs();
    const auto c1 = pmu.read();
    cycles += c1.first - c0.first;
    instructions += c1.second - c0.second;
    sim_ns += t0 - s0;
    if (batch_ns.size() < batch_ns.capacity()) batch_ns.push_back(uint32_t(t1 - t0));
    state.SetIterationTime(double(t1 - t0) * 1e-9);
  }
  const uint64_t forwarded = worker.portCounters(1).tx_packets.get();
  if (received != uint64_t(state.iterations()) * per_loop || forwarded != received) {
    state.SkipWithError(("received " + std::to_string(received) + ", forwarded " +
                         std::to_string(forwarded) + ": not every frame was forwarded")
                            .c_str());
    return;
  }
  if (!worker.accounting().balanced()) state.SkipWithError("frame accounting not balanced");
  state.SetItemsProcessed(int64_t(received));
  state.counters["ns_per_pkt"] = benchmark::Counter(
      double(received), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  std::nth_element(batch_ns.begin(), batch_ns.begin() + batch_ns.size() / 2, batch_ns.end());
  state.counters["p50_ns_per_pkt"] =
      benchmark::Counter(double(batch_ns[batch_ns.size() / 2]) / per_loop);
  if (pmu.ok() && cycles) {
    state.counters["cycles_per_pkt"] = benchmark::Counter(double(cycles) / double(received));
    state.counters["instr_per_pkt"] = benchmark::Counter(double(instructions) / double(received));
  }
  state.counters["kernel_sim_ns"] = benchmark::Counter(double(sim_ns) / double(received));
  state.SetLabel(std::string(v6 ? "ipv6 1k" : "ipv4") + ", " + std::to_string(per_loop) +
                 " frames per loop, 160 B, " + std::to_string(flows) + " flows" +
                 (cold ? ", cold frames" : ""));
}
BENCHMARK(BM_WorkerBatch)
    ->ArgNames({"routes", "v6", "cold", "per_loop", "flows"})
    ->Args({1000, 0, 0, 64, 4096})
    ->Args({1000000, 0, 0, 64, 4096})
    ->Args({1000000, 0, 0, 64, 262144})
    ->Args({1000000, 0, 1, 64, 4096})
    ->Args({1000, 1, 0, 64, 4096})
    ->Args({1000000, 0, 0, 16, 4096})
    ->UseManualTime();

// A line of `nodes` nodes in one worker: frames enter node 1 on interface port 0, cross
// nodes - 1 internal links (each a hand-off to the peer's LinkQueue, the userspace
// classifier at the peer end, a lookup in that node's table, the rewrite) and leave node N
// on interface port 1. `idle` more links, emulated (a shaper each way) but without
// traffic, sit in the same table: a pass must not pay for them. `emulated`: the line's own
// links are emulated too (`delay 0`: each frame enters the link's shaper, is timed and
// released in the same pass, the path of every emulated frame without waiting for a time).
// `held`: each of the `idle` links holds one frame due an hour later (links active but
// not due: a pass must not pay for them either).
void runLine(benchmark::State& state, int nodes, int idle, bool emulated = false,
             bool held = false) {
  EpochDomain epoch;
  std::vector<std::unique_ptr<FibManager>> fibs;
  std::vector<std::unique_ptr<UserspaceClassifier>> classifiers;
  std::vector<std::unique_ptr<LinkQueue>> queues;
  std::vector<std::unique_ptr<LinkState>> states;
  auto linkMac = [](int link, int end) {
    return MacAddress{{2, 0x66, 0x70, 0, uint8_t(link), uint8_t(end)}};
  };
  // Link i (1-based) joins node i and node i+1: ports kFirstLinkPort + 2(i-1) (+1).
  auto linkPort = [](int link, int end) { return kFirstLinkPort + PortId(2 * (link - 1) + end); };
  const IpPrefix dst = IpPrefix::parse("198.19.0.0/16").value();
  for (int n = 1; n <= nodes; ++n) {
    auto fib = FibManager::create(1 << 10, 1 << 8, &epoch);
    if (!fib) {
      state.SkipWithError(fib.error().message.c_str());
      return;
    }
    std::vector<PortConfig> ports;
    if (n == 1) ports.push_back(PortConfig{0, MacAddress{{2, 0, 0, 0, 0, 1}}, 1500, true});
    if (n == nodes) ports.push_back(PortConfig{1, MacAddress{{2, 0, 0, 0, 0, 2}}, 1500, true});
    if (n > 1) ports.push_back(PortConfig{linkPort(n - 1, 1), linkMac(n - 1, 1), 1500, true});
    if (n < nodes) ports.push_back(PortConfig{linkPort(n, 0), linkMac(n, 0), 1500, true});
    (void)(*fib)->setPorts(ports);
    Neighbour nb;
    nb.ip = IpAddress::parse(n < nodes ? "198.18.200.2" : "198.18.1.2").value();
    nb.port = n < nodes ? linkPort(n, 0) : 1;
    nb.mac = n < nodes ? linkMac(n, 1) : MacAddress{{2, 0, 0, 0, 1, 1}};
    (void)(*fib)->addNeighbour(nb);
    RouteBatch b;
    b.add.push_back(Route{dst, nb.ip, nb.port, 0});
    if (auto st = (*fib)->applyRoutes(b); !st) {
      state.SkipWithError(st.error().message.c_str());
      return;
    }
    fibs.push_back(std::move(*fib));
  }
  LinkPortTable table;
  table.version = 1;
  table.slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
  // Link `l`: ports linkPort(l, 0) and (l, 1) with the tables and classifiers given per
  // end; `shaped`: emulated both ways.
  std::vector<std::unique_ptr<LinkShaper>> shapers;
  LinkParams idle_params;
  idle_params.delay_ns = held ? 3600ull * 1000000000ull : 1000000;
  const LinkParams busy_params;  // delay 0, no rate: timed, never held
  auto addLink = [&](int l, uint32_t queue, std::array<const FibView*, 2> fib,
                     std::array<const UserspaceClassifier*, 2> cls, bool shaped) {
    states.push_back(std::make_unique<LinkState>());
    LinkQueue* q[2];
    for (int e = 0; e < 2; ++e) {
      queues.push_back(std::make_unique<LinkQueue>(queue));
      q[e] = queues.back().get();
    }
    for (int e = 0; e < 2; ++e) {
      LinkPortSlot s;
      s.port = linkPort(l, e);
      s.peer = linkPort(l, 1 - e);
      s.inbound = q[e];
      s.to_peer = q[1 - e];
      s.state = states.back().get();
      s.fib = fib[size_t(e)];
      s.classifier = cls[size_t(e)];
      if (shaped) {
        const LinkParams& lp = l < nodes ? busy_params : idle_params;
        shapers.push_back(std::make_unique<LinkShaper>(
            lp, uint64_t(2 * l + e + 1), l < nodes ? LinkShaper::capacityFor(lp) : 16));
        s.shaper = shapers.back().get();
      }
      table.slot_of[s.port - kFirstLinkPort] = int32_t(table.slots.size());
      table.slots.push_back(s);
    }
  };
  for (int l = 1; l < nodes; ++l) {
    for (int e = 0; e < 2; ++e) {
      UserspaceClassifier::Config cc;
      cc.port_mac = linkMac(l, e);
      classifiers.push_back(std::make_unique<UserspaceClassifier>(cc));
    }
    addLink(l, 1024, {&fibs[size_t(l - 1)]->view(), &fibs[size_t(l)]->view()},
            {classifiers[classifiers.size() - 2].get(), classifiers.back().get()}, emulated);
  }
  // Idle links after the line's, between nodes 1 and 2 (any will do: no frame crosses them).
  for (int l = 0; l < idle; ++l)
    addLink(nodes + l, 64, {&fibs.front()->view(), &fibs.front()->view()},
            {classifiers.front().get(), classifiers.front().get()}, true);
  std::vector<Prebuilt> frames(4096);
  std::mt19937_64 rng(7);
  for (auto& pb : frames) {
    const fp_xdp_meta meta = testing::udpDataMeta();
    std::memcpy(pb.bytes, &meta, sizeof(meta));
    const testing::L2 l2{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 9, 9}, {}};
    testing::V4 ip;
    ip.ttl = 255;  // 64 hops must not expire it
    const uint32_t sa = htonl(0xc6130000u | uint32_t(rng() & 0xffff));
    const uint32_t da = htonl(0xc6130000u | uint32_t(rng() & 0xffff));
    std::memcpy(ip.src.data(), &sa, 4);
    std::memcpy(ip.dst.data(), &da, 4);
    testing::Bytes f = testing::ipv4(l2, ip, testing::udp(1000, 2000, kFrameBytes - 14 - 20 - 8));
    std::memcpy(pb.bytes + sizeof(meta), f.data(), kFrameBytes);
  }
  InMemoryPorts rig = benchPorts(2 * kRing * 2 + 4 * kBatch + uint32_t(nodes) * 2 * kBatch +
                                 (held ? uint32_t(idle) : 0));
  if (!mapped(rig, state)) return;
  // The idle links' held frames, one each on its first direction, outside the worker's
  // ledger (placed before it starts): counted in `placed`.
  uint64_t placed = 0;
  if (held)
    for (int l = 0; l < idle; ++l) {
      uint64_t addr;
      LinkShaper* sh = table.find(linkPort(nodes + l, 0))->shaper;
      if (!rig.umem->pool().take(&addr) ||
          sh->admit(monotonicNs(), addr, kFrameBytes) != LinkShaper::Admit::kQueued) {
        state.SkipWithError("could not place the idle links' frames");
        return;
      }
      ++placed;
    }
  WorkerOptions wo;
  wo.batch_size = kBatch;
  wo.max_ports = kMaxPorts;
  Worker worker(wo, std::move(rig.umem), std::move(rig.sockets), {nullptr, nullptr},
                fibs[0]->view(), epoch);
  worker.setPortFib(0, &fibs.front()->view());
  worker.setPortFib(1, &fibs.back()->view());
  worker.publishLinkPorts(&table);
  size_t next = 0;
  auto kernelRx = [&](uint64_t a) {
    const Prebuilt& pb = frames[next++ % frames.size()];
    std::memcpy(rig.area->data(a) - sizeof(fp_xdp_meta), pb.bytes, sizeof(pb.bytes));
    return kFrameBytes;
  };
  bool pending = false;
  worker.pollOnce(&pending);
  uint64_t received = 0;
  std::vector<uint32_t> batch_ns;
  batch_ns.reserve(1u << 22);
  for (auto _ : state) {
    kernelTransmit(*rig.out, kRing);
    received += kernelReceive(*rig.in, kBatch, kHeadroom, kernelRx);
    const uint64_t t0 = monotonicNs();
    worker.pollOnce(&pending);
    const uint64_t t1 = monotonicNs();
    if (batch_ns.size() < batch_ns.capacity()) batch_ns.push_back(uint32_t(t1 - t0));
    state.SetIterationTime(double(t1 - t0) * 1e-9);
  }
  // A batch crosses the whole line in one pass (link ports that get frames while the pass
  // walks them are received in the same pass).
  const uint64_t forwarded = worker.portCounters(1).tx_packets.get();
  const auto acc = worker.accounting();
  const bool balanced =
      acc.free + acc.lent_rx + acc.lent_tx + acc.held + acc.in_link + acc.lost + placed == acc.total;
  uint64_t still_held = 0;
  for (int l = 0; held && l < idle; ++l) still_held += table.find(linkPort(nodes + l, 0))->shaper->size();
  if (forwarded != received || !balanced || still_held != placed) {
    state.SkipWithError(("received " + std::to_string(received) + ", forwarded " +
                         std::to_string(forwarded) + ", or ledger unbalanced, or " +
                         std::to_string(placed - still_held) + " held frames released")
                            .c_str());
    return;
  }
  state.SetItemsProcessed(int64_t(received));
  state.counters["ns_per_pkt"] = benchmark::Counter(
      double(received), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  std::nth_element(batch_ns.begin(), batch_ns.begin() + batch_ns.size() / 2, batch_ns.end());
  state.counters["p50_ns_per_pkt"] = benchmark::Counter(double(batch_ns[batch_ns.size() / 2]) / kBatch);
  state.SetLabel(std::to_string(nodes) + " nodes, " + std::to_string(nodes - 1) +
                 (emulated ? " emulated" : "") + " internal links, " +
                 (idle ? std::to_string(idle) + (held ? " emulated links holding a frame for later, "
                                                       : " idle emulated links, ")
                       : "") +
                 "IPv4 160 B");
}

// ns_per_pkt(N) - ns_per_pkt(1), divided by N - 1, is the cost of one internal hop.
void BM_WorkerLine(benchmark::State& state) { runLine(state, int(state.range(0)), 0); }

// The same line with every link emulated (`delay 0`): each hop is also an admission into
// the link's shaper, its release in due order and the lateness taken at the peer end — the
// path of a frame along a line of emulated links. (ns_per_pkt(8) - ns_per_pkt(2)) / 6 is
// the cost of one emulated hop.
void BM_WorkerLineEmulated(benchmark::State& state) {
  runLine(state, int(state.range(0)), 0, true);
}
BENCHMARK(BM_WorkerLineEmulated)->ArgNames({"nodes"})->Arg(2)->Arg(8)->UseManualTime();

// One busy link (two nodes), plain or emulated, beside 0 or `idle` emulated links without
// traffic (`held` 1: each holding one frame due an hour later): the per-packet cost must
// follow the traffic, not the number of links.
void BM_WorkerIdleLinks(benchmark::State& state) {
  runLine(state, 2, int(state.range(0)), state.range(1) != 0, state.range(2) != 0);
}
BENCHMARK(BM_WorkerIdleLinks)
    ->ArgNames({"idle", "emulated", "held"})
    ->Args({0, 0, 0})
    ->Args({4096, 0, 0})
    ->Args({0, 1, 0})
    ->Args({4096, 1, 0})
    ->Args({4095, 1, 1})
    ->UseManualTime();

// The emulation stage alone (LinkEmulation): per frame, its admission on one busy link
// (`delay 0`, so every frame is due at once) and its release by takeDue, 64 a pass, beside
// `held` links each holding one frame due an hour later: what a pass pays for links that
// hold frames none of which is due.
void BM_EmulationRelease(benchmark::State& state) {
  const uint32_t held = uint32_t(state.range(0));
  UmemOptions uo;
  uo.frames = held + kBatch;
  uo.frame_size = 2048;
  auto umem = Umem::createInMemory(uo);
  if (!umem.ok()) {
    state.SkipWithError(umem.error().message.c_str());
    return;
  }
  FrameBook book(&(*umem)->pool());
  auto port_counters = std::make_unique<WorkerPortCounters[]>(kMaxPorts);
  WorkerFrames frames(**umem, book, port_counters.get());
  LinkEmulation emu(frames, 4 * kBatch);
  LinkPortTable table;
  table.version = 1;
  table.slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
  std::vector<std::unique_ptr<LinkShaper>> shapers;
  std::vector<std::unique_ptr<LinkQueue>> queues;
  LinkParams later;
  later.delay_ns = 3600ull * 1000000000ull;
  for (uint32_t i = 0; i <= held; ++i) {
    shapers.push_back(std::make_unique<LinkShaper>(i ? later : LinkParams{}, i + 1, i ? 16 : 1024));
    queues.push_back(std::make_unique<LinkQueue>(1024));
    LinkPortSlot s;
    s.port = kFirstLinkPort + PortId(2 * i);
    s.peer = s.port + 1;
    s.to_peer = queues.back().get();
    s.shaper = shapers.back().get();
    table.slot_of[s.port - kFirstLinkPort] = int32_t(table.slots.size());
    table.slots.push_back(s);
  }
  auto send = [&](uint32_t link, uint64_t addr) {
    book.takenFromPool(1);
    emu.transmit(*shapers[link], kFirstLinkPort + 2 * link, PortId(kFirstLinkPort + 2 * link),
                 addr, kFrameBytes);
  };
  for (uint32_t i = 1; i <= held; ++i) {
    uint64_t addr;
    if (!(*umem)->pool().take(&addr)) return state.SkipWithError("UMEM too small");
    send(i, addr);
  }
  std::vector<uint64_t> addrs(kBatch);
  for (uint64_t& a : addrs)
    if (!(*umem)->pool().take(&a)) return state.SkipWithError("UMEM too small");
  uint64_t released = 0;
  for (auto _ : state) {
    const uint64_t t0 = monotonicNs();
    for (uint64_t a : addrs) send(0, a);
    const auto due = emu.takeDue(monotonicNs(), table, {});
    const uint64_t t1 = monotonicNs();
    if (due.size() != kBatch) return state.SkipWithError("a pass did not release its frames");
    for (uint32_t k = 0; k < kBatch; ++k) addrs[k] = due[k].frame.addr;
    book.linkToHeld(kBatch);
    book.heldToFree(kBatch);
    released += kBatch;
    state.SetIterationTime(double(t1 - t0) * 1e-9);
  }
  if (emu.active().size() != held) return state.SkipWithError("a held frame was released");
  state.SetItemsProcessed(int64_t(released));
  state.counters["ns_per_pkt"] = benchmark::Counter(
      double(released), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel("one busy link (delay 0) beside " + std::to_string(held) +
                 " links holding a frame for later");
}
BENCHMARK(BM_EmulationRelease)->ArgNames({"held"})->Arg(0)->Arg(4095)->UseManualTime();

BENCHMARK(BM_WorkerLine)
    ->ArgNames({"nodes"})
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->UseManualTime();

}  // namespace
}  // namespace fastpath

BENCHMARK_MAIN();
