// SPDX-License-Identifier: GPL-2.0-only
// FlowQueue-CoDel on worked examples, no clock: ns-3's flow hash, a thin flow's frames
// not held behind a fat flow, byte fairness of the deficit round robin, new flows served
// first, CoDel per flow, the over-limit drop from the fattest flow, ECN marks and the CE
// threshold, set-associative hashing; then through LinkShaper: dequeues at the model times
// the device queue frees, never a release before a frame's arrival time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "fastpath/link_params.h"
#include "link/fq_codel.h"
#include "link/link_shaper.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000, kUs = 1000;

LinkParams fq() {
  LinkParams p;
  p.rate_bps = 10000000;
  p.limit_packets = 1;
  p.aqm = LinkParams::Aqm::kFqCoDel;
  p.aqm_limit_packets = 10240;
  p.aqm_fq_quantum = 1500;
  return p;
}

// A frame of `len` bytes whose flow is `flow` (its address says which frame it is).
FqCoDel::Frame frame(uint64_t id, uint32_t len = 1514, bool ect = false) {
  return FqCoDel::Frame{id, 0, len, 0, ect};
}

// An Ethernet + IPv4 + TCP/UDP frame with the given 5-tuple.
std::vector<uint8_t> ipv4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport,
                          uint16_t dport, uint16_t frag = 0) {
  std::vector<uint8_t> f(14 + 20 + 20, 0);
  f[12] = 0x08;
  f[14] = 0x45;
  f[20] = uint8_t(frag >> 8);
  f[21] = uint8_t(frag);
  f[23] = proto;
  for (int i = 0; i < 4; ++i) {
    f[26 + i] = uint8_t(src >> (24 - 8 * i));
    f[30 + i] = uint8_t(dst >> (24 - 8 * i));
  }
  f[34] = uint8_t(sport >> 8);
  f[35] = uint8_t(sport);
  f[36] = uint8_t(dport >> 8);
  f[37] = uint8_t(dport);
  return f;
}

TEST(FqCoDelHash, Murmur3MatchesItsReferenceVectors) {
  const auto h = [](const char* s, uint32_t seed) {
    return FqCoDel::murmur3(reinterpret_cast<const uint8_t*>(s), uint32_t(std::strlen(s)), seed);
  };
  EXPECT_EQ(h("", 0), 0u);
  EXPECT_EQ(h("", 1), 0x514e28b7u);
  EXPECT_EQ(h("hello", 0), 0x248bfa47u);
  EXPECT_EQ(h("The quick brown fox jumps over the lazy dog", 0), 0x2e4ff723u);
}

