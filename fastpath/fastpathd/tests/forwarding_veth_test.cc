// SPDX-License-Identifier: GPL-2.0-only
// fastpathd on veth: S -- R -- D in namespaces fp-fwd-*, the daemon at R (linked in-process
// so the test can change routes and read the frame ledger; the binary itself is started
// and stopped in its own test). Frames are sent from S and captured at D with AF_PACKET
// sockets; every traffic loop is bounded in count and time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"

namespace fastpath {
namespace {

using namespace vethtest;

class ForwardingVeth : public SrdFixture {
 protected:
  void SetUp() override { makeTopology("fwd", queues()); }

  virtual unsigned queues() const { return 1; }

  Config baseConfig() {
    Config c;
    c.ports = {"fp0", "fp1"};
    c.control_socket = "/tmp/fp-fwd-" + std::to_string(getpid()) + ".sock";
    c.ring_size = 1024;
    c.idle_poll_us = 1000;
    auto add = [&](const std::string& spec, const std::string& kind) {
      std::string a0 = "x", a1 = "--" + kind, a2 = spec;
      char* argv[] = {a0.data(), a1.data(), a2.data()};
      Config tmp;
      auto r = parseCommandLine(3, argv);
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
      if (!r.ok()) return;
      if (kind == "route")
        c.routes.push_back(r->routes[0]);
      else
        c.neighbours.push_back(r->neighbours[0]);
    };
    add("198.18.2.0/24,via=198.18.1.2,dev=fp1", "route");
    add("2001:2:0:2::/64,via=2001:2:0:1::2,dev=fp1", "route");
    add("198.18.1.2,mac=" + d_mac_.toString() + ",dev=fp1", "neigh");
    add("2001:2:0:1::2,mac=" + d_mac_.toString() + ",dev=fp1", "neigh");
    add("198.18.1.3,mac=" + std::string(kOtherMac) + ",dev=fp1", "neigh");
    return c;
  }

