// SPDX-License-Identifier: GPL-2.0-only
// Links, segments and link emulation through the worker's real pass (Worker::pollOnce) on
// in-memory AF_XDP rings (worker_links_fixture.h): hand-off to the peer end, segment
// fan-out (unicast, broadcast, unknown MAC), emulation timing (never before the due time),
// release order across many links, and the lateness the worker reports for frames held
// back inside it. No root needed.
#include "worker_links_fixture.h"

namespace fastpath {
namespace {

using namespace links_testing;

TEST_F(WorkerLinksTest, FramesCrossALinkInOnePassAndAreCountedAtBothEnds) {
  addLink(0);
  start();
  send(std::vector<uint8_t>(40, 0));
  poll();
  const std::vector<uint32_t> out = collect();
  ASSERT_EQ(out.size(), 40u) << "a frame handed to the peer end is received in the same pass";
  for (uint32_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i) << "order kept";
  EXPECT_EQ(worker_->portCounters(linkPort(0, 0)).tx_packets.get(), 40u);
  EXPECT_EQ(worker_->portCounters(linkPort(0, 1)).rx_packets.get(), 40u);
  EXPECT_EQ(worker_->portCounters(1).tx_packets.get(), 40u);
  poll();
  expectBalanced("after the link");
  EXPECT_EQ(worker_->accounting().in_link, 0u);
}

TEST_F(WorkerLinksTest, ADownLinkAndAFullQueueAreCountedAtTheSendingEnd) {
  addLink(0, nullptr, 16);
  addLink(1);
  start();
  // 64 frames in one batch into a 16-frame queue: the peer end reads it after the batch.
  send(std::vector<uint8_t>(kBatch, 0));
  poll();
  EXPECT_EQ(collect().size(), 16u);
  EXPECT_EQ(worker_->portCounters(linkPort(0, 0)).drop[size_t(WorkerDrop::kLinkQueueFull)].get(),
            kBatch - 16);
  states_[1]->up.store(false);
  send(std::vector<uint8_t>(5, 1));
  poll();
  EXPECT_TRUE(collect().empty());
  EXPECT_EQ(worker_->portCounters(linkPort(1, 0)).drop[size_t(WorkerDrop::kLinkDown)].get(), 5u);
  poll();
  expectBalanced("after the drops");
}

// One end set down (an ns-3 interface set down at one end of its channel): the node
// forwards nothing onto it or from it, each drop counted at the end, even for a frame
// already in the link when it went down; what the node's own client writes on it passes
// (ns-3 decides for its interface); the link and the other end keep their state.
TEST_F(WorkerLinksTest, AnEndSetDownNeitherSendsNorReceivesAndTheOtherEndKeepsItsState) {
  LinkParams slow;
  slow.delay_ns = 2000000;
  addLink(0);
  addLink(1, &slow);
  start();
  auto drops = [&](PortId p) {
    return worker_->portCounters(p).drop[size_t(WorkerDrop::kLinkDown)].get();
  };
  // B's end down: A's end sends (counted), B's end drops what arrives.
  end_states_[1]->up.store(false);
  send(std::vector<uint8_t>(5, 0));
  poll();
  EXPECT_TRUE(collect().empty()) << "an end that is down received frames";
  EXPECT_EQ(worker_->portCounters(linkPort(0, 0)).tx_packets.get(), 5u);
  EXPECT_EQ(drops(linkPort(0, 0)), 0u);
  EXPECT_EQ(drops(linkPort(0, 1)), 5u);
  EXPECT_EQ(worker_->portCounters(linkPort(0, 1)).rx_packets.get(), 0u);
  // A's end down, B's up again: A's end sends nothing.
  end_states_[1]->up.store(true);
  end_states_[0]->up.store(false);
  send(std::vector<uint8_t>(3, 0));
  poll();
  EXPECT_TRUE(collect().empty());
  EXPECT_EQ(drops(linkPort(0, 0)), 3u);
  EXPECT_EQ(worker_->portCounters(linkPort(0, 0)).tx_packets.get(), 5u);
  sendRaw(linkPort(0, 0), linkMac(0, 1), 77);  // A's ns-3 writes on the end itself
  poll();
  EXPECT_EQ(collect(63), std::vector<uint32_t>{77});
  // Both up: frames pass again, the link never went down.
  end_states_[0]->up.store(true);
  send(std::vector<uint8_t>(2, 0));
  poll();
  EXPECT_EQ(collect().size(), 2u);
  EXPECT_TRUE(states_[0]->up.load());
  // Link 1 (2 ms): frames in the link when the receiving end goes down are dropped at their
  // arrival there.
  const uint64_t t_send = monotonicNs();
  send(std::vector<uint8_t>(4, 1));
  poll();
  end_states_[3]->up.store(false);
  while (monotonicNs() < t_send + 3 * slow.delay_ns) poll();
  poll();
  EXPECT_TRUE(collect().empty());
  EXPECT_EQ(worker_->portCounters(linkPort(1, 0)).tx_packets.get(), 4u);
  EXPECT_EQ(drops(linkPort(1, 1)), 4u);
  expectBalanced("after the ends' drops");
  EXPECT_EQ(worker_->accounting().in_link, 0u);
}

// A burst into a CoDel link: the frames' dequeue times spread over the burst's time on the
// wire, so CoDel's drops are decided as the burst is admitted, each one counted at the
// sending end with its own reason and by the link; the rest arrive.
TEST_F(WorkerLinksTest, AQueueDisciplinesDropsAreCountedWithTheirOwnReason) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"rate", "1mbit", "limit", "1", "aqm", "codel", "target",
                                   "10us", "interval", "1ms", "min-bytes", "0"},
                                  &p));
  addLink(0, &p);
  start();
  send(std::vector<uint8_t>(kBatch, 0));
  poll();
  const uint64_t aqm =
      worker_->portCounters(linkPort(0, 0)).drop[size_t(WorkerDrop::kLinkAqmDrop)].get();
  EXPECT_GT(aqm, 0u);
  EXPECT_LT(aqm, uint64_t(kBatch));
  EXPECT_EQ(shapers_[0]->counters.aqm_drops.load(), aqm);
  EXPECT_EQ(worker_->portCounters(linkPort(0, 0)).drop[size_t(WorkerDrop::kLinkQueueDrop)].get(),
            0u);
  size_t got = 0;
  const uint64_t until = monotonicNs() + 2000000000ull;
  while (got < kBatch - aqm && monotonicNs() < until) {
    poll();
    got += collect().size();
  }
  EXPECT_EQ(got, kBatch - aqm);
  poll();
  expectBalanced("after the queue discipline's drops");
}

