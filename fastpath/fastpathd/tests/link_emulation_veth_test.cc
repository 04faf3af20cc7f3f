// SPDX-License-Identifier: GPL-2.0-only
// Link emulation through a real fastpathd: S -- [n1 =l1= n2] -- D, the two nodes in one
// daemon inside R, the link l1 emulated (rate, delay, loss, queue). Deterministic checks
// only: which frames arrive, in which order, and what the counters and the frame ledger
// say — never how long anything took. Every traffic loop is bounded in count and time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"
#include "two_node_link.h"

namespace fastpath {
namespace {

using namespace vethtest;

class LinkEmulationVeth : public SrdFixture {
 protected:
  void SetUp() override {
    makeTopology("emu");
    if (IsSkipped()) return;
    start();
  }
  void start() {
    testing::TwoNodeLink t;
    t.a_mac = mac("02:00:00:00:01:01");
    t.b_mac = mac("02:00:00:00:01:02");
    t.via = IpAddress::parse("198.18.100.2").value();
    t.dst = IpPrefix::parse("198.18.9.0/24").value();
    t.d_ip = IpAddress::parse("198.18.9.2").value();
    t.d_mac = d_mac_;
    t.control_socket = "/tmp/fp-emu-" + std::to_string(getpid()) + ".sock";
    Config c = testing::twoNodeLinkConfig(t);
    c.ring_size = 2048;
    c.cores = {1};
    // The ports' NAPI stays unthreaded: with a threaded NAPI thread on its CPU, --rt-priority
    // auto would make the worker real-time for that alone, and the tests here check what
    // emulation alone decides.
    c.tune_ports = false;
    startDaemon(std::move(c));
  }
  void restart() {
    daemon_.reset();
    guard_.reset();
    start();
  }
  Status setParams(const std::vector<std::string>& words) {
    LinkParams p;
    for (const auto& l : daemon_->links())
      if (l.name == "l1") p = l.a_to_b;
    if (auto st = applyLinkParamWords(words, &p); !st) return st;
    return daemon_->setLinkParams("l1", LinkDirection::kAToB, p);
  }
  LinkInfo link() {
    for (const auto& l : daemon_->links())
      if (l.name == "l1") return l;
    ADD_FAILURE() << "no link l1";
    return {};
  }
  // `n` frames numbered 0..n-1 (the sender cycles through them in order).
  std::vector<std::vector<uint8_t>> frames(uint32_t n = 1) {
    std::vector<std::vector<uint8_t>> out;
    for (uint32_t i = 0; i < n; ++i)
      out.push_back(buildFrame(r0_mac_, s_mac_, false, "198.18.0.10", "198.18.9.2", 64, i));
    return out;
  }
  // Sequence numbers of our frames captured at D, in arrival order (the first 4,096).
  static std::vector<uint32_t> sequence(Capture& cap) {
    std::vector<uint32_t> out;
    for (const auto& f : cap.frames()) out.push_back(Capture::sequenceOf(f.data(), f.size()));
    return out;
  }
  // Waits until the link has delivered everything it admitted.
  void settle() {
    for (int k = 0; k < 400; ++k) {
      const auto s = link().a_to_b_stats;
      if (s.in_flight == 0 && s.delivered == s.enqueued) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

TEST_F(LinkEmulationVeth, TheSeededLossPatternRepeatsFromRunToRun) {
  auto run = [&] {
    EXPECT_TRUE(setParams({"loss", "10%", "seed", "42"}).ok());
    Capture cap(d_, "d0");
    EXPECT_TRUE(cap.ok());
    EXPECT_EQ(sendFrames(s_, "s0", frames(2000), 2000, 10000, 10000).sent, 2000u);
    settle();
    cap.waitFor(2000 - link().a_to_b_stats.loss_drops, 3000);
    const auto st = link().a_to_b_stats;
    EXPECT_EQ(st.tx_packets, 2000u) << "every frame reached the link";
    EXPECT_EQ(st.loss_drops + st.delivered, 2000u);
    return sequence(cap);
  };
  const auto first = run();
  restart();
  const auto second = run();
  EXPECT_GT(first.size(), 1700u);
  EXPECT_LT(first.size(), 1900u);
  EXPECT_EQ(first, second) << "the same frames are lost in both runs";
}

// A worker timing emulated links is woken by its timer for every arrival: real-time
// (--rt-priority auto, the default), so that its wake-ups do not wait behind other work on
// its CPU; a normal thread while nothing is emulated.
TEST_F(LinkEmulationVeth, AWorkerTimingEmulatedLinksIsRealTime) {
  const auto& w = daemon_->workers()[0];
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), 0) << "nothing is emulated yet";
  ASSERT_TRUE(setParams({"delay", "1ms"}).ok());
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), Daemon::kEmulationRtPriority);
  uint64_t prio = 0, refused = 99;
  for (const auto& cs : daemon_->daemonCounters())
    if (cs.scope == "worker 0")
      for (const auto& [name, v] : cs.counters) {
        if (name == "rt_priority") prio = v;
        if (name == "rt_refused") refused = v;
      }
  EXPECT_EQ(prio, uint64_t(Daemon::kEmulationRtPriority));
  EXPECT_EQ(refused, 0u);
}

// A radio medium times every frame it carries as a link does: a worker that carries only
// a medium (no emulated link) is real-time too, and normal again once the medium is gone.
TEST_F(LinkEmulationVeth, AWorkerCarryingOnlyARadioMediumIsRealTime) {
  const auto& w = daemon_->workers()[0];
  daemon_->adjustRtPriority();
  ASSERT_EQ(w->rtPriority(), 0) << "nothing is emulated yet";
  MediumSpec m;
  m.name = "air";
  m.ports = {PortSpec{"n1", "w0", {}, 1500}, PortSpec{"n2", "w0", {}, 1500}};
  ASSERT_TRUE(daemon_->createMedium(m).ok());
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), Daemon::kEmulationRtPriority);
  ASSERT_TRUE(daemon_->deleteMedium("air").ok());
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), 0) << "no medium, no emulated link: back to normal";
}