// ns-3's Ipv4QueueDiscItem::Hash: source, destination, protocol, ports, perturbation, in
// network order, through MurmurHash3 with ns-3's seed.
TEST(FqCoDelHash, AnIpv4FlowHashesItsFiveTupleAndPerturbationAsNs3Does) {
  const auto f = ipv4(0x0a010102, 0x0a020201, 6, 49153, 5000);
  const uint8_t buf[17] = {10, 1, 1, 2, 10, 2, 2, 1, 6, 0xc0, 0x01, 0x13, 0x88, 0, 0, 0, 7};
  EXPECT_EQ(FqCoDel::flowHash(f.data(), uint32_t(f.size()), 7),
            FqCoDel::murmur3(buf, 17, 0x8badf00d));
  // The same flow hashes the same; another port, protocol or salt does not.
  EXPECT_EQ(FqCoDel::flowHash(f.data(), uint32_t(f.size()), 0),
            FqCoDel::flowHash(ipv4(0x0a010102, 0x0a020201, 6, 49153, 5000).data(), 54, 0));
  EXPECT_NE(FqCoDel::flowHash(f.data(), 54, 0),
            FqCoDel::flowHash(ipv4(0x0a010102, 0x0a020201, 6, 49154, 5000).data(), 54, 0));
  EXPECT_NE(FqCoDel::flowHash(f.data(), 54, 0),
            FqCoDel::flowHash(ipv4(0x0a010102, 0x0a020201, 17, 49153, 5000).data(), 54, 0));
  EXPECT_NE(FqCoDel::flowHash(f.data(), 54, 0), FqCoDel::flowHash(f.data(), 54, 1));
  // A later fragment carries no ports: hashed with ports 0.
  const uint8_t frag[17] = {10, 1, 1, 2, 10, 2, 2, 1, 6, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(FqCoDel::flowHash(ipv4(0x0a010102, 0x0a020201, 6, 49153, 5000, 0x0010).data(), 54, 0),
            FqCoDel::murmur3(frag, 17, 0x8badf00d));
  // Not IP: ns-3's default item hash, 0.
  std::vector<uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_EQ(FqCoDel::flowHash(arp.data(), 60, 0), 0u);
}

// A fat flow has 40 frames queued; a thin flow's frame comes: it is a new flow, so the very
// next dequeue serves it, not the fat flow's backlog.
TEST(FqCoDel, AThinFlowIsNotHeldBehindAFatFlowsBacklog) {
  const LinkParams p = fq();
  FqCoDel d(4096);
  std::vector<FqCoDel::Dropped> dropped;
  for (uint64_t i = 0; i < 40; ++i) ASSERT_TRUE(d.enqueue(p, 0, 1, frame(i), &dropped));
  FqCoDel::Frame out;
  bool mark;
  ASSERT_TRUE(d.dequeue(p, 1 * kUs, &out, &mark, &dropped));
  EXPECT_EQ(out.addr, 0u);
  ASSERT_TRUE(d.enqueue(p, 2 * kUs, 2, frame(1000, 100), &dropped));
  ASSERT_TRUE(d.dequeue(p, 3 * kUs, &out, &mark, &dropped));
  EXPECT_EQ(out.addr, 1000u);
  // Once the fat flow is old, a thin flow that keeps sending a frame a round waits at most
  // one quantum of the fat flow's bytes.
  uint32_t fat_bytes_between = 0, worst = 0;
  for (int round = 0; round < 10; ++round) {
    ASSERT_TRUE(d.enqueue(p, 4 * kUs, 2, frame(2000 + round, 100), &dropped));
    for (;;) {
      ASSERT_TRUE(d.dequeue(p, 5 * kUs, &out, &mark, &dropped));
      if (out.addr >= 2000) break;
      fat_bytes_between += FqCoDel::packetBytes(out.len);
    }
    worst = std::max(worst, fat_bytes_between);
    fat_bytes_between = 0;
  }
  EXPECT_LE(worst, p.aqm_fq_quantum);
  EXPECT_TRUE(dropped.empty());
}

// Two backlogged flows, one of 1500-byte packets and one of 500-byte packets: served
// bytes stay within a quantum of each other (DRR counts bytes, not packets).
TEST(FqCoDel, DeficitRoundRobinSharesBytesNotPackets) {
  const LinkParams p = fq();
  FqCoDel d(4096);
  std::vector<FqCoDel::Dropped> dropped;
  for (uint64_t i = 0; i < 600; ++i) {
    ASSERT_TRUE(d.enqueue(p, 0, 1, frame(i, 1514), &dropped));
    ASSERT_TRUE(d.enqueue(p, 0, 2, frame(100000 + i, 514), &dropped));
    ASSERT_TRUE(d.enqueue(p, 0, 2, frame(200000 + i, 514), &dropped));
  }
  std::map<int, uint64_t> bytes, packets;
  FqCoDel::Frame out;
  bool mark;
  for (int k = 0; k < 800; ++k) {
    ASSERT_TRUE(d.dequeue(p, 1 * kUs, &out, &mark, &dropped));
    const int flow = out.addr < 100000 ? 1 : 2;
    bytes[flow] += FqCoDel::packetBytes(out.len);
    packets[flow] += 1;
    const int64_t diff = int64_t(bytes[1]) - int64_t(bytes[2]);
    ASSERT_LE(std::abs(diff), int64_t(p.aqm_fq_quantum) + 1500) << k;
  }
  EXPECT_GT(packets[2], 2 * packets[1]);  // three small packets a big one
  EXPECT_TRUE(dropped.empty());
}

// A flow that becomes active goes on the new list and is served before old flows, with
// one quantum; then it turns old and takes its turn.
TEST(FqCoDel, ANewFlowIsServedBeforeOldFlowsForOneQuantum) {
  const LinkParams p = fq();
  FqCoDel d(4096);
  std::vector<FqCoDel::Dropped> dropped;
  for (uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(d.enqueue(p, 0, 1, frame(i, 514), &dropped));
  for (uint64_t i = 0; i < 10; ++i)
    ASSERT_TRUE(d.enqueue(p, 0, 2, frame(100 + i, 514), &dropped));
  FqCoDel::Frame out;
  bool mark;
  std::vector<uint64_t> order;
  for (int k = 0; k < 12; ++k) {
    ASSERT_TRUE(d.dequeue(p, 1 * kUs, &out, &mark, &dropped));
    order.push_back(out.addr);
  }
  // Flow 1 first (new, quantum 1500 = three 500-byte packets), then flow 2 (new), then
  // they alternate as old flows, three packets a turn.
  const std::vector<uint64_t> want{0, 1, 2, 100, 101, 102, 3, 4, 5, 103, 104, 105};
  EXPECT_EQ(order, want);
  // A third flow arrives: it goes ahead of both at the next dequeue.
  ASSERT_TRUE(d.enqueue(p, 2 * kUs, 3, frame(300, 514), &dropped));
  ASSERT_TRUE(d.dequeue(p, 3 * kUs, &out, &mark, &dropped));
  EXPECT_EQ(out.addr, 300u);
}

// Each flow has its own CoDel: a flow whose frames wait 20 ms at the head is dropped from
// after an interval; a flow whose frames leave at once is never dropped.
TEST(FqCoDel, CoDelRunsPerFlow) {
  LinkParams p = fq();
  p.aqm_min_bytes = 0;
  FqCoDel d(8192);
  std::vector<FqCoDel::Dropped> dropped;
  FqCoDel::Frame out;
  bool mark;
  uint64_t slow_sent = 0;
  // Every ms: the slow flow's frame from 20 ms ago is at the head; the quick flow's frame
  // comes and leaves the same ms.
  for (uint64_t t = 0; t < 20; ++t) ASSERT_TRUE(d.enqueue(p, t * kMs, 1, frame(slow_sent++), &dropped));
  uint64_t quick_out = 0, slow_out = 0;
  for (uint64_t t = 20; t < 400; ++t) {
    ASSERT_TRUE(d.enqueue(p, t * kMs, 1, frame(slow_sent++), &dropped));
    ASSERT_TRUE(d.enqueue(p, t * kMs, 2, frame(1000000 + t), &dropped));
    for (int k = 0; k < 2; ++k) {
      if (!d.dequeue(p, t * kMs + 500 * kUs, &out, &mark, &dropped)) break;
      (out.addr >= 1000000 ? quick_out : slow_out) += 1;
    }
  }
  ASSERT_FALSE(dropped.empty());
  for (const auto& x : dropped) {
    EXPECT_LT(x.frame.addr, 1000000u);  // only the slow flow's
    EXPECT_EQ(x.why, FqCoDel::Why::kCoDel);
  }
  EXPECT_EQ(quick_out, 380u);
  EXPECT_GT(d.flowCoDel(1)->count(), 1u);
  EXPECT_EQ(d.flowCoDel(2)->count(), 0u);
}

// With ECN, an ECN-capable frame CoDel would drop is marked and sent; the CE threshold
// marks any ECN-capable frame that waited longer than it.
TEST(FqCoDel, EcnMarksInsteadOfDroppingAndTheCeThresholdMarks) {
  LinkParams p = fq();
  p.aqm_ecn = true;
  p.aqm_min_bytes = 0;
  FqCoDel d(8192);
  std::vector<FqCoDel::Dropped> dropped;
  FqCoDel::Frame out;
  bool mark = false;
  uint64_t sent = 0, marks = 0;
  for (uint64_t t = 0; t < 20; ++t) ASSERT_TRUE(d.enqueue(p, t * kMs, 1, frame(sent++, 1514, true), &dropped));
  for (uint64_t t = 20; t < 400; ++t) {
    ASSERT_TRUE(d.enqueue(p, t * kMs, 1, frame(sent++, 1514, true), &dropped));
    ASSERT_TRUE(d.dequeue(p, t * kMs, &out, &mark, &dropped));
    marks += mark;
  }
  EXPECT_TRUE(dropped.empty());
  EXPECT_GT(marks, 1u);

  LinkParams c = fq();
  c.aqm_ecn = true;
  c.aqm_ce_threshold_ns = 1 * kMs;
  FqCoDel e(64);
  ASSERT_TRUE(e.enqueue(c, 0, 1, frame(1, 1514, true), &dropped));
  ASSERT_TRUE(e.enqueue(c, 0, 1, frame(2, 1514, true), &dropped));
  ASSERT_TRUE(e.dequeue(c, 500 * kUs, &out, &mark, &dropped));
  EXPECT_FALSE(mark);
  ASSERT_TRUE(e.dequeue(c, 3 * kMs, &out, &mark, &dropped));
  EXPECT_TRUE(mark);
}

// Over the limit, frames go from the head of the flow with the most bytes: half its bytes,
// at most a batch; the other flow keeps all it has.
TEST(FqCoDel, OverTheLimitDropsFromTheHeadOfTheFattestFlow) {
  LinkParams p = fq();
  p.aqm_limit_packets = 10;
  FqCoDel d(64);
  std::vector<FqCoDel::Dropped> dropped;
  for (uint64_t i = 0; i < 8; ++i) ASSERT_TRUE(d.enqueue(p, 0, 1, frame(i, 1014), &dropped));
  for (uint64_t i = 0; i < 2; ++i) ASSERT_TRUE(d.enqueue(p, 0, 2, frame(100 + i, 1514), &dropped));
  EXPECT_TRUE(dropped.empty());
  ASSERT_TRUE(d.enqueue(p, 0, 2, frame(102, 1514), &dropped));  // 11 > 10
  // Flow 1: 8000 bytes, flow 2: 4500: flow 1's first four (4000 = half) go.
  ASSERT_EQ(dropped.size(), 4u);
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(dropped[i].frame.addr, i);
    EXPECT_EQ(dropped[i].why, FqCoDel::Why::kOverLimit);
  }
  EXPECT_EQ(d.size(), 7u);
  EXPECT_EQ(d.flowPackets(2), 3u);
  // The batch bounds it: with a batch of 1, one frame, from the now fattest flow 2.
  p.aqm_fq_drop_batch = 1;
  dropped.clear();
  for (uint64_t i = 3; i < 7; ++i) ASSERT_TRUE(d.enqueue(p, 0, 2, frame(100 + i, 1514), &dropped));
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].frame.addr, 100u);
  EXPECT_EQ(d.size(), 10u);
}