// A burst into an FqCoDel link whose device queue holds one frame and whose disc holds 8
// (each frame of the fixture goes to its own host: a flow each): the discipline's drops
// over its limit, taken after admission, are counted at the sending end with the queue's
// reason and by the link; the others cross back to back, none handed on before its
// transmission could have ended; the ledger balances.
TEST_F(WorkerLinksTest, AnFqCoDelLinksLaterDropsAreCountedAndItsFramesLeaveOnTime) {
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"rate", "1mbit", "limit", "1", "aqm", "fq_codel",
                                   "aqm-limit", "8", "quantum", "100"},
                                  &p));
  addLink(0, &p);
  start();
  const uint64_t t_send = monotonicNs();
  const std::vector<uint8_t> nets(20, 0);
  send(nets);
  poll();
  const uint64_t queue =
      worker_->portCounters(linkPort(0, 0)).drop[size_t(WorkerDrop::kLinkQueueDrop)].get();
  // 20 frames: one on the wire, one in the device queue, 18 for a disc of 8.
  EXPECT_GT(queue, 0u);
  EXPECT_EQ(shapers_[0]->counters.queue_drops.load(), queue);
  EXPECT_EQ(shapers_[0]->counters.aqm_drops.load(), 0u);
  std::vector<uint32_t> out;
  const uint64_t until = t_send + 3000000000ull;
  const uint64_t tx = uint64_t(kFrameBytes) * 8 * 1000;  // ns a frame at 1 Mbit/s
  while (out.size() < nets.size() - queue && monotonicNs() < until) {
    poll();
    const uint64_t t_seen = monotonicNs();
    for (uint32_t s : collect()) {
      // The k-th frame on the wire ends (k + 1) frame times after the first was sent.
      EXPECT_GE(t_seen, t_send + (out.size() + 1) * tx) << "frame " << s;
      out.push_back(s);
    }
  }
  ASSERT_EQ(out.size(), nets.size() - queue);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 1u);
  poll();
  EXPECT_EQ(shapers_[0]->counters.fq_packets.load(), 0u);
  EXPECT_EQ(shapers_[0]->size(), 0u);
  expectBalanced("after FqCoDel's drops");
}