  std::vector<uint8_t> v4(uint8_t ttl, const std::string& dip = "198.18.2.10", uint32_t seq = 0) {
    return buildFrame(r0_mac_, s_mac_, false, "198.18.0.1", dip, ttl, seq);
  }
  std::vector<uint8_t> v6(uint8_t hl, uint32_t seq = 0) {
    return buildFrame(r0_mac_, s_mac_, true, "2001:2::1", "2001:2:0:2::10", hl, seq);
  }
};

TEST_F(ForwardingVeth, Ipv4AndIpv6ForwardedWithCorrectMacsAndTtl) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  auto sent = sendFrames(s_, "s0", {v4(64), v6(64)}, 200, 2000, 5000);
  ASSERT_EQ(sent.sent, 200u);
  EXPECT_TRUE(cap.waitFor(200, 3000)) << "received " << cap.count() << " of 200";
  unsigned n4 = 0, n6 = 0;
  for (const auto& f : cap.frames()) {
    ASSERT_EQ(f.size(), kFrameLen);
    EXPECT_EQ(0, std::memcmp(&f[0], d_mac_.bytes.data(), 6)) << "destination MAC = next hop";
    EXPECT_EQ(0, std::memcmp(&f[6], r1_mac_.bytes.data(), 6)) << "source MAC = egress port";
    if (f[12] == 0x08) {
      ++n4;
      EXPECT_EQ(f[14 + 8], 63) << "TTL decremented";
      EXPECT_EQ(csum16(&f[14], 20), 0) << "IPv4 header checksum still valid";
    } else {
      ++n6;
      EXPECT_EQ(f[14 + 7], 63) << "hop limit decremented";
    }
  }
  EXPECT_EQ(n4, 100u);
  EXPECT_EQ(n6, 100u);
  auto st = daemon_->defaultNode().stats();
  EXPECT_GE(counter(st, "port fp0", "rx_packets"), 200u);
  EXPECT_EQ(counter(st, "port fp1", "tx_packets"), 200u);
  EXPECT_EQ(counter(st, "port fp0", "forward"), 200u);
}

TEST_F(ForwardingVeth, TtlOneAndNoRouteArePuntedToTheControlChannel) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  auto fd = daemon_->defaultNode().controlChannelFd(0);
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  auto sent = sendFrames(s_, "s0", {v4(1), v6(1), v4(64, "198.18.99.1")}, 30, 2000, 5000);
  ASSERT_EQ(sent.sent, 30u);
  // Read our frames back from the client end of fp0's channel: one frame per message.
  unsigned got = 0, ttl1 = 0, noroute = 0;
  auto end = Clock::now() + std::chrono::seconds(3);
  uint8_t buf[4096];
  while (got < 30 && Clock::now() < end) {
    pollfd p{*fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = recv(*fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n <= 0 || !Capture::isOurs(buf, size_t(n))) continue;  // skip e.g. the S kernel's ND
    ++got;
    EXPECT_EQ(size_t(n), kFrameLen) << "frames go to the channel unmodified";
    EXPECT_EQ(0, std::memcmp(buf, r0_mac_.bytes.data(), 6));
    if ((buf[12] == 0x08 && buf[14 + 8] == 1) || (buf[12] == 0x86 && buf[14 + 7] == 1))
      ++ttl1;
    else
      ++noroute;
  }
  close(*fd);
  EXPECT_EQ(got, 30u);
  EXPECT_EQ(ttl1, 20u);
  EXPECT_EQ(noroute, 10u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(cap.count(), 0u) << "nothing of it may be forwarded";
  auto st = daemon_->defaultNode().stats();
  EXPECT_EQ(counter(st, "port fp0", "punt_no_route"), 10u);
  EXPECT_GE(counter(st, "port fp0", "verdict_punt"), 20u) << "the classifier punts TTL <= 1";
  EXPECT_GE(counter(st, "port fp0", "to_control"), 30u);
  EXPECT_EQ(counter(st, "port fp1", "tx_packets"), 0u);
  daemon_->drainEvents();
  bool miss = false;
  for (const auto& e : events)
    miss |= e.kind == FastPathEvent::Kind::kRouteMiss && e.address.toString() == "198.18.99.1";
  EXPECT_TRUE(miss) << "a route-miss event names the destination";
}

TEST_F(ForwardingVeth, ClientFramesAreTransmittedAndNoClientIsACountedDrop) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  // Before any client took the channel, exceptions are counted drops, never blocking.
  sendFrames(s_, "s0", {v4(1)}, 5, 2000, 2000);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Our five TTL-1 frames are punts; S's kernel may add CONTROL chatter (IPv6 ND/MLD) in
  // the meantime, and that must be a counted drop as well.
  auto before = daemon_->defaultNode().stats();
  EXPECT_EQ(counter(before, "port fp0", "verdict_punt"), 5u);
  EXPECT_EQ(
      counter(before, "port fp0", "drop_no_control_client"),
      counter(before, "port fp0", "verdict_punt") + counter(before, "port fp0", "verdict_control"));
  // A frame written by the client on fp1's channel leaves through fp1 towards D.
  auto fd = daemon_->defaultNode().controlChannelFd(1);
  ASSERT_TRUE(fd.ok());
  Capture cap(d_, "d0");
  auto f = buildFrame(d_mac_, r1_mac_, false, "198.18.1.1", "198.18.1.2", 64, 7);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(send(*fd, f.data(), f.size(), 0), ssize_t(f.size()));
  EXPECT_TRUE(cap.waitFor(10, 3000)) << "got " << cap.count();
  close(*fd);
  EXPECT_EQ(counter(daemon_->defaultNode().stats(), "port fp1", "from_control"), 10u);
}

TEST_F(ForwardingVeth, AClientThatDoesNotReadCostsCountedDropsNotForwarding) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  auto fd = daemon_->defaultNode().controlChannelFd(0);  // taken, never read
  ASSERT_TRUE(fd.ok());
  Capture cap(d_, "d0");
  // Exceptions far beyond what the channel buffers, interleaved with data frames.
  auto sent = sendFrames(s_, "s0", {v4(1), v4(64)}, 6000, 20000, 5000);
  ASSERT_EQ(sent.sent, 6000u);
  // 3000 data frames; a loaded machine may drop a few at the veth, a blocked worker all.
  EXPECT_TRUE(cap.waitFor(2700, 3000)) << "forwarding continued; got " << cap.count();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto st = daemon_->defaultNode().stats();
  uint64_t to_control = counter(st, "port fp0", "to_control");
  uint64_t full = counter(st, "port fp0", "drop_control_channel_full");
  // Punts stop at 3/4 of the channel's buffer (punt_headroom) or at --punt-rate.
  uint64_t held = counter(st, "port fp0", "drop_punt_headroom") +
                  counter(st, "port fp0", "drop_punt_rate_limited");
  EXPECT_GT(full + held, 0u) << "a full channel is a counted drop";
  EXPECT_GT(to_control, 0u);
  EXPECT_EQ(to_control + full + held + counter(st, "port fp0", "drop_no_control_client"),
            counter(st, "port fp0", "verdict_punt") + counter(st, "port fp0", "verdict_control") +
                counter(st, "port fp0", "no_meta"))
      << "every exception is either delivered or counted";
  close(*fd);
}