// Set-associative hashing: two flows whose hashes meet in one queue get two queues of the
// same set; without it they share one.
TEST(FqCoDel, SetAssociativeHashingGivesCollidingFlowsTheirOwnQueue) {
  LinkParams p = fq();
  p.aqm_fq_flows = 64;
  FqCoDel plain(64, 64);
  std::vector<FqCoDel::Dropped> dropped;
  const uint32_t a = 5, b = 5 + 64;  // the same queue modulo 64
  EXPECT_EQ(plain.queueOf(p, a), plain.queueOf(p, b));
  p.aqm_fq_set_associative = true;
  p.aqm_fq_set_ways = 8;
  FqCoDel sa(64, 64);
  ASSERT_TRUE(sa.enqueue(p, 0, a, frame(1), &dropped));
  const uint32_t qa = sa.queueOf(p, a);
  ASSERT_TRUE(sa.enqueue(p, 0, b, frame(2), &dropped));
  EXPECT_EQ(sa.flowPackets(qa), 1u);
  uint32_t qb = 64;
  for (uint32_t q = 0; q < 64; ++q)
    if (q != qa && sa.flowPackets(q)) qb = q;
  ASSERT_LT(qb, 64u);
  EXPECT_EQ(qa / 8, qb / 8);  // the same set of 8
}