// A topology's interfaces are the daemon's ports for --rt-priority auto too: a threaded
// NAPI thread of one under the normal policy, able to run on the worker's CPU, puts the
// worker at SCHED_FIFO 1 with nothing emulated; normal again once NAPI is unthreaded.
TEST_F(LinkEmulationVeth, ATopologyPortsNormalNapiThreadPutsTheWorkerAboveIt) {
  const auto& w = daemon_->workers()[0];
  daemon_->adjustRtPriority();
  ASSERT_EQ(w->rtPriority(), 0) << "unthreaded NAPI, nothing emulated";
  ASSERT_EQ(topo_->exec(r_, "sh -c 'echo 1 > /sys/class/net/fp0/threaded'"), 0);
  for (int i = 0; i < 50 && w->rtPriority() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    daemon_->adjustRtPriority();
  }
  EXPECT_EQ(w->rtPriority(), 1);
  EXPECT_EQ(w->rtBelow(), 0);
  ASSERT_EQ(topo_->exec(r_, "sh -c 'echo 0 > /sys/class/net/fp0/threaded'"), 0);
  for (int i = 0; i < 50 && w->rtPriority() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    daemon_->adjustRtPriority();
  }
  EXPECT_EQ(w->rtPriority(), 0);
}

TEST_F(LinkEmulationVeth, FramesInTheLinkAtShutdownAreInTheLedger) {
  ASSERT_TRUE(setParams({"delay", "5s"}).ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(), 500, 20000, 5000).sent, 500u);
  for (int k = 0; k < 200 && link().a_to_b_stats.enqueued < 500; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(link().a_to_b_stats.enqueued, 500u);
  daemon_->workers()[0]->stop();
  const FrameAccounting a = daemon_->workers()[0]->accounting();
  EXPECT_EQ(a.in_link, 500u) << "the frames still on their way are counted, not lost";
  EXPECT_TRUE(a.balanced()) << "free " << a.free << " rx " << a.lent_rx << " tx " << a.lent_tx
                            << " held " << a.held << " links " << a.in_link;
}

