// SPDX-License-Identifier: GPL-2.0-only
// LinkShaper against a reference model of the ns-3 channel, on a fake clock (no wall-clock
// timing anywhere): departure and arrival times for given sizes, rates and delays, the
// drop-tail limit under a burst, order under jitter, the rate over a long run, loss
// statistics and the Gilbert-Elliott state sequence for a seed.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "fastpath/link_params.h"
#include "link/link_shaper.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000, kUs = 1000;

// ns-3's point-to-point channel, written plainly: a FIFO link with a device queue of
// `limit` packets; a frame arrives txTime after its transmission starts plus the delay.
// `shared`: ns-3's CsmaChannel, busy until the frame has propagated (TRANSMITTING, then
// PROPAGATING for the delay); a CsmaNetDevice that finds it busy retries after
// Backoff::GetBackoffTime (src/csma/model/backoff.cc, CsmaNetDevice's defaults: 1 us slots,
// a uniform real in [1, 2^min(retry, 10) - 1) truncated, at most 1000) until it finds it
// idle, from when the frame reaches it or its previous transmission ends. `uniform` gives
// the draws: the shaper's backoff stream, so that the process, not the chance, is compared.
struct Reference {
  double rate_bps;
  int32_t overhead;
  uint64_t delay_ns;
  uint32_t limit;
  bool shared = false;
  std::function<double()> uniform = nullptr;
  double busy_until = 0;  // seconds, exact as a real number
  double last_tx_end = 0;
  std::vector<double> waiting_starts = {};
  // Arrival time in ns (rounded down), or -1 when dropped.
  int64_t send(double now_s, uint32_t len) {
    std::vector<double> still;
    for (double t : waiting_starts)
      if (t > now_s) still.push_back(t);
    waiting_starts = still;
    double start = std::max(now_s, busy_until);
    if (start > now_s) {
      if (waiting_starts.size() >= limit) return -1;
      if (shared && uniform) {
        // CsmaNetDevice::TransmitStart on a busy channel: back off, try again.
        start = std::max(now_s, last_tx_end);
        for (int retry = 1; start < busy_until - 1e-12; ++retry) {
          const double ceiling = std::min(retry, 10);
          const double max_slot = std::min(std::pow(2.0, ceiling) - 1.0, 1000.0);
          const uint32_t slots = uint32_t(1.0 + uniform() * (max_slot - 1.0));
          start += double(slots) * 1e-6;
        }
      }
      waiting_starts.push_back(start);
    }
    const double tx_end = start + double(int64_t(len) + overhead) * 8.0 / rate_bps;
    last_tx_end = tx_end;
    busy_until = tx_end + (shared ? double(delay_ns) * 1e-9 : 0.0);
    return int64_t(std::floor((tx_end + double(delay_ns) * 1e-9) * 1e9 + 1e-6));
  }
};

LinkParams params(uint64_t rate, uint64_t delay, uint32_t limit = 100, int32_t overhead = 0) {
  LinkParams p;
  p.rate_bps = rate;
  p.delay_ns = delay;
  p.limit_packets = limit;
  p.overhead_bytes = overhead;
  return p;
}

// Releases everything, reading the clock forward; returns arrival time per admitted frame.
std::vector<uint64_t> drainAll(LinkShaper& s, uint64_t until) {
  std::vector<uint64_t> out;
  LinkFrame f[64];
  uint64_t at[64];
  for (uint64_t now = 0; now <= until && s.size();) {
    const uint64_t next = s.nextArrival();
    now = std::max(now, next);
    uint32_t n = s.release(now, f, at, 64);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(at[i], now) << "released at its arrival time on a clock that jumps there";
      out.push_back(at[i]);
    }
  }
  return out;
}

TEST(LinkShaper, DepartureAndArrivalTimesFollowTheChannelModel) {
  for (uint64_t rate : {uint64_t(1000000), uint64_t(10000000), uint64_t(100000000), uint64_t(1000000000), uint64_t(7777777)})
    for (uint64_t delay : {uint64_t(0), 100 * kUs, 5 * kMs})
      for (int32_t overhead : {0, 2, 24, -12}) {
        LinkShaper s(params(rate, delay, 1000, overhead), 1, 4096);
        Reference ref{double(rate), overhead, delay, 1000};
        std::vector<int64_t> want;
        // Bursts and gaps: 300 frames of assorted sizes at assorted times.
        uint64_t now = 0;
        for (int i = 0; i < 300; ++i) {
          const uint32_t len = 60 + uint32_t((i * 7919) % 1440);
          if (i % 50 == 0) now += 20 * kMs;  // idle link again
          if (i % 3 == 0) now += 3 * kUs;
          ASSERT_EQ(s.admit(now, uint64_t(i) << 12, len), LinkShaper::Admit::kQueued);
          want.push_back(ref.send(double(now) * 1e-9, len));
        }
        auto got = drainAll(s, ~0ull);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(double(got[i]), double(want[i]), 1.0)
              << "frame " << i << " rate " << rate << " delay " << delay << " oh " << overhead;
      }
}