TEST_F(WorkerLinksTest, AnEmulatedLinkNeverReleasesBeforeTheDueTimeAndCountsLateness) {
  LinkParams p;
  p.delay_ns = 3000000;  // 3 ms
  addLink(0, &p);
  start();
  const uint64_t t_send = monotonicNs();
  send(std::vector<uint8_t>(20, 0));
  poll();
  EXPECT_TRUE(collect().empty()) << "nothing leaves before the link's delay";
  EXPECT_EQ(worker_->accounting().in_link, 20u) << "the frames are in the link";
  std::vector<uint32_t> out;
  while (out.size() < 20 && monotonicNs() < t_send + 1000000000) {
    poll();
    const uint64_t t_seen = monotonicNs();
    for (uint32_t s : collect()) {
      EXPECT_GE(t_seen, t_send + p.delay_ns) << "frame " << s << " released before its time";
      out.push_back(s);
    }
  }
  ASSERT_EQ(out.size(), 20u);
  for (uint32_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i);
  const WorkerCounters& c = worker_->counters();
  EXPECT_EQ(c.lateness.count(), 20u) << "every emulated frame's lateness is reported once";
  poll();
  expectBalanced("after the emulated link");
}

// Many links to one node, each frame on its own link: what leaves node B's port shows the
// order in which the links released them.
TEST_F(WorkerLinksTest, ReleasesAcrossManyLinksWithEqualDelaysKeepTheSendingOrder) {
  constexpr int kLinks = 16, kRounds = 6;
  LinkParams p;
  p.delay_ns = 20000000;  // far longer than sending takes, even on a busy machine
  for (int k = 0; k < kLinks; ++k) addLink(k, &p);
  start();
  // Rounds a little apart, each one frame per link in a shuffled link order; then one pass
  // once everything is due, so all releases happen in that pass.
  uint64_t t_last = 0;
  std::vector<uint32_t> out;
  for (int r = 0; r < kRounds; ++r) {
    std::vector<uint8_t> nets;
    for (int k = 0; k < kLinks; ++k) nets.push_back(uint8_t((k * 7 + r * 3) % kLinks));
    send(nets);
    poll();
    t_last = monotonicNs();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    for (uint32_t s : collect()) out.push_back(s);
  }
  EXPECT_TRUE(out.empty()) << "released before the link's delay";
  sleepUntil(t_last + p.delay_ns + 200000);
  poll();
  for (uint32_t s : collect()) out.push_back(s);
  ASSERT_EQ(out.size(), size_t(kLinks * kRounds));
  for (uint32_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], i) << "released out of due order across links";
  poll();
  expectBalanced("after the links");
}

TEST_F(WorkerLinksTest, ReleasesAcrossManyLinksWithDifferentDelaysFollowTheirDueTimes) {
  constexpr int kLinks = 16;
  // Link k delays (16 - k) x 150 us: sent in link order, due in the reverse one.
  std::vector<LinkParams> params(kLinks);
  for (int k = 0; k < kLinks; ++k) {
    params[size_t(k)].delay_ns = uint64_t(kLinks - k) * 150000;
    addLink(k, &params[size_t(k)]);
  }
  start();
  std::vector<uint8_t> nets;
  for (int round = 0; round < 3; ++round)
    for (int k = 0; k < kLinks; ++k) nets.push_back(uint8_t(k));
  send(nets);
  poll();
  const uint64_t t_admitted = monotonicNs();  // every frame was admitted before
  sleepUntil(t_admitted + kLinks * 150000 + 200000);
  poll();  // everything is due: one pass releases it all
  const std::vector<uint32_t> out = collect();
  ASSERT_EQ(out.size(), nets.size());
  // Due order: the link with the shortest delay (15) first; a link's frames in their order.
  std::vector<int> last_of_link(kLinks, -1);
  int prev_link = kLinks;
  for (uint32_t s : out) {
    const int link = int(nets[s]);
    EXPECT_GT(int(s), last_of_link[size_t(link)]) << "frames of link " << link << " reordered";
    last_of_link[size_t(link)] = int(s);
    EXPECT_LE(link, prev_link) << "frame " << s << " of link " << link
                               << " released before a frame due earlier";
    prev_link = link;
  }
  for (int k = 0; k < kLinks; ++k)
    EXPECT_EQ(shapers_[size_t(k)]->counters.lateness.count(), 3u)
        << "link " << k << ": each of its frames' lateness is reported on it once";
  poll();
  expectBalanced("after the links");
}

