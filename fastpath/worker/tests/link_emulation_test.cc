// SPDX-License-Identifier: GPL-2.0-only
// The worker's emulation stage (LinkEmulation) on its own, in memory (no root, no worker
// thread): frames sent on many emulated link directions at chosen model times, released by
// takeDue at chosen clock times, checked against a reference computed here from the model
// (arrival = sending time + delay, never before the link's previous frame; equal arrivals:
// the lower key first; a link's own frames in sending order). Also the order the shapers
// wait in (DueOrder) against an ordered set under random operations.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "fastpath/monotonic_clock.h"
#include "worker/due_order.h"
#include "worker/link_emulation.h"
#include "xsk/umem.h"

namespace fastpath {
namespace {

constexpr uint32_t kLen = 64;

// `links` link directions (keys kFirstLinkPort + 2 i, peer + 1), each with its shaper and
// a peer queue; frames from an in-memory UMEM, the ledger kept as the worker keeps it.
class LinkEmulationTest : public ::testing::Test {
 public:
  struct Expect {
    uint64_t arrival;
    uint32_t key;
    uint64_t order;  // sending order: a link's frames leave in it
    uint64_t addr;
    /// Its stamp: `arrival`, or, sent before a frame of its link sent ahead of it, its own
    /// model arrival (it waits behind that one: lateness, LinkShaper::place).
    uint64_t due;
  };

 protected:
  void build(uint32_t links, uint32_t max_release, const std::vector<uint64_t>& delays,
             uint32_t queue = 1024, uint32_t shaper_capacity = 1024) {
    UmemOptions uo;
    uo.frames = 16384;
    uo.frame_size = 2048;
    auto u = Umem::createInMemory(uo);
    ASSERT_TRUE(u.ok()) << u.error().message;
    umem_ = std::move(*u);
    book_ = std::make_unique<FrameBook>(&umem_->pool());
    counters_ = std::make_unique<WorkerPortCounters[]>(kMaxPorts);
    frames_ = std::make_unique<WorkerFrames>(*umem_, *book_, counters_.get());
    emu_ = std::make_unique<LinkEmulation>(*frames_, max_release);
    table_.version = 1;
    table_.slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
    for (uint32_t i = 0; i < links; ++i) {
      LinkParams p;
      p.delay_ns = delays[i % delays.size()];
      shapers_.push_back(std::make_unique<LinkShaper>(p, i + 1, shaper_capacity));
      queues_.push_back(std::make_unique<LinkQueue>(queue));
      LinkPortSlot s;
      s.port = key(i);
      s.peer = key(i) + 1;
      s.to_peer = queues_.back().get();
      s.shaper = shapers_.back().get();
      table_.slot_of[s.port - kFirstLinkPort] = int32_t(table_.slots.size());
      table_.slots.push_back(s);
    }
    last_arrival_.assign(links, 0);
    max_sent_.assign(links, 0);
    base_ = monotonicNs() / 2;  // model times well in the past of the clock
  }
  static uint32_t key(uint32_t link) { return kFirstLinkPort + 2 * link; }
  LinkShaper& shaper(uint32_t link) { return *shapers_[link]; }

  // A frame sent on `link` at model time base_ + `at`; the reference arrival recorded.
  void send(uint32_t link, uint64_t at) {
    uint64_t addr;
    ASSERT_TRUE(umem_->pool().take(&addr));
    book_->takenFromPool(1);
    emu_->transmit(shaper(link), key(link), PortId(key(link)), addr, kLen, 0, base_ + at);
    const uint64_t own = base_ + at + shaper(link).params().delay_ns;
    const uint64_t arrival = std::max(own, last_arrival_[link]);
    last_arrival_[link] = arrival;
    const bool behind = base_ + at < max_sent_[link];
    if (!behind) max_sent_[link] = base_ + at;
    expect_.push_back(Expect{arrival, key(link), sent_++, addr, behind ? own : arrival});
  }
  // The reference release order of everything sent.
  std::vector<Expect> reference() const {
    std::vector<Expect> e = expect_;
    std::sort(e.begin(), e.end(), [](const Expect& a, const Expect& b) {
      if (a.arrival != b.arrival) return a.arrival < b.arrival;
      if (a.key != b.key) return a.key < b.key;
      return a.order < b.order;
    });
    return e;
  }
  std::vector<Released> take(uint64_t at) {
    auto d = emu_->takeDue(base_ + at, table_, {});
    std::vector<Released> v(d.begin(), d.end());
    for (const Released& r : v) {
      EXPECT_LE(r.frame.due, base_ + at) << "released before its arrival";
      umem_->pool().give(r.frame.addr);
      book_->linkToFree(1);
    }
    return v;
  }
  uint64_t earliestHeld() const {
    uint64_t t = ~0ull;
    for (const auto& sh : shapers_) t = std::min(t, sh->nextArrival());
    return t;
  }