TEST(LinkShaper, APointToPointFrameTakesPppsSizeNotEthernets) {
  // fastpathd carries an Ethernet frame of N bytes (IP + 14) where ns-3's
  // PointToPointNetDevice sends IP + 2 (PPP): serialization (N - 14 + 2) * 8 / rate.
  for (uint32_t n : {54u, 100u, 514u, 1514u}) {
    LinkShaper s(params(500000, 0, 100, 2 - 14), 1, 4096);
    ASSERT_EQ(s.admit(0, 0, n), LinkShaper::Admit::kQueued);
    ASSERT_EQ(s.admit(0, 1 << 12, n), LinkShaper::Admit::kQueued);
    auto got = drainAll(s, ~0ull);
    ASSERT_EQ(got.size(), 2u);
    const uint64_t tx = uint64_t(n - 14 + 2) * 8 * 1000000000ull / 500000;
    EXPECT_EQ(got[0], tx) << n << " bytes";
    EXPECT_EQ(got[1], 2 * tx) << n << " bytes";
  }
}

TEST(LinkShaper, ACsmaFrameIsPaddedTo60BytesThenCountsItsFcs) {
  // ns-3's CsmaNetDevice pads the payload to 46 bytes and adds 14 + 4: a 42-byte ARP
  // frame takes 64 bytes of the medium, a 1514-byte one 1518.
  for (auto [n, wire] : {std::pair{42u, 64u}, std::pair{60u, 64u}, std::pair{61u, 65u},
                         std::pair{1514u, 1518u}}) {
    LinkParams p = params(10000000, 0, 100, 4);
    p.mpu_bytes = 60;
    LinkShaper s(p, 1, 4096, LinkShaper::Medium::kShared);
    ASSERT_EQ(s.admit(0, 0, n), LinkShaper::Admit::kQueued);
    auto got = drainAll(s, ~0ull);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], uint64_t(wire) * 8 * 1000000000ull / 10000000) << n << " bytes";
  }
}

TEST(LinkShaper, ASharedMediumStaysBusyForThePropagationDelayAsCsmaChannel) {
  // A burst of five 1070-byte frames on a CsmaChannel of 5 Mbit/s and 2 ms (ns-3's
  // udp-client-server example): ns-3 spaces them by transmission time + delay + the part of
  // a backoff that overshoots the channel's idle time (under the largest window, 999 us); a
  // point-to-point direction by transmission time only.
  const uint64_t tx = (1070 + 4) * 8 * 1000000000ull / 5000000;  // 1.7184 ms
  for (auto medium : {LinkShaper::Medium::kShared, LinkShaper::Medium::kPointToPoint}) {
    LinkShaper s(params(5000000, 2 * kMs, 100, 4), 1, 4096, medium);
    EXPECT_EQ(s.medium(), medium);
    for (int i = 0; i < 5; ++i)
      ASSERT_EQ(s.admit(0, uint64_t(i) << 12, 1070), LinkShaper::Admit::kQueued);
    auto got = drainAll(s, ~0ull);
    ASSERT_EQ(got.size(), 5u);
    EXPECT_EQ(got[0], tx + 2 * kMs);
    const bool shared = medium == LinkShaper::Medium::kShared;
    const uint64_t spacing = tx + (shared ? 2 * kMs : 0);
    for (uint64_t i = 1; i < 5; ++i) {
      EXPECT_GE(got[i] - got[i - 1], spacing) << "frame " << i;
      EXPECT_LT(got[i] - got[i - 1], spacing + (shared ? 999 * kUs + 1 : 1)) << "frame " << i;
    }
  }
  // Without a delay the channel is idle again when the device is: no backoff at all.
  {
    LinkShaper s(params(5000000, 0, 100, 4), 1, 4096, LinkShaper::Medium::kShared);
    for (int i = 0; i < 5; ++i)
      ASSERT_EQ(s.admit(0, uint64_t(i) << 12, 1070), LinkShaper::Admit::kQueued);
    auto got = drainAll(s, ~0ull);
    for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(got[i], (i + 1) * tx) << "frame " << i;
  }
  // And against the reference over bursts, gaps and sizes: a frame sent while the medium
  // still propagates the previous one backs off until it is idle, in the queue's limit.
  for (uint64_t rate : {uint64_t(1000000), uint64_t(100000000), uint64_t(7777777)})
    for (uint64_t delay : {uint64_t(0), 100 * kUs, 5 * kMs}) {
      LinkShaper s(params(rate, delay, 1000, 4), 1, 4096, LinkShaper::Medium::kShared);
      LinkRng draws(LinkShaper::backoffSeed(1));
      Reference ref{double(rate), 4, delay, 1000, true, [&draws] { return draws.uniform(); }};
      std::vector<int64_t> want;
      uint64_t now = 0;
      for (int i = 0; i < 300; ++i) {
        const uint32_t len = 60 + uint32_t((i * 7919) % 1440);
        if (i % 50 == 0) now += 20 * kMs;
        if (i % 3 == 0) now += 3 * kUs;
        ASSERT_EQ(s.admit(now, uint64_t(i) << 12, len), LinkShaper::Admit::kQueued);
        want.push_back(ref.send(double(now) * 1e-9, len));
      }
      auto got = drainAll(s, ~0ull);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(double(got[i]), double(want[i]), 2.0)
            << "frame " << i << " rate " << rate << " delay " << delay;
    }
}