TEST_F(ForwardingVeth, RouteChangeWhileTrafficFlowsMovesTrafficToTheNewNextHop) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  std::atomic<bool> done{false};
  SendResult sent;
  std::thread sender([&] {
    sent = sendFrames(s_, "s0", {v4(64)}, 60000, 30000, 10000);
    done = true;
  });
  ASSERT_TRUE(cap.waitFor(5000, 5000));
  RouteBatch b;
  b.add.push_back(Route{IpPrefix::parse("198.18.2.0/24").value(),
                        IpAddress::parse("198.18.1.3").value(), 1, 0});
  uint64_t before = cap.count();
  auto st = daemon_->defaultNode().applyRoutes(b);
  ASSERT_TRUE(st.ok()) << st.error().message;
  // The worker's own count at that moment: old-MAC frames can only be those it forwarded
  // before (plus the batch it was in), however late the capture sees them.
  uint64_t forwarded_at_return = counter(daemon_->defaultNode().stats(), "port fp1", "tx_packets");
  sender.join();
  cap.waitFor(sent.sent, 2000);
  cap.stopNow();
  uint64_t total = cap.count(), moved = cap.otherMacCount();
  EXPECT_GT(before, 0u);
  EXPECT_GT(moved, 0u) << "traffic reached the new next hop";
  EXPECT_LE(moved, total - before) << "nothing went to the new next hop before the change";
  // applyRoutes returns once workers see the new table: frames forwarded afterwards (but
  // for the batch in progress) carry the new next hop's MAC.
  EXPECT_LE(total - moved, forwarded_at_return + 64)
      << "total " << total << " moved " << moved << " forwarded at return " << forwarded_at_return;
  // No frame fell into a gap during the update: everything that reached the worker was
  // forwarded (losses elsewhere, e.g. a veth ring on a loaded machine, are not the
  // update's doing and do not count here).
  auto st2 = daemon_->defaultNode().stats();
  EXPECT_EQ(counter(st2, "port fp0", "punt_no_route"), 0u);
  EXPECT_EQ(counter(st2, "port fp0", "punt_neighbour_unresolved"), 0u);
  EXPECT_EQ(counter(st2, "port fp0", "forward"), counter(st2, "port fp1", "tx_packets"));
  EXPECT_EQ(counter(st2, "port fp0", "forward"), counter(st2, "port fp0", "verdict_data"));
}

TEST_F(ForwardingVeth, MillionPacketsKeepTheFrameLedgerExact) {
  Config c = baseConfig();
  c.cores = {1};
  startDaemon(c);
  if (HasFatalFailure()) return;
  auto sent = sendFrames(s_, "s0", {v4(64), v6(64)}, 1000000, 0, 60000);
  ASSERT_EQ(sent.sent, 1000000u) << "sender was bounded at 60 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the rings drain
  auto st = daemon_->defaultNode().stats();
  uint64_t rx = counter(st, "port fp0", "rx_packets"), tx = counter(st, "port fp1", "tx_packets");
  std::printf(
      "[ measure  ] sent %lu frames in %.2f s (%.0f pps offered); fastpathd received %lu, "
      "forwarded %lu\n",
      (unsigned long)sent.sent, sent.seconds, double(sent.sent) / sent.seconds, (unsigned long)rx,
      (unsigned long)tx);
  for (const auto& cs : st)
    if (cs.scope.rfind("port", 0) == 0 || cs.scope.rfind("classifier", 0) == 0) {
      std::string line;
      for (const auto& [k, v] : cs.counters)
        if (v) line += " " + k + "=" + std::to_string(v);
      std::printf("[ measure  ] %s:%s\n", cs.scope.c_str(), line.c_str());
    }
  std::printf("[ measure  ] %s", topo_->execOutput(r_, "ip -s link show fp0").c_str());
  // Not a speed check: flat-out frames the machine cannot carry are dropped (counted above);
  // what matters is that every UMEM frame went round many times before the ledger check.
  const auto& w0 = daemon_->workers()[0];
  EXPECT_GT(rx, 10 * w0->accounting().total) << "too few frames to exercise recycling";
  EXPECT_EQ(counter(st, "port fp0", "forward"), tx) << "every forwarding decision was transmitted";
  const auto& w = daemon_->workers()[0];
  FrameAccounting a = w->accounting();
  EXPECT_TRUE(a.balanced()) << "free " << a.free << " lent_rx " << a.lent_rx << " lent_tx "
                            << a.lent_tx << " held " << a.held << " total " << a.total;
  EXPECT_EQ(a.held, 0u);
  EXPECT_EQ(a.lent_tx, 0u) << "every transmitted frame completed and came back";
  EXPECT_EQ(a.tx_ring + a.comp_ring + a.rx_ring, 0u);
  EXPECT_EQ(a.free + a.fill_ring + uint64_t(a.inKernel()), a.total);
  EXPECT_LE(a.inKernel(), 64) << "frames stuck inside the kernel";
  EXPECT_EQ(counter(st, "worker 0", "frames_balanced"), 1u);
}