  std::unique_ptr<Umem> umem_;
  std::unique_ptr<FrameBook> book_;
  std::unique_ptr<WorkerPortCounters[]> counters_;
  std::unique_ptr<WorkerFrames> frames_;
  std::unique_ptr<LinkEmulation> emu_;
  LinkPortTable table_;
  std::vector<std::unique_ptr<LinkShaper>> shapers_;
  std::vector<std::unique_ptr<LinkQueue>> queues_;
  std::vector<uint64_t> last_arrival_;
  std::vector<uint64_t> max_sent_;
  std::vector<Expect> expect_;
  uint64_t sent_ = 0;
  uint64_t base_ = 0;
};

void expectOrder(const std::vector<Released>& got, const std::vector<LinkEmulationTest::Expect>& want,
                 size_t from = 0) {
  ASSERT_LE(from + got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].frame.addr, want[from + i].addr) << "release " << from + i;
    EXPECT_EQ(got[i].key, want[from + i].key) << "release " << from + i;
    EXPECT_EQ(got[i].frame.due, want[from + i].due) << "release " << from + i;
  }
}

TEST_F(LinkEmulationTest, EqualDelaysAndEqualArrivalsReleaseByArrivalThenLowerLink) {
  build(200, 4096, {1000000});
  std::mt19937 rng(3);
  std::vector<uint32_t> order(200);
  for (uint32_t i = 0; i < 200; ++i) order[i] = i;
  // Round 1: every link sends at its own time, in shuffled link order.
  std::shuffle(order.begin(), order.end(), rng);
  for (uint32_t i = 0; i < 200; ++i) send(order[i], 1000 + 10 * i);
  // Round 2: all at one time (equal arrivals), shuffled again, two frames per link.
  std::shuffle(order.begin(), order.end(), rng);
  for (uint32_t l : order) send(l, 50000);
  for (uint32_t l : order) send(l, 50000);
  const auto want = reference();
  EXPECT_EQ(emu_->nextArrival(), want.front().arrival);
  EXPECT_TRUE(take(999999).empty()) << "nothing is due before the delay";
  const auto got = take(2000000);
  ASSERT_EQ(got.size(), want.size());
  expectOrder(got, want);
  EXPECT_FALSE(emu_->tookMax());
  EXPECT_EQ(emu_->nextArrival(), ~0ull);
  EXPECT_TRUE(emu_->active().empty());
}