// A shared medium's schedule follows the send stamps, not when frames were released: a
// frame released long after its arrival time leaves the medium's model state as the model
// has it, and the next sender's frame, sent after that frame's propagation ended, starts at
// its own send time (no backoff, no wait), its stamp (`due`) its model arrival.
TEST(LinkShaper, ALateReleaseDoesNotHoldTheSharedMediumForTheNextSender) {
  const uint64_t tx = (142 + 4) * 8 * 1000000000ull / 100000000;  // 11.68 us
  LinkShaper s(params(100000000, 500 * kUs, 100, 4), 1, 4096, LinkShaper::Medium::kShared);
  ASSERT_EQ(s.admit(1 * kMs, 1 << 12, 142, 0), LinkShaper::Admit::kQueued);
  LinkFrame f[4];
  uint64_t at[4];
  // Released 3 ms after its arrival (a worker that did not run).
  ASSERT_EQ(s.release(1 * kMs + tx + 500 * kUs + 3 * kMs, f, at, 4), 1u);
  EXPECT_EQ(f[0].due, 1 * kMs + tx + 500 * kUs);
  // The other sender's frame, sent 0.6 ms after the first, once the medium was idle again.
  ASSERT_EQ(s.admit(1 * kMs + 600 * kUs, 2 << 12, 142, 1), LinkShaper::Admit::kQueued);
  ASSERT_TRUE(s.peekNext(&f[1]));
  EXPECT_EQ(f[1].due, 1 * kMs + 600 * kUs + tx + 500 * kUs) << "its model arrival";
  EXPECT_EQ(s.nextArrival(), f[1].due) << "and it leaves then";
}