TEST_F(WorkerLinksTest, APassThatCannotTakeEverythingDueTakesTheEarliestAcrossLinks) {
  // More frames due at once than a pass releases (4 batches): two rounds over 200 links,
  // equal delays, so round 1 is due before round 2 on every link. Each pass must take the
  // earliest frames across links, not a link's whole backlog before the next link's.
  constexpr int kLinks = 200, kRounds = 2;
  LinkParams p;
  p.delay_ns = 20000000;
  for (int k = 0; k < kLinks; ++k) addLink(k, &p);
  start();
  std::vector<uint8_t> nets;
  for (int k = 0; k < kLinks; ++k) nets.push_back(uint8_t(k));
  uint64_t t_last = 0;
  for (int r = 0; r < kRounds; ++r) {
    send(nets);
    for (uint32_t i = 0; i < (kLinks + kBatch - 1) / kBatch; ++i) poll();
    t_last = monotonicNs();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  sleepUntil(t_last + p.delay_ns + 200000);
  std::vector<uint32_t> out;
  size_t first = 0;
  for (int pass = 0; pass < 8 && out.size() < size_t(kLinks * kRounds); ++pass) {
    poll();
    for (uint32_t seq : collect()) out.push_back(seq);
    if (pass == 0) first = out.size();
  }
  EXPECT_LT(first, size_t(kLinks * kRounds)) << "one pass released everything: nothing tested";
  ASSERT_EQ(out.size(), size_t(kLinks * kRounds));
  for (uint32_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], i) << "a pass left a frame due earlier than one it released";
  poll();
  expectBalanced("after the links");
}

// An emulated interface egress: the most frames a pass releases (4 batches) all leave in
// one pass, and each one's lateness is reported, on the worker and on the egress link;
// what is due beyond that leaves on the next pass, reported too.
TEST_F(WorkerLinksTest, AnEmulatedEgressReportsTheLatenessOfEveryFrameAPassReleases) {
  addLink(0);  // A -> B unshaped; B's port 1 is the emulated egress
  LinkParams p;
  p.delay_ns = 5000000;
  shapers_.push_back(std::make_unique<LinkShaper>(p, 7, LinkShaper::capacityFor(p)));
  LinkShaper& egress = *shapers_.back();
  table_.egress = {nullptr, &egress};
  start();
  constexpr uint32_t kMaxRelease = 4 * kBatch, kFrames = kMaxRelease + 40;
  for (uint32_t sent = 0; sent < kFrames; sent += kBatch) {
    send(std::vector<uint8_t>(std::min(kBatch, kFrames - sent), 0));
    poll();
  }
  for (int i = 0; i < 4; ++i) poll();  // what the link still holds reaches the egress
  const uint64_t t_sent = monotonicNs();
  ASSERT_TRUE(collect().empty()) << "nothing leaves before the egress delay";
  ASSERT_EQ(worker_->accounting().in_link, kFrames) << "every frame is in the emulation";
  sleepUntil(t_sent + p.delay_ns + 200000);
  poll();
  const std::vector<uint32_t> first = collect();
  ASSERT_EQ(first.size(), kMaxRelease) << "one pass releases its most, not less";
  const WorkerCounters& c = worker_->counters();
  EXPECT_EQ(c.lateness.count(), kMaxRelease) << "a released frame's lateness went unreported";
  EXPECT_EQ(egress.counters.lateness.count(), kMaxRelease);
  poll();
  const std::vector<uint32_t> rest = collect();
  ASSERT_EQ(rest.size(), kFrames - kMaxRelease);
  EXPECT_EQ(c.lateness.count(), kFrames);
  EXPECT_EQ(egress.counters.lateness.count(), kFrames);
  for (uint32_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i], i);
  for (uint32_t i = 0; i < rest.size(); ++i) EXPECT_EQ(rest[i], kMaxRelease + i);
  poll();
  expectBalanced("after the emulated egress");
}

