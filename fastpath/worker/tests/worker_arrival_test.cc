// SPDX-License-Identifier: GPL-2.0-only
// A frame from an interface port is emulated from the arrival stamp the XDP classifier put
// in its metadata, not from the pass that took it off the RX ring: through the worker's
// real pass (Worker::pollOnce) on in-memory AF_XDP rings (worker_links_fixture.h), the wait
// before the worker took it is inside the link's delay, what exceeds the delay is counted
// as lateness, and the wait itself in rx_wait. No root needed.
#include "worker_links_fixture.h"

namespace fastpath {
namespace {

using namespace links_testing;

class WorkerArrivalTest : public WorkerLinksTest {
 protected:
  // Kernel: `n` frames to 198.19.0.x onto port 0's RX, stamped `rx_ns` by the classifier.
  void sendStamped(uint32_t n, uint64_t rx_ns) {
    const uint32_t got = kernelReceive(*in_, n, kHeadroom, [&](uint64_t a) {
      uint8_t* f = umem_->data(a);
      const uint32_t len = writeFrame(f, 0, next_seq_++);
      fp_xdp_meta meta;
      std::memcpy(&meta, f - sizeof(meta), sizeof(meta));
      meta.rx_ns = rx_ns;
      std::memcpy(f - sizeof(meta), &meta, sizeof(meta));
      return len;
    });
    ASSERT_EQ(got, n);
  }
};

// Stamped 1.5 ms before the worker takes it, over a 2 ms link: the frame leaves 2 ms after
// its stamp — 0.5 ms after it was taken, not 2 ms — and is not late.
TEST_F(WorkerArrivalTest, AFrameIsEmulatedFromItsArrivalStampNotFromWhenTheWorkerTookIt) {
  LinkParams p;
  p.delay_ns = 2000000;
  addLink(0, &p);
  start();
  const uint64_t stamp = monotonicNs() - 1500000;
  sendStamped(5, stamp);
  poll();
  const uint64_t taken = monotonicNs();
  const uint64_t due = stamp + p.delay_ns;
  std::vector<uint32_t> out;
  uint64_t t_before = 0, t_after = 0;
  while (out.size() < 5 && monotonicNs() < taken + 1000000000) {
    t_before = monotonicNs();
    poll();
    t_after = monotonicNs();
    for (uint32_t s : collect()) {
      EXPECT_GE(t_after, due) << "frame " << s << " released before its stamp plus the delay";
      out.push_back(s);
    }
  }
  ASSERT_EQ(out.size(), 5u);
  EXPECT_LT(t_before, taken + p.delay_ns)
      << "released by the time the worker took it plus the delay: the stamp was not used";
  for (uint32_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i);
  // Lateness against the stamp's due time: at most what the releasing pass took past it.
  const LatencyHistogram& link = shapers_[0]->counters.lateness;
  EXPECT_EQ(link.count(), 5u);
  EXPECT_LE(link.max(), t_after - due);
  // The wait from the stamp to the pass that took them, once for the batch.
  const WorkerCounters& c = worker_->counters();
  EXPECT_EQ(c.rx_wait.count(), 1u);
  EXPECT_GE(c.rx_wait.max(), 1500000u);
  EXPECT_LE(c.rx_wait.max(), taken - stamp);
  poll();
  expectBalanced("after the stamped frames");
}

// Stamped 3 ms before the worker takes it, over a 1 ms link: due before it was taken, it
// crosses in that pass, and the 2 ms it waited past its due time are its lateness (on the
// link and the worker, over lateness_warn_ns). A frame without a stamp is sent when taken.
TEST_F(WorkerArrivalTest, AWaitLongerThanTheLinksDelayIsCountedAsLateness) {
  LinkParams p;
  p.delay_ns = 1000000;
  addLink(0, &p);
  start();
  const uint64_t stamp = monotonicNs() - 3000000;
  sendStamped(1, stamp);
  const uint64_t t_before = monotonicNs();
  poll();
  const uint64_t t_after = monotonicNs();
  const uint64_t due = stamp + p.delay_ns;
  ASSERT_EQ(collect(), std::vector<uint32_t>{0}) << "due already: it crosses in the same pass";
  const LatencyHistogram& link = shapers_[0]->counters.lateness;
  ASSERT_EQ(link.count(), 1u);
  EXPECT_GE(link.max(), t_before - due) << "the wait past the due time is lateness";
  EXPECT_LE(link.max(), t_after - due);
  const WorkerCounters& c = worker_->counters();
  EXPECT_EQ(c.lateness.count(), 1u);
  EXPECT_EQ(c.link_late_frames.get(), 1u) << "over lateness_warn_ns (1 ms) late";
  EXPECT_EQ(c.rx_wait.count(), 1u);
  EXPECT_GE(c.rx_wait.max(), 3000000u);

  // Unstamped (no metadata stamp): its link times start when the worker took it.
  send({0});
  const uint64_t taken = monotonicNs();
  poll();
  EXPECT_TRUE(collect().empty()) << "an unstamped frame starts its delay when taken";
  EXPECT_EQ(c.rx_wait.count(), 1u) << "no stamp, no wait counted";
  sleepUntil(taken + p.delay_ns + 100000);
  poll();
  EXPECT_EQ(collect(), std::vector<uint32_t>{1});
  EXPECT_EQ(c.link_late_frames.get(), 1u);
  poll();
  expectBalanced("after the late frame");
}

}  // namespace
}  // namespace fastpath