TEST_F(ForwardingVeth, SecondDaemonOnTheSamePortsIsRefusedAndTheFirstKeepsForwarding) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  Daemon second(baseConfig());
  auto st = second.start();
  ASSERT_FALSE(st.ok()) << "two fastpathd on one port must be refused";
  std::printf("[ message  ] %s\n", st.error().message.c_str());
  EXPECT_NE(topo_->execOutput(r_, "ip link show fp0").find("xdp"), std::string::npos)
      << "the refused start must not detach the first daemon's program";
  Capture cap(d_, "d0");
  sendFrames(s_, "s0", {v4(64)}, 50, 2000, 3000);
  EXPECT_TRUE(cap.waitFor(50, 3000)) << "the first daemon still forwards; got " << cap.count();
}

TEST_F(ForwardingVeth, TheCpuWakeLatencyRequestLastsAsLongAsTheDaemon) {
  auto before = CpuWakeLatency::current();
  if (!before.ok()) GTEST_SKIP() << before.error().message;
  Config c = baseConfig();
  c.cpu_wake_latency_us = 0;
  startDaemon(c);
  if (HasFatalFailure()) return;
  auto held = CpuWakeLatency::current();
  ASSERT_TRUE(held.ok()) << held.error().message;
  EXPECT_EQ(*held, 0) << "idle CPUs poll while the daemon runs";
  Capture cap(d_, "d0");
  sendFrames(s_, "s0", {v4(64)}, 50, 2000, 3000);
  EXPECT_TRUE(cap.waitFor(50, 3000)) << "forwarding as usual; got " << cap.count();
  daemon_.reset();
  auto after = CpuWakeLatency::current();
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(*after, *before) << "the request goes with the daemon";
}

TEST_F(ForwardingVeth, WorkerGoesAboveARealTimeNapiThreadOnItsCpu) {
  // A name no other namespace uses: NAPI thread names ("napi/<ifname>-<id>") are global.
  const std::string in = "frt" + std::to_string(getpid() % 1000000);
  ASSERT_EQ(topo_->exec(r_, "sh -c 'ip link set fp0 down && ip link set fp0 name " + in +
                                " && ip link set " + in + " up'"),
            0);
  Config c = baseConfig();
  c.ports[0] = in;
  c.cores = {0};
  c.tune_ports = false;  // threaded NAPI stays off until the test turns it on
  startDaemon(c);  // --rt-priority auto is the default
  if (HasFatalFailure()) return;
  const auto& w = daemon_->workers()[0];
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), 0) << "no NAPI thread yet";
  // Threaded NAPI for the port (it has a NAPI because XDP is attached), real-time, CPU 0.
  ASSERT_EQ(topo_->exec(r_, "sh -c 'echo 1 > /sys/class/net/" + in + "/threaded'"), 0);
  std::string pid;
  for (int i = 0; i < 50 && pid.empty(); ++i) {
    pid = testing::shOutput(
        "for p in /proc/[0-9]*; do "
        "case \"$(cat $p/comm 2>/dev/null)\" in napi/" +
        in + "-*) echo ${p#/proc/};; esac; done | head -1");
    while (!pid.empty() && pid.back() == '\n') pid.pop_back();
    if (pid.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (pid.empty())
    GTEST_SKIP() << "no napi/" << in << "-* kthread appeared (threaded NAPI unsupported?)";
  // Under the normal policy (threaded NAPI's default) on the worker's CPU: the worker goes
  // to SCHED_FIFO 1, just above it, not adaptive (no real-time "below" exists).
  ASSERT_EQ(testing::sh("taskset -p 1 " + pid + " >/dev/null"), 0);
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), 1);
  EXPECT_EQ(w->rtBelow(), 0);
  ASSERT_EQ(testing::sh("chrt -f -p 50 " + pid + " && taskset -p 1 " + pid + " >/dev/null"), 0);
  daemon_->adjustRtPriority();
  EXPECT_EQ(w->rtPriority(), 51);
  EXPECT_EQ(counter(daemon_->defaultNode().stats(), "worker 0", "rt_priority"), 51u);
  // Traffic still flows with the real-time worker.
  Capture cap(d_, "d0");
  sendFrames(s_, "s0", {v4(64)}, 100, 2000, 3000);
  EXPECT_TRUE(cap.waitFor(100, 3000)) << "got " << cap.count();
  // Threaded mode off: the thread goes away and the worker returns to normal scheduling.
  ASSERT_EQ(topo_->exec(r_, "sh -c 'echo 0 > /sys/class/net/" + in + "/threaded'"), 0);
  for (int i = 0; i < 50 && w->rtPriority() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    daemon_->adjustRtPriority();
  }
  EXPECT_EQ(w->rtPriority(), 0);
}