// A frame sent before one admitted ahead of it (another sender's frame reached the worker
// first): it takes the medium after that one, as carrier sense and backoff have it, but its
// stamp is its model arrival — sent on an idle medium, it would have had it first — so the
// wait is lateness wherever it is handed on, never a stamp that hides it. Frames in send
// order keep stamps equal to their release times.
TEST(LinkShaper, AFrameAdmittedBehindOneSentAfterItKeepsItsModelArrivalAsItsStamp) {
  const uint64_t tx = (142 + 4) * 8 * 1000000000ull / 100000000;
  for (auto medium : {LinkShaper::Medium::kShared, LinkShaper::Medium::kPointToPoint})
    for (uint64_t rate : {uint64_t(100000000), uint64_t(0)}) {
      const bool shared = medium == LinkShaper::Medium::kShared;
      const uint64_t frame_tx = rate ? tx : 0;
      LinkShaper s(params(rate, 500 * kUs, 100, 4), 1, 4096, medium);
      // B (port 1) sent at 2 ms admitted first, A (port 0) sent at 1.9 ms after it.
      ASSERT_EQ(s.admit(2 * kMs, 1 << 12, 142, 1), LinkShaper::Admit::kQueued);
      ASSERT_EQ(s.admit(1900 * kUs, 2 << 12, 142, 0), LinkShaper::Admit::kQueued);
      // C (port 1) sent at 5 ms, in send order after B: waits for nothing.
      ASSERT_EQ(s.admit(5 * kMs, 3 << 12, 142, 1), LinkShaper::Admit::kQueued);
      LinkFrame f[4];
      uint64_t at[4];
      ASSERT_EQ(s.release(~0ull, f, at, 4), 3u);
      EXPECT_EQ(f[0].addr, 1u << 12);
      EXPECT_EQ(f[0].due, 2 * kMs + frame_tx + 500 * kUs) << "B as admitted";
      EXPECT_EQ(at[0], f[0].due);
      EXPECT_EQ(f[1].addr, 2u << 12) << "A behind B (FIFO)";
      EXPECT_EQ(f[1].due, 1900 * kUs + frame_tx + 500 * kUs) << "A's stamp: its model arrival";
      EXPECT_GT(at[1], f[1].due) << "released after B: late by the wait behind it";
      if (rate && shared) {
        EXPECT_GE(at[1], 2 * kMs + frame_tx + 500 * kUs + frame_tx + 500 * kUs)
            << "carrier sense: A starts once B has propagated";
      }
      EXPECT_EQ(f[2].addr, 3u << 12);
      EXPECT_EQ(f[2].due, at[2]) << "C, in send order, as scheduled";
      EXPECT_EQ(f[2].due, 5 * kMs + frame_tx + 500 * kUs);
    }
  // The medium as the model had it before B: a frame sent while an earlier one (in send
  // order) still held it is stamped no earlier than that one's propagation end.
  LinkShaper s(params(100000000, 500 * kUs, 100, 4), 1, 4096, LinkShaper::Medium::kShared);
  ASSERT_EQ(s.admit(1 * kMs, 1 << 12, 142, 2), LinkShaper::Admit::kQueued);       // X
  ASSERT_EQ(s.admit(2 * kMs, 2 << 12, 142, 1), LinkShaper::Admit::kQueued);       // B
  ASSERT_EQ(s.admit(1 * kMs + 100 * kUs, 3 << 12, 142, 0), LinkShaper::Admit::kQueued);  // A
  LinkFrame f[4];
  uint64_t at[4];
  ASSERT_EQ(s.release(~0ull, f, at, 4), 3u);
  EXPECT_EQ(f[2].addr, 3u << 12);
  EXPECT_GE(f[2].due, 1 * kMs + tx + 500 * kUs + tx + 500 * kUs) << "A waited for X";
  EXPECT_LT(f[2].due, at[2]) << "but not for B";
}

TEST(LinkShaper, ASenderGivesAFrameUpAfterNs3sBackoffRetriesCountedApart) {
  // A medium busy for 2 s: even 1000 retries of the largest window (999 us each) end
  // within 1 s, so the device gives the frame up (CsmaNetDevice's TransmitAbort). Counted
  // as a backoff drop, not as one of the queue's; a point-to-point direction queues it.
  for (auto medium : {LinkShaper::Medium::kShared, LinkShaper::Medium::kPointToPoint}) {
    LinkShaper s(params(10000000, 2000 * kMs, 100, 4), 1, 4096, medium);
    ASSERT_EQ(s.admit(0, 0, 1000), LinkShaper::Admit::kQueued);
    const bool shared = medium == LinkShaper::Medium::kShared;
    EXPECT_EQ(s.admit(0, 1 << 12, 1000),
              shared ? LinkShaper::Admit::kBackoffDrop : LinkShaper::Admit::kQueued);
    EXPECT_EQ(s.counters.backoff_drops.load(), shared ? 1u : 0u);
    EXPECT_EQ(s.counters.queue_drops.load(), 0u);
  }
}

