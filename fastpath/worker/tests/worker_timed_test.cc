// SPDX-License-Identifier: GPL-2.0-only
// Timed control clients through the worker's real pass on in-memory rings
// (worker_links_fixture.h): a frame that only a timed client takes — at a link's peer end
// or at a segment member — comes up to the client's lead before its arrival time, stamped
// with it; every other receiver (a node that forwards, an untimed client, a member without
// a client) gets it at its arrival time; each member's frames keep their order; a head
// frame is classified once however many passes wait for it, and the receiving end uses
// that verdict. No root needed.
#include "worker/lateness_warning.h"
#include "worker_links_fixture.h"

namespace fastpath {
namespace {

using namespace links_testing;

class WorkerTimedTest : public WorkerLinksTest {
 protected:
  // A timed (lead > 0) or untimed client on link port `port` (slot `slot` of the table).
  int openClient(size_t slot, PortId port, uint64_t lead) {
    auto ch = ControlChannel::create(port, "client");
    EXPECT_TRUE(ch.ok());
    table_.slots[slot].channel = ch->get();
    auto fd = lead ? (*ch)->clientFd(ControlChannelTiming{true, lead}) : (*ch)->clientFd();
    EXPECT_TRUE(fd.ok());
    channels_.push_back(std::move(*ch));
    fds_.push_back(*fd);
    return *fd;
  }
  void TearDown() override {
    for (int fd : fds_) ::close(fd);
    if (worker_) poll();
  }
  // One worker pass (this thread is the worker), when it began and ended kept: a loaded
  // machine may keep this thread off the CPU through a whole lead, and then no pass could
  // hand a frame over ahead. Whether one ran inside a window decides what the worker owed.
  void poll() {
    const uint64_t began = monotonicNs();
    WorkerLinksTest::poll();
    passes_.push_back(Pass{began, monotonicNs()});
  }
  // Whether a whole pass ran inside [from, to): its clock reads were all in it.
  bool passWithin(uint64_t from, uint64_t to) const {
    for (const Pass& p : passes_)
      if (p.began >= from && p.ended < to) return true;
    return false;
  }
  // A frame due at `stamp` that a timed client got at `at` (the worker's clock): ahead of
  // its stamp when a pass ran inside its lead; otherwise (no pass in time) at or after it,
  // which the worker counts as not early. Returns whether it came ahead.
  bool expectAheadIfAPassRanInItsLead(uint64_t at, uint64_t stamp, uint64_t lead,
                                      uint64_t from = 0) {
    if (passWithin(std::max(from, stamp - lead), stamp)) {
      EXPECT_LT(at, stamp) << "a pass ran inside its lead: handed over ahead of its arrival";
    }
    EXPECT_GE(at, stamp - lead) << "never more than the lead ahead";
    return at < stamp;
  }
  // A frame written by the client of `port`: `bytes` (its destination MAC first), sent at
  // `sent` (0: now).
  void write(PortId port, const testing::Bytes& bytes, uint64_t sent = 0) {
    ControlTxFrame f;
    f.port = port;
    f.len = uint32_t(bytes.size());
    std::memcpy(f.data, bytes.data(), bytes.size());
    f.sent = sent;
    ASSERT_TRUE(worker_->controlTxQueue().push(f));
  }
  // What a timed client reads: each message's stamp, its frame, and when the worker wrote
  // it (by the worker's own clock: this thread may read it much later on a loaded machine).
  struct Got {
    uint64_t stamp;
    testing::Bytes frame;
    uint64_t at;
  };
  // Polls until `want` messages came on `fd` (or 1 s), reading after every pass: what a
  // pass wrote is read before the next pass, so each message's `at` is its own pass's
  // (the channel's to_client_ns; a message written before this call is read at the first
  // pass, and has its time as long as no other message was written to the client since).
  std::vector<Got> readTimed(int fd, size_t want, uint64_t* t_after = nullptr) {
    const ControlChannel* ch = channelOf(fd);
    std::vector<Got> got;
    if (!ch) {
      ADD_FAILURE() << "fd " << fd << " is not a client openClient() opened";
      return got;
    }
    const uint64_t until = monotonicNs() + 1000000000;
    while (got.size() < want && monotonicNs() < until) {
      poll();
      uint8_t buf[kControlFrameMax + kControlStampBytes];
      ssize_t n;
      while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= ssize_t(kControlStampBytes)) {
        Got g;
        std::memcpy(&g.stamp, buf, sizeof(g.stamp));
        g.frame.assign(buf + kControlStampBytes, buf + n);
        g.at = ch->to_client_ns.load();
        got.push_back(g);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (t_after) *t_after = monotonicNs();
    return got;
  }
  // The channel of a client openClient() opened (nullptr: none).
  const ControlChannel* channelOf(int fd) const {
    for (size_t i = 0; i < fds_.size(); ++i)
      if (fds_[i] == fd) return channels_[i].get();
    return nullptr;
  }
  // Polls until `done()` holds after a pass that began at or after `t` (every frame due by
  // then handed on); false if that has not happened 1 s after `t`. A wait on the clock alone
  // ends without such a pass when this thread is preempted across `t` inside its last poll().
  template <typename Done>
  bool pollPast(uint64_t t, Done done) {
    const uint64_t give_up = t + 1000000000;
    for (;;) {
      const uint64_t began = monotonicNs();
      poll();
      if (began >= t && done()) return true;
      if (began >= give_up) return false;
    }
  }
  static testing::Bytes to(testing::Bytes frame, const MacAddress& dst) {
    std::memcpy(frame.data(), dst.bytes.data(), 6);
    return frame;
  }
  uint64_t toControl(PortId p) { return worker_->portCounters(p).to_control.get(); }

  struct Pass {
    uint64_t began, ended;
  };
  std::vector<std::unique_ptr<ControlChannel>> channels_;
  std::vector<int> fds_;
  std::vector<Pass> passes_;
};

// A timed client on the link's peer end (an ns-3 device on a timed channel): a frame only
// that client receives (ARP: CONTROL at the peer) comes up to the client's lead before its
// arrival time, stamped with it, and its arrival follows the send stamp the sender's client
// gave, not when the worker took the frame; a frame the peer node forwards on still leaves
// at its arrival time.
TEST_F(WorkerTimedTest, ATimedClientGetsItsOwnFramesAheadStampedAndForwardedOnesWait) {
  LinkParams p;
  p.delay_ns = 20000000;  // 20 ms
  constexpr uint64_t kLead = 15000000;
  addLink(0, &p);
  auto ch = ControlChannel::create(linkPort(0, 1), "b/link0");
  ASSERT_TRUE(ch.ok());
  table_.slots[1].channel = ch->get();  // end 1: node B's
  auto fd = (*ch)->clientFd(ControlChannelTiming{true, kLead});
  ASSERT_TRUE(fd.ok());
  start();

  // Node A's client writes an ARP request, stamped 1 ms ago; then a data frame from the
  // interface port crosses the link and node B forwards it.
  const uint64_t sent = monotonicNs() - 1000000;
  ControlTxFrame f;
  f.port = linkPort(0, 0);
  const testing::Bytes arp = arpFrom(linkMac(0, 0));
  f.len = uint32_t(arp.size());
  std::memcpy(f.data, arp.data(), arp.size());
  f.sent = sent;
  ASSERT_TRUE(worker_->controlTxQueue().push(f));
  poll();  // alone: the link is FIFO, a frame admitted before it would hold it back
  const uint64_t t_data = monotonicNs();
  send({0});
  poll();

  const uint64_t arrival = sent + p.delay_ns;
  uint8_t buf[kControlFrameMax + kControlStampBytes];
  ssize_t got = -1;
  uint64_t t_got = 0;
  std::vector<uint32_t> out;
  uint64_t t_out = 0;
  while ((got < 0 || out.empty()) && monotonicNs() < t_data + 1000000000) {
    poll();
    const uint64_t t = monotonicNs();
    // When the worker wrote it, by its own clock (the client is its only frame).
    if (got < 0 && (got = recv(*fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
      t_got = (*ch)->to_client_ns.load();
    for (uint32_t s : collect()) {
      out.push_back(s);
      t_out = monotonicNs();
      EXPECT_GE(t, t_data + p.delay_ns) << "a forwarded frame never leaves before its time";
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ASSERT_EQ(size_t(got), kControlStampBytes + arp.size()) << "stamp + the frame, once";
  ControlStamp stamp;
  std::memcpy(&stamp, buf, sizeof(stamp));
  EXPECT_EQ(stamp.time_ns, arrival) << "its model arrival: the send stamp plus the delay";
  EXPECT_EQ(std::memcmp(buf + kControlStampBytes, arp.data(), arp.size()), 0);
  const bool ahead = expectAheadIfAPassRanInItsLead(t_got, arrival, kLead);
  EXPECT_EQ((*ch)->to_client_early.load(), ahead ? 1u : 0u) << "the worker counts it as it was";
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(t_out, t_data + p.delay_ns);
  ::close(*fd);
  poll();
  expectBalanced("after the timed client");
}

// A timed client's frame whose send stamp plus the link's delay is already more than the
// warning's bound past when the worker takes it is late on arrival: its sender (an ns-3
// process behind real time) made it late, and it also counts among the late frames; a
// frame stamped now is not.
TEST_F(WorkerTimedTest, AFrameStampedTooLongAgoIsCountedLateOnArrival) {
  LinkParams p;
  p.delay_ns = 1000000;  // 1 ms
  addLink(0, &p);
  const int fd = openClient(1, linkPort(0, 1), 15000000);
  start();
  const auto& c = worker_->counters();
  write(linkPort(0, 0), arpFrom(linkMac(0, 0)), monotonicNs() - 50000000);  // 50 ms ago
  ASSERT_EQ(readTimed(fd, 1).size(), 1u);
  EXPECT_EQ(c.link_late_on_arrival.get(), 1u);
  EXPECT_EQ(c.link_late_frames.get(), 1u) << "it left late too";
  write(linkPort(0, 0), arpFrom(linkMac(0, 0)), monotonicNs());
  ASSERT_EQ(readTimed(fd, 1).size(), 1u);
  EXPECT_EQ(c.link_late_on_arrival.get(), 1u) << "a frame stamped now is not late on arrival";
  expectBalanced("after the late frames");
}

TEST(LatenessWarning, ItNamesTheWorkerTheSendersOrBoth) {
  LatenessReport r{2, 5, 0, 1000000, 1500000, 4000000, "+3 us"};
  const std::string worker = latenessWarning(r);
  EXPECT_EQ(worker.rfind("worker 2 fell behind real time: 5 emulated frame(s) it took in time "
                         "left more than 1000 us after their arrival time in the last second "
                         "(lateness p99 1500 us, max 4000 us; this host's clock offset: +3 us)",
                         0),
            0u)
      << worker;
  EXPECT_EQ(worker.find("ns-3 process"), std::string::npos) << worker;
  r.on_arrival = 5;
  const std::string senders = latenessWarning(r);
  EXPECT_EQ(senders.rfind("5 frame(s) from timed ns-3 clients were already more than 1000 us "
                          "past their arrival time when worker 2 took them: the ns-3 process "
                          "that sent them runs behind real time",
                          0),
            0u)
      << senders;
  EXPECT_EQ(senders.find("fell behind"), std::string::npos) << senders;
  EXPECT_EQ(senders.find("--cores"), std::string::npos) << senders;
  r.on_arrival = 2;
  const std::string both = latenessWarning(r);
  EXPECT_NE(both.find("worker 2 fell behind real time: 3 emulated frame(s)"), std::string::npos)
      << both;
  EXPECT_NE(both.find("; besides, 2 frame(s) from timed ns-3 clients"), std::string::npos)
      << both;
}

// The same link with an untimed client (fpctl, raw tests): bare frames, at their arrival.
TEST_F(WorkerTimedTest, AnUntimedClientGetsBareFramesAtTheirArrival) {
  LinkParams p;
  p.delay_ns = 5000000;
  addLink(0, &p);
  auto ch = ControlChannel::create(linkPort(0, 1), "b/link0");
  ASSERT_TRUE(ch.ok());
  table_.slots[1].channel = ch->get();
  auto fd = (*ch)->clientFd();
  ASSERT_TRUE(fd.ok());
  start();
  ControlTxFrame f;
  f.port = linkPort(0, 0);
  const testing::Bytes arp = arpFrom(linkMac(0, 0));
  f.len = uint32_t(arp.size());
  std::memcpy(f.data, arp.data(), arp.size());
  const uint64_t t_send = monotonicNs();
  ASSERT_TRUE(worker_->controlTxQueue().push(f));
  uint8_t buf[kControlFrameMax];
  ssize_t got = -1;
  while (got < 0 && monotonicNs() < t_send + 1000000000) {
    poll();
    got = recv(*fd, buf, sizeof(buf), MSG_DONTWAIT);
  }
  const uint64_t t_got = monotonicNs();
  ASSERT_EQ(size_t(got), arp.size());
  EXPECT_EQ(std::memcmp(buf, arp.data(), arp.size()), 0);
  EXPECT_GE(t_got, t_send + p.delay_ns);
  EXPECT_EQ((*ch)->to_client_early.load(), 0u);
  EXPECT_EQ(worker_->timedRelease().watched(), 0u) << "no timed receiver: nothing watched";
  ::close(*fd);
  poll();
  expectBalanced("after the untimed client");
}

// A frame waiting for its early time is classified once, however many passes look at it;
// the peer end takes the verdict it carries (its counters say CONTROL, reason ARP), and a
// link without frames is no longer looked at.
TEST_F(WorkerTimedTest, AWaitingHeadFrameIsClassifiedOnceAndItsVerdictCarried) {
  LinkParams p;
  p.delay_ns = 30000000;  // 30 ms
  constexpr uint64_t kLead = 5000000;
  addLink(0, &p);
  const int fd = openClient(1, linkPort(0, 1), kLead);
  start();
  const uint64_t sent = monotonicNs();
  write(linkPort(0, 0), arpFrom(linkMac(0, 0)), sent);
  // Passes until 10 ms before its early time: it waits, classified once.
  int passes = 0;
  while (monotonicNs() < sent + p.delay_ns - kLead - 10000000) {
    poll();
    ++passes;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_GT(passes, 10);
  EXPECT_EQ(worker_->timedRelease().watched(), 1u);
  EXPECT_EQ(worker_->timedRelease().classified(), 1u) << "once, not once per pass";
  if (toControl(linkPort(0, 1))) {  // a pass that ran on into the lead may have handed it
    EXPECT_GE(channels_[0]->to_client_ns.load(), sent + p.delay_ns - kLead)
        << "not before the lead";
  }
  const std::vector<Got> got = readTimed(fd, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].stamp, sent + p.delay_ns);
  expectAheadIfAPassRanInItsLead(got[0].at, got[0].stamp, kLead);
  EXPECT_EQ(worker_->timedRelease().classified(), 1u);
  const WorkerPortCounters& pc = worker_->portCounters(linkPort(0, 1));
  EXPECT_EQ(pc.verdict[FP_VERDICT_CONTROL].get(), 1u) << "the carried verdict, counted";
  EXPECT_EQ(pc.reason[FP_REASON_CTRL_ARP].get(), 1u);
  poll();
  EXPECT_EQ(worker_->timedRelease().watched(), 0u) << "an empty link is not looked at";
  expectBalanced("after the carried verdict");
}

TEST(TimedReleaseVerdict, APackedVerdictComesBackAsItWasTaken) {
  fp_xdp_meta m{};
  m.magic = FP_META_MAGIC;
  m.verdict = FP_VERDICT_CONTROL;
  m.reason = FP_REASON_CTRL_L4_PORT;
  m.l3_proto = FP_L3_IPV6;
  m.l4_proto = 17;
  LinkFrame f{0, 60, 0, 1, TimedRelease::pack(m)};
  ASSERT_TRUE(TimedRelease::cached(f));
  const fp_xdp_meta back = TimedRelease::cachedMeta(f);
  EXPECT_EQ(back.magic, FP_META_MAGIC);
  EXPECT_EQ(back.verdict, FP_VERDICT_CONTROL);
  EXPECT_EQ(back.reason, FP_REASON_CTRL_L4_PORT);
  EXPECT_EQ(back.l3_proto, FP_L3_IPV6);
  EXPECT_EQ(back.l4_proto, 17);
  // A segment frame's sender (a port id) is never taken for a carried verdict.
  EXPECT_FALSE(TimedRelease::cached(LinkFrame{0, 60, uint32_t(kMaxPorts - 1), 1, {}}));
}

// A segment of three (p0 sends; p1 on node B without a client; p2 with a timed client):
// a broadcast ARP goes to p2 early (a copy) and to p1 at its arrival time, once each; a
// unicast ARP only p2 takes leaves the medium early; an ARP for p2 behind a frame p2 takes
// at its arrival time (a data frame its node has no route for, punted) never overtakes it.
TEST_F(WorkerTimedTest, ASegmentMemberWithATimedClientTakesItsControlFramesAheadInOrder) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  LinkParams params;
  params.delay_ns = 20000000;  // 20 ms
  constexpr uint64_t kLead = 15000000;
  addSegment(p, &params);
  const int fd = openClient(2, p[2], kLead);
  start();
  const MacAddress bcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
  const testing::Bytes arp = arpFrom(linkMac(100, 0));

  // 1. The broadcast: p2 early, p1 at its arrival.
  const uint64_t t1 = monotonicNs();
  write(p[0], to(arp, bcast), t1);
  poll();
  std::vector<Got> got = readTimed(fd, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].stamp, t1 + params.delay_ns);
  const bool first_ahead = expectAheadIfAPassRanInItsLead(got[0].at, got[0].stamp, kLead);
  {
    const uint64_t p1_rx = worker_->portCounters(p[1]).rx_packets.get();
    if (monotonicNs() < t1 + params.delay_ns) {  // read before the arrival
      EXPECT_EQ(p1_rx, 0u) << "p1 waits for the arrival";
    }
  }
  EXPECT_TRUE(pollPast(t1 + params.delay_ns + 2000000,
                       [&] { return worker_->portCounters(p[1]).rx_packets.get() > 0; }))
      << "p1 never got the broadcast";
  EXPECT_EQ(worker_->portCounters(p[1]).rx_packets.get(), 1u) << "p1 at its arrival";
  EXPECT_EQ(worker_->portCounters(p[1]).drop[size_t(WorkerDrop::kNoControlClient)].get(), 1u);
  EXPECT_EQ(toControl(p[2]), 1u) << "p2 got it once, not again at the arrival time";
  EXPECT_EQ(worker_->portCounters(p[2]).rx_packets.get(), 1u);
  EXPECT_EQ(worker_->portCounters(p[0]).rx_packets.get(), 0u) << "not the sender";

  // 2. A data frame to p2 (its node has no route: punted at its arrival), then 3 ms later
  // a unicast ARP to p2: within its lead as soon as the data frame arrives, the ARP goes
  // early then, but not before the data frame.
  const uint64_t t2 = monotonicNs();
  testing::Bytes data(kHeadroom + kFrameBytes);
  writeFrame(data.data() + kHeadroom, 0, 7);
  data.erase(data.begin(), data.begin() + kHeadroom);
  write(p[0], to(data, linkMac(100, 2)), t2);
  poll();
  sleepUntil(t2 + 3000000);
  const uint64_t t2b = t2 + 3000000;
  write(p[0], to(arp, linkMac(100, 2)), t2b);
  poll();
  got = readTimed(fd, 2);
  ASSERT_EQ(got.size(), 2u);
  // (Handed to the port in one batch, the channel carries CONTROL frames before punts; the
  // timed device delivers each at its stamp.)
  const bool arp_first = got[0].frame.size() != kFrameBytes;
  const Got& d = got[arp_first ? 1 : 0];
  const Got& a = got[arp_first ? 0 : 1];
  EXPECT_EQ(d.frame.size(), kFrameBytes);
  EXPECT_EQ(d.stamp, t2 + params.delay_ns);
  EXPECT_GE(d.at, t2 + params.delay_ns) << "the punted frame at its arrival time";
  EXPECT_EQ(a.frame, to(arp, linkMac(100, 2)));
  EXPECT_EQ(a.stamp, t2b + params.delay_ns);
  EXPECT_GE(a.at, t2 + params.delay_ns) << "the ARP never overtakes the frame ahead of it";
  // ... but comes ahead of its own arrival once the data frame has left.
  const bool arp_ahead =
      expectAheadIfAPassRanInItsLead(a.at, a.stamp, kLead, t2 + params.delay_ns);
  EXPECT_EQ(channels_[0]->to_client_early.load(), uint64_t(first_ahead) + arp_ahead)
      << "the broadcast and the unicast ARP early (when a pass came in time); the data frame "
         "not";

  // 3. A unicast ARP only p2 takes leaves the medium at once: nothing is left for later.
  const uint64_t t3 = monotonicNs();
  write(p[0], to(arp, linkMac(100, 2)), t3);
  poll();
  got = readTimed(fd, 1);
  ASSERT_EQ(got.size(), 1u);
  expectAheadIfAPassRanInItsLead(got[0].at, t3 + params.delay_ns, kLead);
  EXPECT_EQ(worker_->accounting().in_link, 0u) << "the medium holds nothing";
  poll();
  expectBalanced("after the timed segment");
}

// Two members' clients send on one segment and the worker takes their frames in one pass,
// queued channel after channel as the relay queues them (p0's two, then p1's, sent between
// them): the medium takes them in send order, so p2's timed client gets p1's frame between
// p0's two, each at its own arrival time (its stamp plus the delay), not p1's behind p0's.
TEST_F(WorkerTimedTest, TwoMembersFramesTakenInOnePassEnterTheMediumInSendOrder) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  LinkParams params;
  params.delay_ns = 20000000;  // 20 ms
  addSegment(p, &params);
  const int fd = openClient(2, p[2], 15000000);
  start();
  const testing::Bytes a = to(arpFrom(linkMac(100, 0)), linkMac(100, 2));
  const testing::Bytes b = to(arpFrom(linkMac(100, 1)), linkMac(100, 2));
  // Stamps in the past (a stamp ahead of the clock would be taken as now).
  const uint64_t t = monotonicNs() - 1000000;
  write(p[0], a, t);
  write(p[0], a, t + 200000);
  write(p[1], b, t + 100000);
  poll();
  EXPECT_EQ(worker_->counters().ctrl_tx_reordered.get(), 1u);
  const std::vector<Got> got = readTimed(fd, 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].frame, a);
  EXPECT_EQ(got[0].stamp, t + params.delay_ns);
  EXPECT_EQ(got[1].frame, b) << "p1's frame, sent second, arrives second";
  EXPECT_EQ(got[1].stamp, t + 100000 + params.delay_ns);
  EXPECT_EQ(got[2].frame, a);
  EXPECT_EQ(got[2].stamp, t + 200000 + params.delay_ns);
  // One channel's frames are in order already: nothing is reordered.
  const uint64_t u = monotonicNs() - 1000000;
  write(p[0], a, u);
  write(p[0], a, u + 100000);
  poll();
  EXPECT_EQ(readTimed(fd, 2).size(), 2u);
  EXPECT_EQ(worker_->counters().ctrl_tx_reordered.get(), 1u);
  poll();
  expectBalanced("after two members' frames");
}

// A member's frame the worker takes only after another member's frame sent after it (its
// sender's way to the worker took longer: a later pass, not the same batch) waits on the
// medium behind that one, but its stamp is its model arrival, not one that hides the wait:
// the timed client gets it with the time the model gives it (a device counts it late if it
// comes after that), and the frame admitted after it in send order is stamped as scheduled.
TEST_F(WorkerTimedTest, AFrameTakenAfterOneSentLaterIsStampedWithItsModelArrival) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  LinkParams params;
  params.rate_bps = 100000000;
  params.delay_ns = 20000000;  // 20 ms
  addSegment(p, &params);
  const int fd = openClient(2, p[2], 15000000);
  start();
  const testing::Bytes a = to(arpFrom(linkMac(100, 0)), linkMac(100, 2));
  const testing::Bytes b = to(arpFrom(linkMac(100, 1)), linkMac(100, 2));
  const uint64_t tx = linkFrameBytes(uint32_t(a.size()), params) * 8 * 1000000000 /
                      params.rate_bps;
  const uint64_t t = monotonicNs() - 1000000;
  write(p[1], b, t + 200000);
  poll();  // b enters the medium alone
  write(p[0], a, t + 100000);
  poll();
  const std::vector<Got> got = readTimed(fd, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].frame, b);
  EXPECT_EQ(got[0].stamp, t + 200000 + tx + params.delay_ns);
  EXPECT_EQ(got[1].frame, a) << "a waited behind b";
  EXPECT_EQ(got[1].stamp, t + 100000 + tx + params.delay_ns)
      << "a's stamp: its model arrival, not after b's";
  EXPECT_EQ(worker_->counters().ctrl_tx_reordered.get(), 0u) << "two passes: nothing to sort";
  poll();
  expectBalanced("after a frame taken behind a later one");
}

// Every member that takes a broadcast is a timed client that classifies it CONTROL: the
// frame leaves the medium early (the last member takes it, the others a copy), and
// nothing is handed on again at its arrival time.
TEST_F(WorkerTimedTest, ABroadcastEveryTakerTakesEarlyLeavesTheMediumEarly) {
  const PortId p[3] = {linkPort(0, 0), linkPort(0, 1), linkPort(1, 0)};
  LinkParams params;
  params.delay_ns = 20000000;
  constexpr uint64_t kLead = 15000000;
  addSegment(p, &params);
  const int fd1 = openClient(1, p[1], kLead);
  const int fd2 = openClient(2, p[2], kLead);
  start();
  const uint64_t t = monotonicNs();
  write(p[0], arpFrom(linkMac(100, 0)), t);
  poll();
  const std::vector<Got> g1 = readTimed(fd1, 1), g2 = readTimed(fd2, 1);
  ASSERT_EQ(g1.size(), 1u);
  ASSERT_EQ(g2.size(), 1u);
  expectAheadIfAPassRanInItsLead(g1[0].at, t + params.delay_ns, kLead);
  expectAheadIfAPassRanInItsLead(g2[0].at, t + params.delay_ns, kLead);
  EXPECT_EQ(g1[0].frame, g2[0].frame);
  EXPECT_EQ(worker_->accounting().in_link, 0u) << "left the medium early";
  // Past the arrival time: nothing is handed on again then.
  EXPECT_TRUE(pollPast(t + params.delay_ns + 2000000, [] { return true; }));
  EXPECT_EQ(toControl(p[1]), 1u);
  EXPECT_EQ(toControl(p[2]), 1u);
  EXPECT_EQ(worker_->portCounters(p[0]).drop[size_t(WorkerDrop::kSegmentUnknownDst)].get(), 0u);
  expectBalanced("after the early broadcast");
}

}  // namespace
}  // namespace fastpath