// A frame's sending time (`sent`) at or before a clock value the worker read (sawClock) is
// taken as it is, without reading the clock again; one later than that value is checked
// against the clock as before: a stamp in the future is sent now, not then.
TEST_F(LinkEmulationTest, SentTimesTheClockIsPastAreKeptLaterOnesAreTheClocks) {
  build(1, 64, {1000});
  emu_->sawClock(monotonicNs());
  send(0, 10);  // model time base_ + 10, long past
  uint64_t addr;
  ASSERT_TRUE(umem_->pool().take(&addr));
  book_->takenFromPool(1);
  const uint64_t before = monotonicNs();
  emu_->transmit(shaper(0), key(0), PortId(key(0)), addr, kLen, 0, before + 3600'000'000'000ull);
  const uint64_t after = monotonicNs();
  const auto due = emu_->takeDue(after + 1000, table_, {});
  ASSERT_EQ(due.size(), 2u) << "the future stamp was taken for the sending time";
  EXPECT_EQ(due[0].frame.due, base_ + 10 + 1000);
  EXPECT_GE(due[1].frame.due, before + 1000);
  EXPECT_LE(due[1].frame.due, after + 1000);
  for (const Released& r : due) {
    umem_->pool().give(r.frame.addr);
    book_->linkToFree(1);
  }
}

TEST_F(LinkEmulationTest, DifferentDelaysReleaseInArrivalOrderPassAfterPass) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> delays;
  for (int i = 0; i < 97; ++i) delays.push_back(1000 * (1 + rng() % 5000));  // 1 us .. 5 ms
  build(97, 4096, delays);
  for (int f = 0; f < 3000; ++f) send(uint32_t(rng() % 97), rng() % 3000000);
  const auto want = reference();
  size_t done = 0;
  // Passes at irregular times: each takes exactly what is due by then, earliest first.
  for (uint64_t at = 0; done < want.size(); at += 1000 + rng() % 200000) {
    const auto got = take(at);
    expectOrder(got, want, done);
    done += got.size();
    const uint64_t next = done < want.size() ? want[done].arrival : ~0ull;
    ASSERT_EQ(emu_->nextArrival(), next) << "after the pass at " << at;
    ASSERT_EQ(earliestHeld(), next);
    if (next != ~0ull) {
      ASSERT_GT(next, base_ + at);
    }
  }
  EXPECT_EQ(done, want.size());
}

TEST_F(LinkEmulationTest, APassTakesAtMostItsCapTheEarliestAcrossLinks) {
  build(20, 8, {3000, 1000, 2000});
  for (uint32_t l = 0; l < 20; ++l)
    for (uint64_t k = 0; k < 3; ++k) send(l, 100 * k + l);
  const auto want = reference();
  size_t done = 0;
  while (done < want.size()) {
    const auto got = take(1000000);
    ASSERT_EQ(got.size(), std::min<size_t>(8, want.size() - done));
    expectOrder(got, want, done);
    done += got.size();
    EXPECT_EQ(emu_->tookMax(), got.size() == 8);
  }
  EXPECT_TRUE(take(1000000).empty());
  EXPECT_FALSE(emu_->tookMax());
}

// A link whose peer's queue has room for 2 gives 2 in a pass; the others go on, and the
// rest comes once the queue was drained.
TEST_F(LinkEmulationTest, ALinkGivesNoMoreThanItsPeersQueueTakesThePassGoesOn) {
  build(3, 64, {1000}, 4);
  for (uint64_t i = 0; i < 2; ++i) ASSERT_TRUE(queues_[0]->push(0, 0));
  for (uint64_t k = 0; k < 5; ++k) send(0, k);
  for (uint64_t k = 0; k < 3; ++k) send(1, 2 + k);
  auto got = take(100000);
  ASSERT_EQ(got.size(), 2u + 3u);
  uint32_t from0 = 0;
  for (const Released& r : got) from0 += r.key == key(0);
  EXPECT_EQ(from0, 2u);
  // Arrival order among what was taken.
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].frame.due, got[i].frame.due);
  EXPECT_EQ(emu_->nextArrival(), base_ + 2 + 1000) << "link 0's third frame waits, due";
  LinkFrame f[4];
  queues_[0]->pop(f, 4);
  got = take(100000);
  ASSERT_EQ(got.size(), 3u);
  for (const Released& r : got) EXPECT_EQ(r.key, key(0));
}

// Jitter that may reorder: a frame admitted after another but arriving before it moves its
// link ahead in the order.
TEST_F(LinkEmulationTest, AFrameArrivingBeforeItsLinksEarliestMovesTheLinkAhead) {
  build(2, 64, {10000000});
  LinkParams p;
  p.delay_ns = 1000000;
  p.jitter_ns = 900000;
  p.reorder = true;
  // Link 0 reorders; with a fixed seed its frames' arrivals spread over 0.1 .. 1.9 ms.
  shapers_[0] = std::make_unique<LinkShaper>(p, 99, 1024);
  table_.slots[0].shaper = shapers_[0].get();
  send(1, 0);  // link 1: 10 ms
  std::vector<uint64_t> arrivals;
  for (int k = 0; k < 50; ++k) {
    uint64_t addr;
    ASSERT_TRUE(umem_->pool().take(&addr));
    book_->takenFromPool(1);
    emu_->transmit(shaper(0), key(0), PortId(key(0)), addr, kLen, 0, base_ + 10);
    ASSERT_EQ(emu_->nextArrival(), shaper(0).nextArrival()) << "frame " << k;
  }
  uint64_t last = 0;
  size_t n = 0;
  for (uint64_t at = 0; at < 20000000; at += 50000)
    for (const Released& r : take(at)) {
      EXPECT_GE(r.frame.due, last);
      last = r.frame.due;
      ++n;
    }
  EXPECT_EQ(n, 51u);
}