TEST_F(LinkEmulationVeth, AReconfigurationUnderTrafficLosesNothing) {
  ASSERT_TRUE(setParams({"rate", "20mbit", "delay", "5ms", "limit", "10000"}).ok());
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  constexpr uint64_t kFrames = 20000;
  const auto numbered = frames(kFrames);
  std::thread sender([&] { sendFrames(s_, "s0", numbered, kFrames, 5000, 10000); });
  // Changes while frames are queued and in flight: rate, delay, and one that needs a
  // larger emulation (500 ms at 20 Mbit/s holds thousands of frames).
  const std::vector<std::vector<std::string>> changes = {
      {"delay", "1ms"}, {"rate", "50mbit"}, {"delay", "500ms"}, {"delay", "2ms"},
      {"rate", "10mbit", "delay", "10ms"}};
  for (const auto& ch : changes) {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    auto st = setParams(ch);
    EXPECT_TRUE(st.ok()) << st.error().message;
  }
  sender.join();
  settle();
  const bool all = cap.waitFor(kFrames, 5000);
  if (!all)
    for (const auto& n : {"n1", "n2"})
      for (const auto& cs : (*daemon_->node(n))->stats())
        for (const auto& [k, v] : cs.counters)
          if (v && k.find("drop") != std::string::npos) ADD_FAILURE() << n << " " << cs.scope << " " << k << " " << v;
  ASSERT_TRUE(all) << cap.count();
  const auto s = link().a_to_b_stats;
  EXPECT_EQ(s.tx_packets, kFrames);
  EXPECT_EQ(s.delivered, kFrames);
  EXPECT_EQ(s.queue_drops + s.loss_drops + s.full_drops, 0u);
  EXPECT_EQ(cap.outOfOrder(), 0u) << "no frame reordered or repeated";
  EXPECT_EQ(cap.count(), kFrames);
  EXPECT_TRUE(daemon_->workers()[0]->accounting().balanced());
}

TEST_F(LinkEmulationVeth, ALinkSetDownDropsAndCountsAndUpPassesAgain) {
  ASSERT_TRUE(setParams({"delay", "1ms"}).ok());
  ASSERT_TRUE(daemon_->setLinkState("l1", false).ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(), 300, 20000, 5000).sent, 300u);
  for (int k = 0; k < 200 && link().a_to_b_stats.link_down_drops < 300; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(link().a_to_b_stats.link_down_drops, 300u);
  EXPECT_EQ(link().a_to_b_stats.enqueued, 0u);
  ASSERT_TRUE(daemon_->setLinkState("l1", true).ok());
  Capture cap(d_, "d0");
  ASSERT_EQ(sendFrames(s_, "s0", frames(), 300, 20000, 5000).sent, 300u);
  EXPECT_TRUE(cap.waitFor(300, 5000)) << cap.count();
}

TEST_F(LinkEmulationVeth, BadValuesAreRefusedAndTheLinkKeepsItsParameters) {
  ASSERT_TRUE(setParams({"rate", "10mbit", "delay", "5ms", "loss", "1%"}).ok());
  const LinkParams before = link().a_to_b;
  LinkParams p = before;
  p.rate_bps = 1;  // 1 bit/s
  EXPECT_FALSE(daemon_->setLinkParams("l1", LinkDirection::kAToB, p).ok());
  p = before;
  p.delay_ns = 365ull * 24 * 3600 * 1000000000ull;  // a year
  EXPECT_FALSE(daemon_->setLinkParams("l1", LinkDirection::kAToB, p).ok());
  p = before;
  p.loss = 1.5;
  auto st = daemon_->setLinkParams("l1", LinkDirection::kAToB, p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("loss"), std::string::npos) << st.error().message;
  EXPECT_FALSE(setParams({"rate", "0"}).ok());
  EXPECT_FALSE(setParams({"delay", "1year"}).ok());
  EXPECT_FALSE(daemon_->setLinkParams("nosuch", LinkDirection::kBoth, before).ok());
  EXPECT_TRUE(link().a_to_b == before) << formatLinkParams(link().a_to_b);
}