// Through the shaper: 10 Mbit/s (1514 bytes: 1211.2 us), a device queue of 1 frame. A
// burst of a fat flow, then one thin frame 2 ms later: the thin frame leaves at the next
// dequeue (when the device queue frees a place), ahead of the fat flow's backlog, and no
// frame is released before its arrival time.
TEST(FqCoDelShaper, DequeuesAtTheDeviceQueuesFreeSlotAndNeverReleasesEarly) {
  LinkParams p = fq();
  p.delay_ns = 10 * kMs;
  LinkShaper sh(p, 1, 4096);
  std::vector<uint8_t> fat = ipv4(0x0a000001, 0x0a000002, 6, 1000, 2000);
  std::vector<uint8_t> thin = ipv4(0x0a000003, 0x0a000002, 6, 1001, 2000);
  const uint32_t hf = FqCoDel::flowHash(fat.data(), 54, 0);
  const uint32_t ht = FqCoDel::flowHash(thin.data(), 54, 0);
  ASSERT_NE(hf % 1024, ht % 1024);
  const uint64_t t0 = 1000 * kMs;
  for (uint64_t i = 0; i < 20; ++i)
    ASSERT_EQ(sh.admit(t0, i, 1514, 0, false, hf), LinkShaper::Admit::kQueued);
  // Two frames left the disc at once: one on the wire, one in the device queue.
  EXPECT_EQ(sh.fqCoDel()->size(), 18u);
  const uint64_t tx = 1211200;  // 1514 * 8 / 10 Mbit/s in ns
  // The next dequeue: when the frame in the device queue starts, at t0 + tx.
  EXPECT_EQ(sh.nextArrival(), t0 + tx);
  ASSERT_EQ(sh.admit(t0 + 2 * kMs, 1000, 1514, 0, false, ht), LinkShaper::Admit::kQueued);
  // By t0 + 2 ms the dequeue at t0 + tx took fat frame 2; the next one, at t0 + 2 tx, takes
  // the thin frame: it starts at t0 + 3 tx and arrives at t0 + 4 tx + delay.
  std::vector<LinkFrame> out(64);
  std::vector<uint64_t> arr(64);
  std::vector<std::pair<uint64_t, uint64_t>> got;  // addr, arrival
  uint64_t now = t0;
  while (got.size() < 21 && now < t0 + 200 * kMs) {
    now = std::max(now, sh.nextArrival());
    const uint32_t n = sh.release(now, out.data(), arr.data(), 64);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_LE(arr[i], now);
      EXPECT_EQ(out[i].due, arr[i]);
      got.emplace_back(out[i].addr, arr[i]);
    }
    if (!n && sh.nextArrival() <= now) ++now;
  }
  ASSERT_EQ(got.size(), 21u);
  EXPECT_FALSE(sh.hasDiscEvents());
  size_t thin_at = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].first == 1000) thin_at = i;
  EXPECT_EQ(thin_at, 3u);
  EXPECT_EQ(got[thin_at].second, t0 + 4 * tx + p.delay_ns);
  // Back to back on the wire: frame k arrives at t0 + (k + 1) tx + delay.
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k].second, t0 + (k + 1) * tx + p.delay_ns) << k;
  EXPECT_EQ(sh.size(), 0u);
}