// Frames leaving a shaper ahead of the order (a timed client's early release, or a link
// deleted) leave a stale place: the next pass finds the shaper's real earliest frame.
TEST_F(LinkEmulationTest, FramesTakenAheadOfTheOrderAreNotReleasedAgainNorWaitedFor) {
  build(3, 64, {1000000, 2000000, 3000000});
  send(0, 0);
  send(0, 500000);
  send(1, 0);
  send(2, 0);
  LinkFrame f;
  ASSERT_TRUE(shaper(0).releaseNext(&f));  // link 0's first, early
  umem_->pool().give(f.addr);
  book_->linkToFree(1);
  LinkFrame all[4];
  ASSERT_EQ(shaper(1).takeAll(all, 4), 1u);  // link 1 emptied
  umem_->pool().give(all[0].addr);
  book_->linkToFree(1);
  EXPECT_EQ(emu_->nextArrival(), base_ + 1000000) << "a stale place wakes early, never late";
  EXPECT_TRUE(take(1000000).empty());
  EXPECT_EQ(emu_->nextArrival(), base_ + 1500000) << "link 0's second frame";
  EXPECT_EQ(emu_->active().size(), 3u) << "link 1 stays listed until its time comes";
  auto got = take(3000000);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].key, key(0));
  EXPECT_EQ(got[0].frame.due, base_ + 1500000);
  EXPECT_EQ(got[1].key, key(2));
  EXPECT_TRUE(emu_->active().empty());
  EXPECT_EQ(emu_->nextArrival(), ~0ull);
}

// Parameters changed while frames are held: they keep their times; new frames get the
// new delay, never before the link's earlier frames, and the order across links holds.
TEST_F(LinkEmulationTest, ParametersChangedWhileFramesAreHeldKeepTheirTimesAndTheOrder) {
  build(2, 64, {5000000, 3000000});
  send(0, 0);      // 5 ms
  send(1, 0);      // 3 ms
  LinkParams p = shaper(0).params();
  p.delay_ns = 1000000;
  delete shaper(0).setParams(p);  // no other reader in this test
  send(0, 100);    // 1 ms now, but not before link 0's first frame: 5 ms
  send(1, 4000000);  // 7 ms
  send(0, 5500000);  // 6.5 ms
  const auto want = reference();
  EXPECT_EQ(want[0].key, key(1));
  const auto got = take(10000000);
  ASSERT_EQ(got.size(), 5u);
  expectOrder(got, want);
}

// A link deleted while it holds frames: the new table has no slot for it; the shapers
// still holding frames are found again in it and only theirs are released.
TEST_F(LinkEmulationTest, ALinkDeletedWhileHoldingFramesIsNotReleasedFromTheNewTable) {
  build(3, 64, {1000000});
  send(0, 0);
  send(1, 10);
  send(2, 20);
  // The daemon's next table: the link's slot is gone.
  LinkPortTable next;
  next.version = 2;
  next.slot_of.assign(kMaxPorts - kFirstLinkPort, -1);
  for (const LinkPortSlot& s : table_.slots) {
    if (s.port == key(1)) continue;
    next.slot_of[s.port - kFirstLinkPort] = int32_t(next.slots.size());
    next.slots.push_back(s);
  }
  table_ = next;
  emu_->adopt(table_);
  EXPECT_EQ(emu_->active().size(), 2u);
  const auto got = take(2000000);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].key, key(0));
  EXPECT_EQ(got[1].key, key(2));
  EXPECT_EQ(shaper(1).size(), 1u) << "the worker discards it as the table retires it";
  LinkFrame f[1];
  ASSERT_EQ(shaper(1).takeAll(f, 1), 1u);
  umem_->pool().give(f[0].addr);
  book_->linkToFree(1);
}