TEST_F(LinkEmulationVeth, AnInterfacePortsEgressIsEmulatedToo) {
  NodeControl& n2 = **daemon_->node("n2");
  const PortId fp1 = n2.portByName("fp1").value();
  LinkParams p;
  ASSERT_TRUE(applyLinkParamWords({"delay", "2ms", "loss", "20%", "seed", "7"}, &p).ok());
  ASSERT_TRUE(n2.setPortParams(fp1, p).ok());
  EXPECT_FALSE((**daemon_->node("n1")).setPortParams(fp1, p).ok()) << "another node's port";
  LinkParams bad = p;
  bad.loss = 2;
  EXPECT_FALSE(n2.setPortParams(fp1, bad).ok());
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(1000), 1000, 10000, 5000).sent, 1000u);
  auto count = [&](const std::string& k) {
    return counter(n2.stats(), "port fp1", k);
  };
  for (int i = 0; i < 200 && count("emu_delivered") + count("emu_loss_drops") < 1000; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("emu_delivered") + count("emu_loss_drops"), 1000u);
  EXPECT_NEAR(double(count("emu_loss_drops")), 200.0, 3 * std::sqrt(1000 * 0.2 * 0.8));
  EXPECT_TRUE(cap.waitFor(count("emu_delivered"), 3000));
  EXPECT_EQ(cap.count(), count("emu_delivered"))
      << "loss " << count("emu_loss_drops") << " enq " << count("emu_enqueued") << " tx "
      << count("tx_packets");
  EXPECT_EQ(cap.outOfOrder(), 0u);
  EXPECT_TRUE(daemon_->workers()[0]->accounting().balanced());
}

// A statistics reset (as `fpctl stats --reset` asks it) is done by the running worker
// itself: its histograms and the link's are empty when resetStats() returns, the counters
// go on, and the histograms fill again with the frames that follow.
TEST_F(LinkEmulationVeth, AStatsResetEmptiesTheHistogramsWhichFillAgainAndKeepsTheCounters) {
  ASSERT_TRUE(setParams({"rate", "10mbit", "delay", "2ms", "limit", "1000"}).ok());
  const Worker& w = *daemon_->workers()[0];
  const StatsEpoch start = daemon_->statsEpoch();
  EXPECT_GT(start.since_unix_ns, 0u) << "the histograms count from the daemon's start";
  EXPECT_EQ(start.resets, 0u);
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(), 300, 20000, 5000).sent, 300u);
  settle();
  ASSERT_EQ(link().a_to_b_stats.delivered, 300u);
  ASSERT_GE(w.counters().lateness.count(), 300u);
  ASSERT_GT(link().a_to_b_stats.lateness_max_ns, 0u);
  const uint64_t late_frames = w.counters().link_late_frames.get();

  auto epoch = daemon_->resetStats();
  ASSERT_TRUE(epoch.ok()) << epoch.error().message;
  EXPECT_EQ(epoch->workers, uint32_t(daemon_->workers().size()));
  EXPECT_EQ(epoch->resets, 1u);
  EXPECT_GE(epoch->since_unix_ns, start.since_unix_ns);
  EXPECT_EQ(daemon_->statsEpoch().since_unix_ns, epoch->since_unix_ns);
  EXPECT_EQ(w.counters().lateness.count(), 0u) << "the worker's lateness is not empty";
  EXPECT_EQ(w.counters().lateness.max(), 0u);
  EXPECT_EQ(w.counters().emu_wake_late.count(), 0u);
  auto s = link().a_to_b_stats;
  EXPECT_EQ(s.lateness_max_ns, 0u) << "the link's lateness is not empty";
  EXPECT_EQ(s.lateness_p99_ns, 0u);
  EXPECT_EQ(s.sojourn_max_ns, 0u) << "the link's sojourn is not empty";
  EXPECT_EQ(s.delivered, 300u) << "counters are never reset";
  EXPECT_EQ(s.tx_packets, 300u);
  EXPECT_EQ(w.counters().link_late_frames.get(), late_frames);
  EXPECT_EQ(counter(daemon_->daemonCounters(), "worker 0", "emu_lateness_max_ns"), 0u);

  ASSERT_EQ(sendFrames(s_, "s0", frames(), 200, 20000, 5000).sent, 200u);
  settle();
  s = link().a_to_b_stats;
  EXPECT_EQ(s.delivered, 500u);
  EXPECT_GE(w.counters().lateness.count(), 200u) << "the histogram does not fill again";
  EXPECT_GT(s.lateness_max_ns, 0u) << "the link's lateness does not fill again";
  EXPECT_TRUE(cap.waitFor(500, 3000)) << cap.count();
  EXPECT_TRUE(daemon_->workers()[0]->accounting().balanced());
}

}  // namespace
}  // namespace fastpath