TEST(LinkShaper, TheQueueLimitIsHonouredExactlyUnderABurst) {
  for (uint32_t limit : {1u, 10u, 100u}) {
    LinkShaper s(params(10000000, kMs, limit), 1, 4096);
    uint32_t queued = 0, dropped = 0;
    for (int i = 0; i < 500; ++i) {
      auto a = s.admit(0, uint64_t(i) << 12, 1000);
      (a == LinkShaper::Admit::kQueued ? queued : dropped)++;
    }
    // One frame on the link, `limit` waiting for it, as ns-3's device and DropTailQueue.
    EXPECT_EQ(queued, limit + 1);
    EXPECT_EQ(dropped, 500 - limit - 1);
    EXPECT_EQ(s.counters.queue_drops.load(), dropped);
    EXPECT_EQ(s.counters.depth_packets.load(), limit);
  }
  // A byte limit too.
  LinkParams p = params(10000000, 0, 1000);
  p.limit_bytes = 3000;
  LinkShaper s(p, 1, 4096);
  uint32_t queued = 0;
  for (int i = 0; i < 10; ++i) queued += s.admit(0, uint64_t(i) << 12, 1000) == LinkShaper::Admit::kQueued;
  EXPECT_EQ(queued, 4u);  // one on the link, 3000 bytes waiting
}

TEST(LinkShaper, OrderIsKeptUnderJitterUnlessReorderingIsAsked) {
  for (bool reorder : {false, true}) {
    LinkParams p = params(0, 10 * kMs);
    p.jitter_ns = 5 * kMs;
    p.reorder = reorder;
    LinkShaper s(p, 42, 8192);
    for (int i = 0; i < 2000; ++i) s.admit(uint64_t(i) * 10 * kUs, uint64_t(i) << 12, 100);
    LinkFrame f[4096];
    uint64_t at[4096];
    uint32_t n = s.release(~0ull, f, at, 4096);
    ASSERT_EQ(n, 2000u);
    bool ordered = true;
    for (uint32_t i = 1; i < n; ++i) {
      EXPECT_GE(at[i], at[i - 1]) << "released by arrival time";
      if (f[i].addr < f[i - 1].addr) ordered = false;
    }
    EXPECT_EQ(ordered, !reorder) << (reorder ? "jitter 5 ms over 10 us gaps must reorder"
                                             : "order kept");
  }
}

TEST(LinkShaper, TheRateHoldsExactlyOverALongRun) {
  for (uint64_t rate : {uint64_t(1000000), uint64_t(10000000), uint64_t(100000000), uint64_t(1000000000)}) {
    LinkShaper s(params(rate, 0, 1000000), 1, 65536);
    LinkFrame f[64];
    uint64_t at[64];
    uint64_t last = 0, bytes = 0;
    // A saturating sender: 200,000 frames of 1,000 bytes admitted as fast as the queue
    // takes them (the clock follows the releases).
    uint64_t now = 0;
    int sent = 0;
    while (sent < 200000 || s.size()) {
      while (sent < 200000 && s.admit(now, uint64_t(sent) << 12, 1000) == LinkShaper::Admit::kQueued) {
        ++sent;
        if (s.size() > 1000) break;
      }
      now = std::max(now + 1, s.nextArrival());
      const uint32_t n = s.release(now, f, at, 64);
      for (uint32_t i = 0; i < n; ++i) last = at[i], bytes += f[i].len;
    }
    const double seconds = double(last) * 1e-9;
    EXPECT_NEAR(double(bytes) * 8 / seconds / double(rate), 1.0, 1e-6) << rate;
  }
}

TEST(LinkShaper, BernoulliLossIsInsideTheBinomialIntervalAndRepeatsForASeed) {
  for (double loss : {0.001, 0.01, 0.1}) {
    LinkParams p;
    p.loss = loss;
    auto pattern = [&](uint64_t seed) {
      LinkShaper s(p, seed, 1024);
      std::vector<bool> lost;
      for (int i = 0; i < 200000; ++i)
        lost.push_back(s.decide(100).fate == LinkShaper::Fate::kLost);
      return lost;
    };
    auto a = pattern(7), b = pattern(7), c = pattern(8);
    EXPECT_EQ(a, b) << "the same seed, the same losses";
    EXPECT_NE(a, c);
    const double n = double(a.size()), k = double(std::count(a.begin(), a.end(), true));
    const double sd = std::sqrt(n * loss * (1 - loss));
    EXPECT_NEAR(k, n * loss, 2.576 * sd + 1) << loss;  // 99 %
  }
}