// Many links holding one frame each, due far later: a pass releasing a busy link's frames
// does not disturb them, and the next arrival is the busy link's, then theirs.
TEST_F(LinkEmulationTest, LinksHoldingFramesForLaterStayOrderedBesideABusyOne) {
  build(4096, 256, {1000}, 1024, 16);
  for (uint32_t l = 1; l < 4096; ++l) {
    LinkParams p;
    p.delay_ns = 3600ull * 1000000000ull;
    delete shaper(l).setParams(p);
    send(l, 4096 - l);
  }
  for (uint64_t round = 0; round < 100; ++round) {
    for (uint64_t k = 0; k < 10; ++k) send(0, round * 10000 + k);
    EXPECT_EQ(emu_->nextArrival(), base_ + round * 10000 + 1000);
    const auto got = take(round * 10000 + 5000);
    ASSERT_EQ(got.size(), 10u);
    for (const Released& r : got) EXPECT_EQ(r.key, key(0));
  }
  EXPECT_EQ(emu_->active().size(), 4095u);
  EXPECT_EQ(emu_->nextArrival(), base_ + 3600ull * 1000000000ull + 1) << "link 4095's";
  const auto want = reference();
  size_t done = 1000;
  for (;;) {
    const auto got = take(3601ull * 1000000000ull);
    if (got.empty()) break;
    ASSERT_EQ(got.size(), std::min<size_t>(256, want.size() - done)) << "a pass takes its cap";
    expectOrder(got, want, done);
    done += got.size();
  }
  EXPECT_EQ(done, want.size());
  EXPECT_TRUE(emu_->active().empty());
}

TEST(DueOrder, MatchesAnOrderedSetUnderRandomOperations) {
  constexpr uint32_t kKeys = 300;
  DueOrder order(kKeys);
  std::set<std::pair<uint64_t, uint32_t>> ref;
  std::vector<uint64_t> time_of(kKeys, ~0ull);
  std::mt19937_64 rng(5);
  for (int op = 0; op < 200000; ++op) {
    const uint32_t key = uint32_t(rng() % kKeys);
    const uint64_t t = rng() % 64;  // many equal times
    switch (rng() % 5) {
      case 0:
      case 1:
        if (time_of[key] != ~0ull) ref.erase({time_of[key], key});
        order.set(key, t);
        time_of[key] = t;
        ref.insert({t, key});
        break;
      case 2:
        if (time_of[key] == ~0ull || t < time_of[key]) {
          if (time_of[key] != ~0ull) ref.erase({time_of[key], key});
          time_of[key] = t;
          ref.insert({t, key});
        }
        order.lower(key, t);
        break;
      case 3:
        if (time_of[key] != ~0ull) ref.erase({time_of[key], key});
        time_of[key] = ~0ull;
        order.erase(key);
        break;
      default:
        if (!ref.empty()) {
          ASSERT_EQ(order.top().key, ref.begin()->second);
          time_of[ref.begin()->second] = ~0ull;
          ref.erase(ref.begin());
          order.pop();
        }
    }
    ASSERT_EQ(order.size(), ref.size());
    ASSERT_EQ(order.contains(key), time_of[key] != ~0ull);
    if (!ref.empty()) {
      ASSERT_EQ(order.top().time, ref.begin()->first);
      ASSERT_EQ(order.top().key, ref.begin()->second) << "equal times: the lower key first";
    }
  }
  order.clear();
  EXPECT_TRUE(order.empty());
  for (uint32_t k = 0; k < kKeys; ++k) EXPECT_FALSE(order.contains(k));
}

TEST(ActiveSet, RemoveKeepsTheOthersListedOnce) {
  ActiveSet s(10);
  for (uint32_t k : {3u, 7u, 1u, 9u}) s.add(k);
  s.remove(7);
  s.remove(7);
  s.add(3);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_FALSE(s.contains(7));
  std::set<uint32_t> seen;
  for (size_t i = 0; i < s.size(); ++i) seen.insert(s[i]);
  EXPECT_EQ(seen, (std::set<uint32_t>{1, 3, 9}));
  s.retain([](uint32_t k) { return k != 1; });
  s.remove(9);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], 3u);
  s.add(9);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.contains(9));
}

}  // namespace
}  // namespace fastpath