TEST_F(WorkerLinksTest, FramesHeldBackInThePeersQueueCountAsLate) {
  LinkParams p;
  p.delay_ns = 1000000;
  addLink(0, &p);
  start(2000000);  // late: over 2 ms after the due time
  // Four batches due at once: the peer end receives a batch or two per pass, and the
  // passes are 4 ms apart, so what the first pass leaves waits in its queue after it was
  // due.
  constexpr uint32_t kFrames = 4 * kBatch;
  for (uint32_t b = 0; b < kFrames / kBatch; ++b) {
    send(std::vector<uint8_t>(kBatch, 0));
    poll();
  }
  sleepUntil(monotonicNs() + p.delay_ns + 200000);
  poll();
  const uint32_t first = uint32_t(collect().size());
  ASSERT_LT(first, kFrames) << "the peer end took everything in one pass: nothing waited";
  uint32_t out = first;
  for (int pass = 0; pass < 4 && out < kFrames; ++pass) {
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    poll();
    out += uint32_t(collect().size());
  }
  EXPECT_EQ(out, kFrames);
  const WorkerCounters& c = worker_->counters();
  EXPECT_EQ(c.lateness.count(), kFrames);
  EXPECT_GE(c.link_late_frames.get(), kFrames - first)
      << "frames the worker held back after their due time are not reported late";
  EXPECT_GE(c.lateness.max(), 4000000u);
  const LatencyHistogram& link = shapers_[0]->counters.lateness;
  EXPECT_EQ(link.count(), kFrames) << "the link's own lateness misses frames";
  EXPECT_GE(link.max(), 4000000u) << "the link's own lateness hides the frames held back";
  poll();
  expectBalanced("after the late frames");
}

// Two emulated hops: link 0 (A -> B) and the egress emulation of B's port 1, both at
// 10 Mbit/s, so that a 160-byte frame occupies each for 128 us. Frames leave hop 1 one
// serialization apart, which is exactly what hop 2 needs per frame: in the model hop 2's
// queue (limit 2) never holds a frame. kTwoHopFrames are sent at once; the worker comes
// back 8 ms later (a late wake-up), long after every frame was due at B: hop 1 hands them
// all on in one pass, 128 us apart in the model, microseconds apart in fact. Returns hop 2.
constexpr uint32_t kTwoHopFrames = 20;

class WorkerTwoHopsTest : public WorkerLinksTest {
 protected:
  LinkShaper& lateAcrossTwoHops(uint64_t hop2_delay_ns) {
    LinkParams p1, p2;
    p1.rate_bps = p2.rate_bps = 10000000;
    p1.delay_ns = 1000000;
    p2.delay_ns = hop2_delay_ns;
    p2.limit_packets = 2;
    addLink(0, &p1);
    shapers_.push_back(std::make_unique<LinkShaper>(p2, 7, LinkShaper::capacityFor(p2)));
    LinkShaper& hop2 = *shapers_.back();
    table_.egress = {nullptr, &hop2};
    start();
    t_send_ = monotonicNs();
    send(std::vector<uint8_t>(kTwoHopFrames, 0));
    poll();
    sleepUntil(t_send_ + 8000000);
    poll();
    return hop2;
  }
  uint64_t t_send_ = 0;
};

TEST_F(WorkerTwoHopsTest, AFrameEntersTheNextHopAtItsModelArrivalNotWhenTheWorkerGotToIt) {
  LinkShaper& hop2 = lateAcrossTwoHops(20000000);
  EXPECT_EQ(shapers_[0]->counters.delivered.load(), kTwoHopFrames);
  EXPECT_EQ(hop2.counters.queue_drops.load(), 0u)
      << "hop 2 admitted the frames when the worker got to them: its queue overflowed "
         "where the model's never holds a frame";
  EXPECT_EQ(hop2.counters.enqueued.load(), kTwoHopFrames);
  EXPECT_EQ(hop2.counters.sojourn.max(), 0u) << "a frame waited in hop 2's queue";
  EXPECT_TRUE(collect().empty()) << "hop 2's delay has not passed";
  std::vector<uint32_t> out;
  while (out.size() < kTwoHopFrames && monotonicNs() < t_send_ + 1000000000) {
    poll();
    for (uint32_t s : collect()) out.push_back(s);
  }
  ASSERT_EQ(out.size(), kTwoHopFrames);
  for (uint32_t i = 0; i < kTwoHopFrames; ++i) EXPECT_EQ(out[i], i);
  EXPECT_EQ(hop2.counters.lateness.count(), kTwoHopFrames);
  EXPECT_GE(shapers_[0]->counters.lateness.max(), 4000000u)
      << "hop 1's lateness is not reported";
  poll();
  expectBalanced("after two hops");
}