TEST(LinkShaper, GilbertElliottBurstsHaveTheModelsMeanLength) {
  LinkParams p;
  p.gilbert_elliott = true;
  p.ge_p = 0.01;
  p.ge_r = 0.25;  // mean burst 4 frames
  p.ge_loss_bad = 1;
  p.ge_loss_good = 0;
  LinkShaper s(p, 99, 1024);
  uint64_t bursts = 0, lost = 0;
  bool prev = false;
  const int n = 2000000;
  for (int i = 0; i < n; ++i) {
    const bool l = s.decide(100).fate == LinkShaper::Fate::kLost;
    lost += l;
    if (l && !prev) ++bursts;
    prev = l;
  }
  const double mean_burst = double(lost) / double(bursts);
  EXPECT_NEAR(mean_burst, 1 / p.ge_r, 0.05 / p.ge_r) << "within 5 %";
  EXPECT_NEAR(double(lost) / n, p.ge_p / (p.ge_p + p.ge_r), 0.002) << "time in the bad state";
  // The state sequence is a function of the seed.
  LinkShaper s1(p, 5, 1024), s2(p, 5, 1024);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(s1.decide(1).fate, s2.decide(1).fate) << i;
}

TEST(LinkShaper, ParametersChangeWithoutLosingOrReorderingQueuedFrames) {
  LinkShaper s(params(1000000, 10 * kMs, 1000), 1, 4096);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(s.admit(0, uint64_t(i) << 12, 1000), LinkShaper::Admit::kQueued);
  const LinkParams* old = s.setParams(params(100000000, 10 * kMs, 1000));
  delete old;  // no reader in this test
  for (int i = 50; i < 100; ++i)
    ASSERT_EQ(s.admit(kMs, uint64_t(i) << 12, 1000), LinkShaper::Admit::kQueued);
  // Grown into a larger shaper: frames, times and queue move with it.
  LinkShaper big(s.params(), 1, 16384);
  big.moveFrom(s);
  EXPECT_EQ(s.size(), 0u);
  LinkFrame f[256];
  uint64_t at[256];
  uint32_t n = big.release(~0ull, f, at, 256);
  ASSERT_EQ(n, 100u);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(f[i].addr, uint64_t(i) << 12) << "order kept";
  // The first 50 keep the 1 Mbit/s times: the 50th left at 50 * 8 ms + 10 ms.
  EXPECT_EQ(at[49], 50 * 8 * kMs + 10 * kMs);
  // The next ones queue behind them at the new rate: 80 us each.
  EXPECT_EQ(at[50], 50 * 8 * kMs + 80 * kUs + 10 * kMs);
  EXPECT_EQ(at[99], 50 * 8 * kMs + 50 * 80 * kUs + 10 * kMs);
}

TEST(LinkParams, UnitsAsTcWritesThemAndClearErrors) {
  EXPECT_EQ(parseRate("10mbit").value(), 10000000u);
  EXPECT_EQ(parseRate("1gbit").value(), 1000000000u);
  EXPECT_EQ(parseRate("125kbps").value(), 1000000u);
  EXPECT_EQ(parseTime("5ms").value(), 5 * kMs);
  EXPECT_EQ(parseTime("100us").value(), 100 * kUs);
  EXPECT_EQ(parseTime("1.5s").value(), 1500 * kMs);
  EXPECT_DOUBLE_EQ(parseProbability("1%").value(), 0.01);
  EXPECT_DOUBLE_EQ(parseProbability("0.5").value(), 0.5);
  EXPECT_FALSE(parseRate("0mbit").ok());
  EXPECT_FALSE(parseRate("-5mbit").ok());
  EXPECT_FALSE(parseRate("10mbitz").ok());
  EXPECT_FALSE(parseTime("365days").ok());
  EXPECT_FALSE(parseTime("31536000s").ok()) << "a year";
  EXPECT_FALSE(parseProbability("150%").ok());
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"rate", "10mbit", "delay", "5ms", "jitter", "1ms", "loss", "1%",
                                   "limit", "100"},
                                  &p)
                  .ok());
  EXPECT_EQ(formatLinkParams(p), "rate 10mbit delay 5ms jitter 1ms limit 100 loss 1%");
  LinkParams before = p;
  auto st = applyLinkParamWords({"rate", "0", "delay", "1ms"}, &p);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("rate"), std::string::npos);
  EXPECT_TRUE(p == before) << "a refused change leaves the parameters as they were";
  EXPECT_FALSE(applyLinkParamWords({"loss", "150%"}, &p).ok());
  EXPECT_FALSE(applyLinkParamWords({"bandwidth", "1mbit"}, &p).ok());
  EXPECT_FALSE(applyLinkParamWords({"limit", "0"}, &p).ok());
}

}  // namespace
}  // namespace fastpath