TEST_F(ForwardingVeth, PortDownAndUpAreEvents) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  daemon_->checkLinks();
  EXPECT_TRUE(events.empty()) << "no change, no event";
  ASSERT_EQ(topo_->exec(r_, "ip link set fp1 down"), 0);
  daemon_->checkLinks();
  ASSERT_EQ(topo_->exec(r_, "ip link set fp1 up"), 0);
  daemon_->checkLinks();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, FastPathEvent::Kind::kPortDown);
  EXPECT_EQ(events[0].port, 1u);
  EXPECT_EQ(events[1].kind, FastPathEvent::Kind::kPortUp);
}

TEST_F(ForwardingVeth, APortThatVanishesGoesDownForGoodAndItsRoutesBecomeCountedDrops) {
  startDaemon(baseConfig());
  if (HasFatalFailure()) return;
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  Capture warm(d_, "d0");
  sendFrames(s_, "s0", {v4(64)}, 20, 2000, 3000);
  ASSERT_TRUE(warm.waitFor(20, 3000)) << "forwarding works before the port goes";
  warm.stopNow();

  ASSERT_EQ(topo_->exec(r_, "ip link del fp1"), 0);
  daemon_->checkLinks();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, FastPathEvent::Kind::kPortDown);
  EXPECT_EQ(events[0].port, 1u);
  // Frames routed to the vanished port: counted drops with their reason, none lost silently.
  auto before = daemon_->defaultNode().stats();
  sendFrames(s_, "s0", {v4(64)}, 100, 2000, 3000);
  uint64_t dropped = 0;
  for (int i = 0; i < 100 && dropped < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    dropped = counter(daemon_->defaultNode().stats(), "port fp0", "drop_port_down") -
              counter(before, "port fp0", "drop_port_down");
  }
  EXPECT_EQ(dropped, 100u);

  // Another interface taking the name does not bring the port back (its sockets were bound
  // to the deleted one): no event, still down.
  ASSERT_EQ(topo_->exec(r_, "ip link add fp1 type veth peer name fp9 && ip link set fp1 up"), 0);
  daemon_->checkLinks();
  EXPECT_EQ(events.size(), 1u);
  const auto ports = daemon_->defaultNode().ports();
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[1].id, 1u);
  EXPECT_FALSE(ports[1].up) << "the vanished port came back with the new interface";
  daemon_->shutdown();  // detaches from fp0 and skips the gone fp1
  EXPECT_EQ(topo_->execOutput(r_, "ip link show fp0").find("xdp"), std::string::npos);
  EXPECT_EQ(topo_->execOutput(r_, "ip link show fp1").find("xdp"), std::string::npos)
      << "nothing attached to the interface that took the name";
}

/// Two queues per port, one worker per queue: frames of many flows spread over both.
class ForwardingVethTwoQueues : public ForwardingVeth {
 protected:
  unsigned queues() const override { return 2; }
};