TEST_F(WorkerTwoHopsTest, AFrameDueAtTheNextHopAlreadyCrossesItInThePassThatReleasedIt) {
  // Hop 2 has no delay: at their model times the frames left it long ago.
  LinkShaper& hop2 = lateAcrossTwoHops(0);
  const std::vector<uint32_t> out = collect();
  ASSERT_EQ(out.size(), kTwoHopFrames) << "frames due at the next hop waited for another pass";
  for (uint32_t i = 0; i < kTwoHopFrames; ++i) EXPECT_EQ(out[i], i);
  EXPECT_EQ(hop2.counters.queue_drops.load(), 0u);
  // Honest: hop 2's lateness is against its own model arrival, a few ms ago.
  EXPECT_EQ(hop2.counters.lateness.count(), kTwoHopFrames);
  EXPECT_GE(hop2.counters.lateness.max(), 3000000u);
  poll();
  expectBalanced("after two hops in one pass");
}

TEST_F(WorkerLinksTest, ASegmentDeliversUnicastToItsMacBroadcastToAllAndCountsUnknownMacs) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  addSegment(p);
  start();
  auto rx = [&](int e) { return worker_->portCounters(p[e]).rx_packets.get(); };
  // Unicast to B's port: only B receives it, and forwards it out of port 1.
  sendRaw(p[0], linkMac(100, 1), 1);
  poll();
  EXPECT_EQ(rx(1), 1u);
  EXPECT_EQ(rx(2), 0u) << "a unicast reached a port whose MAC it is not";
  EXPECT_EQ(collect(63), std::vector<uint32_t>{1});
  EXPECT_EQ(worker_->portCounters(p[0]).tx_packets.get(), 1u);
  // Broadcast: every port but the sender, a copy for all but the last.
  sendRaw(p[0], MacAddress{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, 2);
  poll();
  EXPECT_EQ(rx(0), 0u) << "the sender heard its own broadcast";
  EXPECT_EQ(rx(1), 2u);
  EXPECT_EQ(rx(2), 1u);
  // Unicast to a MAC nobody has: counted at the sender.
  sendRaw(p[0], MacAddress{{2, 0, 0, 0, 0x77, 0x77}}, 3);
  poll();
  EXPECT_EQ(worker_->portCounters(p[0]).drop[size_t(WorkerDrop::kSegmentUnknownDst)].get(), 1u);
  EXPECT_EQ(rx(1), 2u);
  EXPECT_EQ(rx(2), 1u);
  // A port that is down receives no unicast for it (counted at it).
  const_cast<LinkState*>(table_.segments[0].members[1].port_state)->up.store(false);
  sendRaw(p[0], linkMac(100, 1), 4);
  poll();
  EXPECT_EQ(worker_->portCounters(p[1]).drop[size_t(WorkerDrop::kLinkDown)].get(), 1u);
  poll();
  expectBalanced("after the segment");
  EXPECT_EQ(worker_->accounting().in_link, 0u);
}

TEST_F(WorkerLinksTest, AnEmulatedSegmentHoldsFramesUntilTheirTimeThenFansThemOut) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  LinkParams params;
  params.delay_ns = 2000000;
  addSegment(p, &params);
  start();
  const uint64_t t_send = monotonicNs();
  sendRaw(p[0], MacAddress{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, 1);
  sendRaw(p[0], linkMac(100, 1), 2);
  poll();
  EXPECT_EQ(worker_->portCounters(p[1]).rx_packets.get(), 0u) << "nothing before the delay";
  std::vector<uint32_t> out;
  while (out.empty() && monotonicNs() < t_send + 1000000000) {
    poll();
    const uint64_t t_seen = monotonicNs();
    for (uint32_t s : collect(63)) {
      EXPECT_GE(t_seen, t_send + params.delay_ns) << "frame " << s << " released early";
      out.push_back(s);
    }
  }
  EXPECT_EQ(out, std::vector<uint32_t>{2});
  EXPECT_EQ(worker_->portCounters(p[1]).rx_packets.get(), 2u);
  EXPECT_EQ(worker_->portCounters(p[2]).rx_packets.get(), 1u);
  // Lateness once per frame handed on at each port: the broadcast's two, the unicast.
  EXPECT_EQ(worker_->counters().lateness.count(), 3u);
  poll();
  expectBalanced("after the emulated segment");
}

}  // namespace
}  // namespace fastpath