// Over the limit inside the shaper: the dropped frames come out as events, counted.
TEST(FqCoDelShaper, DropsLaterThanAdmissionComeOutAsEventsAndCount) {
  LinkParams p = fq();
  p.aqm_limit_packets = 4;
  LinkShaper sh(p, 1, 1024);
  for (uint64_t i = 0; i < 8; ++i)
    ASSERT_EQ(sh.admit(kMs, i, 1514, 0, false, 7), LinkShaper::Admit::kQueued);
  // Two left the disc at once (wire, device queue); the fifth frame in the disc put it over
  // its limit of 4: half the flow's bytes went, three frames from its head (2, 3, 4).
  ASSERT_TRUE(sh.hasDiscEvents());
  std::vector<uint64_t> dropped;
  for (const auto& e : sh.discEvents()) {
    EXPECT_EQ(e.kind, LinkShaper::DiscEvent::Kind::kQueueDrop);
    dropped.push_back(e.addr);
  }
  EXPECT_EQ(dropped, (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(sh.counters.queue_drops.load(), dropped.size());
  sh.clearDiscEvents();
  EXPECT_EQ(sh.size(), 8u - dropped.size());
}

TEST(FqCoDelShaper, TheDisciplineIsBuiltWithTheShaperNotAtTheFirstFrame) {
  // Its allocation belongs to the control thread that makes the shaper: at the first
  // frame, it held that frame past its model time.
  LinkShaper with(fq(), 1, 4096);
  ASSERT_NE(with.fqCoDel(), nullptr);
  EXPECT_TRUE(with.fqCoDel()->empty());
  LinkParams none = fq();
  none.aqm = LinkParams::Aqm::kNone;
  LinkShaper without(none, 1, 4096);
  EXPECT_EQ(without.fqCoDel(), nullptr);
}

// Every frame a shaper gives until it is empty: (addr, arrival time).
std::vector<std::pair<uint64_t, uint64_t>> drain(LinkShaper& sh, uint64_t now) {
  std::vector<std::pair<uint64_t, uint64_t>> got;
  LinkFrame out[64];
  uint64_t at[64];
  for (int guard = 0; sh.size() && guard < 100000; ++guard) {
    now = std::max(now, sh.nextArrival());
    const uint32_t n = sh.release(now, out, at, 64);
    for (uint32_t i = 0; i < n; ++i) got.emplace_back(out[i].addr, at[i]);
    if (!n && sh.nextArrival() <= now) ++now;
  }
  return got;
}

// Switched on, off and on again, a link's shaper is replaced by a successor with FqCoDel
// of its own while the old one's discipline (from the first switch) still holds frames. The
// worker moves them across: the successor keeps its own discipline, built on the control
// thread, and takes the frames into it; the old discipline stays with the retired shaper,
// which the control thread frees. Nothing is freed on the worker, and the frames leave as
// they would have.
TEST(FqCoDelShaper, ASuccessorTakesTheFramesIntoItsOwnDiscipline) {
  LinkParams p = fq();
  p.delay_ns = kMs;
  auto fill = [](LinkShaper& sh) {
    for (uint64_t i = 0; i < 12; ++i)
      ASSERT_EQ(sh.admit(kMs, i, 1514, 0, false, i % 3 ? 7 : 9), LinkShaper::Admit::kQueued);
  };
  LinkShaper old(p, 1, 1024), reference(p, 1, 1024);
  fill(old);
  fill(reference);
  LinkParams off = p;
  off.aqm = LinkParams::Aqm::kNone;
  delete old.setParams(off);  // no reader in this test
  delete old.setParams(p);
  delete reference.setParams(off);
  delete reference.setParams(p);
  LinkShaper successor(p, 1, 4096);
  const FqCoDel* own = successor.fqCoDel();
  const FqCoDel* olds = old.fqCoDel();
  ASSERT_NE(own, nullptr);
  ASSERT_NE(olds, nullptr);
  ASSERT_GT(olds->size(), 0u);
  const uint32_t held = olds->size();
  successor.moveFrom(old);
  EXPECT_EQ(successor.fqCoDel(), own) << "its own discipline, not old's";
  EXPECT_EQ(successor.fqCoDel()->size(), held);
  EXPECT_EQ(old.fqCoDel(), olds) << "old's discipline stays with the retired shaper";
  EXPECT_TRUE(old.fqCoDel()->empty());
  EXPECT_EQ(old.size(), 0u);
  const auto got = drain(successor, kMs), want = drain(reference, kMs);
  ASSERT_EQ(got.size(), 12u);
  EXPECT_EQ(got, want) << "the same frames, order and times as without the move";
  // Both sides of the discipline's free list still work: the successor takes its capacity.
  for (uint64_t i = 0; i < 4000; ++i)
    ASSERT_TRUE(LinkShaper::queued(successor.admit(2 * kMs, 100 + i, 100, 0, false, uint32_t(i))));
}

// A successor without room for old's discipline (here: another flow count) swaps with it:
// its own discipline leaves with the retired shaper, to be freed on the control thread.
TEST(FqCoDelShaper, ASuccessorThatCannotTakeTheFramesSwapsDisciplines) {
  LinkShaper old(fq(), 1, 1024);
  for (uint64_t i = 0; i < 6; ++i)
    ASSERT_EQ(old.admit(kMs, i, 1514, 0, false, 7), LinkShaper::Admit::kQueued);
  LinkParams other = fq();
  other.aqm_fq_flows = 512;
  LinkShaper successor(other, 1, 4096);
  const FqCoDel* own = successor.fqCoDel();
  const FqCoDel* olds = old.fqCoDel();
  const uint32_t held = olds->size();
  successor.moveFrom(old);
  EXPECT_EQ(successor.fqCoDel(), olds);
  EXPECT_EQ(successor.fqCoDel()->size(), held);
  EXPECT_EQ(old.fqCoDel(), own);
  EXPECT_EQ(drain(successor, kMs).size(), 6u);
}

}  // namespace
}  // namespace fastpath