TEST_F(ForwardingVethTwoQueues, TwoWorkersForwardTheirQueues) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs to steer frames to 2 queues";
  Config c = baseConfig();
  c.queues = 2;
  startDaemon(c);
  if (HasFatalFailure()) return;
  ASSERT_EQ(daemon_->workers().size(), 2u);
  Capture cap(d_, "d0");
  // Different source addresses: the sender's queue choice hashes the flow, and a veth
  // delivers on the peer's queue of the same index.
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 64; ++i)
    frames.push_back(buildFrame(r0_mac_, s_mac_, false, "198.18.0." + std::to_string(i + 1),
                                "198.18.2.10", 64, 0));
  // A packet socket with PACKET_QDISC_BYPASS sends on queue (CPU % queues) when the device
  // has no XPS map: pin the sender to CPU 0, then CPU 1, to feed both RX queues of fp0.
  uint64_t total = 0;
  for (int round = 0; round < 8; ++round)
    total += sendFrames(s_, "s0", frames, 64, 5000, 2000, round % 2).sent;
  EXPECT_TRUE(cap.waitFor(total, 3000)) << "got " << cap.count() << " of " << total;
  uint64_t w0 =
      daemon_->workers()[0]->portCounters(0).result[size_t(ForwardResult::kForward)].get();
  uint64_t w1 =
      daemon_->workers()[1]->portCounters(0).result[size_t(ForwardResult::kForward)].get();
  EXPECT_EQ(w0 + w1, total);
  std::printf("[ measure  ] worker 0 forwarded %lu, worker 1 forwarded %lu\n", (unsigned long)w0,
              (unsigned long)w1);
  EXPECT_GT(w0, 0u) << "worker 0 served queue 0";
  EXPECT_GT(w1, 0u) << "worker 1 served queue 1";
  for (const auto& w : daemon_->workers()) EXPECT_TRUE(w->accounting().balanced());
}

TEST_F(ForwardingVeth, DaemonBinaryStartsForwardsAndLeavesNoXdpBehind) {
  std::string bin = FASTPATHD_PATH;
  std::string sock = "/tmp/fp-fwd-" + std::to_string(getpid()) + "-bin.sock";
  std::string log = ::testing::TempDir() + "fastpathd-fwd.log";
  pid_t pid =
      topo_->spawn(r_,
                   {bin, "--port", "fp0", "--port", "fp1", "--socket", sock, "--route",
                    "198.18.2.0/24,via=198.18.1.2,dev=fp1", "--neigh",
                    "198.18.1.2,mac=" + d_mac_.toString() + ",dev=fp1", "--stats-interval", "1"},
                   log);
  ASSERT_GT(pid, 0);
  bool attached = false;
  for (int i = 0; i < 100 && !attached; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    attached = topo_->execOutput(r_, "ip link show fp1").find("xdp") != std::string::npos &&
               topo_->execOutput(r_, "ip link show fp0").find("xdp") != std::string::npos;
  }
  ASSERT_TRUE(attached) << topo_->execOutput(r_, "ip link show") << testing::shOutput("cat " + log);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // sockets bound after attach
  Capture cap(d_, "d0");
  sendFrames(s_, "s0", {v4(64)}, 100, 2000, 3000);
  EXPECT_TRUE(cap.waitFor(100, 3000)) << "got " << cap.count() << "\n"
                                      << testing::shOutput("cat " + log);
  EXPECT_EQ(topo_->stop(pid, 5000), 0) << "SIGTERM ends fastpathd cleanly\n"
                                       << testing::shOutput("cat " + log);
  EXPECT_EQ(topo_->execOutput(r_, "ip link show fp0").find("xdp"), std::string::npos);
  EXPECT_EQ(topo_->execOutput(r_, "ip link show fp1").find("xdp"), std::string::npos);
  struct stat sb;
  EXPECT_NE(stat(sock.c_str(), &sb), 0) << "control socket removed";
}

TEST_F(ForwardingVeth, DaemonRefusesAMissingPortBeforeTouchingAnything) {
  std::string log = ::testing::TempDir() + "fastpathd-fwd-missing.log";
  pid_t pid = topo_->spawn(r_, {FASTPATHD_PATH, "--port", "fp0", "--port", "nope0"}, log);
  // Wait (up to 10 s) for it to exit on its own, without reaping; stop() then reaps it
  // and returns the exit status.
  for (int i = 0; i < 200; ++i) {
    siginfo_t info{};
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  int status = topo_->stop(pid, 1000);
  std::string out = testing::shOutput("cat " + log);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("nope0 does not exist"), std::string::npos) << out;
  EXPECT_EQ(topo_->execOutput(r_, "ip link show fp0").find("xdp"), std::string::npos)
      << "nothing attached to the port that exists";
}

}  // namespace
}  // namespace fastpath
