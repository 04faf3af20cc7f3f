// SPDX-License-Identifier: GPL-2.0-only
// The slow path under a punt flood: S -- R -- D in namespaces fp-fwg-*, fastpathd linked
// in-process at R. No-route frames (punted, limited by --punt-rate/--punt-burst) are
// flooded with ARP frames (CONTROL, never limited) mixed in; a client reads fp0's control
// channel. Every traffic loop is bounded in count and time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"

namespace fastpath {
namespace {

using namespace vethtest;

/// Reads a control channel in its own thread and sorts what arrives.
class ChannelReader {
 public:
  ChannelReader(int fd, const MacAddress& arp_sender, bool start_reading = true)
      : fd_(fd), reading_(start_reading) {
    std::memcpy(sender_, arp_sender.bytes.data(), 6);
    thread_ = std::thread([this] { run(); });
  }
  ~ChannelReader() { stopNow(); }
  void startReading() { reading_ = true; }
  /// Reads until the channel stays empty for 200 ms (bounded at 5 s), then stops.
  void drainAndStop() {
    reading_ = true;
    auto end = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < end && Clock::now() - last_rx_.load() < std::chrono::milliseconds(200))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stopNow();
  }
  void stopNow() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t ours() const { return ours_; }      ///< our UDP frames (punted)
  uint64_t arp() const { return arp_; }        ///< our ARP frames (CONTROL)
  uint64_t others() const { return others_; }  ///< anything else (e.g. S's kernel's ND)

 private:
  void run() {
    last_rx_ = Clock::now();
    uint8_t buf[4096];
    while (!stop_) {
      if (!reading_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        last_rx_ = Clock::now();
        continue;
      }
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 10) <= 0) continue;
      for (int i = 0; i < 256; ++i) {
        ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
        if (n <= 0) break;
        last_rx_ = Clock::now();
        if (Capture::isOurs(buf, size_t(n)))
          ++ours_;
        else if (n >= 42 && buf[12] == 0x08 && buf[13] == 0x06 &&
                 std::memcmp(buf + 22, sender_, 6) == 0)
          ++arp_;
        else
          ++others_;
      }
    }
  }
  int fd_;
  uint8_t sender_[6];
  std::atomic<bool> reading_;
  std::atomic<bool> stop_{false};
  std::atomic<Clock::time_point> last_rx_{Clock::now()};
  std::atomic<uint64_t> ours_{0}, arp_{0}, others_{0};
  std::thread thread_;
};

class ForwardingPuntLimitVeth : public SrdFixture {
 protected:
  void SetUp() override {
    makeTopology("fwg");
    if (IsSkipped() || HasFatalFailure()) return;
    // No IPv6 chatter from S's kernel (MLD, ND): every frame reaching R is one we sent, so
    // the counts below are exact.
    ASSERT_EQ(topo_->exec(s_, "sh -c 'echo 1 > /proc/sys/net/ipv6/conf/s0/disable_ipv6'"), 0);
  }

  Config config(uint64_t punt_rate, uint32_t punt_burst) {
    Config c;
    c.ports = {"fp0", "fp1"};
    c.control_socket = "/tmp/fp-fwg-" + std::to_string(getpid()) + ".sock";
    c.ring_size = 1024;
    c.punt_rate = punt_rate;
    c.punt_burst = punt_burst;
    RouteConfig r;
    r.prefix = IpPrefix::parse("198.18.2.0/24").value();
    r.via = IpAddress::parse("198.18.1.2").value();
    r.dev = "fp1";
    c.routes.push_back(r);
    c.neighbours.push_back(NeighbourConfig{IpAddress::parse("198.18.1.2").value(), d_mac_, "fp1"});
    return c;
  }

  void startDaemon(Config c) {
    SrdFixture::startDaemon(std::move(c));
    if (HasFatalFailure()) return;
    daemon_->setEventSink([this](const FastPathEvent& e) {
      if (e.kind == FastPathEvent::Kind::kRouteMiss) route_misses_.insert(e.address.toString());
    });
  }

  /// A no-route frame (198.18.99.0/24 and 198.18.98.0/24 have no route).
  std::vector<uint8_t> noRoute(const std::string& dip) {
    return buildFrame(r0_mac_, s_mac_, false, "198.18.0.1", dip, 64, 0);
  }
  /// An ARP request from S to R (CONTROL: ctrl_arp), padded to the Ethernet minimum.
  std::vector<uint8_t> arpRequest() {
    std::vector<uint8_t> f(60, 0);
    std::memcpy(&f[0], r0_mac_.bytes.data(), 6);
    std::memcpy(&f[6], s_mac_.bytes.data(), 6);
    f[12] = 0x08, f[13] = 0x06;
    const uint8_t hdr[8] = {0, 1, 8, 0, 6, 4, 0, 1};  // Ethernet/IPv4, request
    std::memcpy(&f[14], hdr, 8);
    std::memcpy(&f[22], s_mac_.bytes.data(), 6);
    inet_pton(AF_INET, "198.18.0.1", &f[28]);
    inet_pton(AF_INET, "198.18.0.254", &f[38]);
    return f;
  }

  /// Sends `count` frames of `frames` round robin at `pps` from S while draining events.
  SendResult sendDraining(std::vector<std::vector<uint8_t>> frames, uint64_t count, uint64_t pps,
                          int max_ms) {
    SendResult r;
    std::atomic<bool> done{false};
    std::thread t([&] {
      r = sendFrames(s_, "s0", frames, count, pps, max_ms);
      done = true;
    });
    while (!done) {
      daemon_->drainEvents();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    t.join();
    daemon_->drainEvents();
    return r;
  }

  /// Frames fp0's worker took off its RX ring = what it delivered or counted as dropped.
  void expectEveryFrameAccounted(const std::vector<CounterSet>& st) {
    uint64_t rx = counter(st, "port fp0", "rx_packets");
    uint64_t sum = counter(st, "port fp0", "forward") + counter(st, "port fp0", "to_control");
    for (const char* d : {"control_channel_full", "no_control_client", "punt_policy_drop",
                          "punt_rate_limited", "punt_headroom", "no_egress_socket", "port_down"})
      sum += counter(st, "port fp0", std::string("drop_") + d);
    EXPECT_EQ(rx, sum) << "every received frame is forwarded, delivered or a counted drop";
    FrameAccounting a = daemon_->workers()[0]->accounting();
    EXPECT_TRUE(a.balanced());
  }

  /// Frames lost before the worker on a loaded machine: the veth's ring (counted as the
  /// sender's tx_dropped) and the XSK RX ring.
  uint64_t lostBeforeWorker(const std::vector<CounterSet>& st) {
    std::string veth = topo_->execOutput(s_, "cat /sys/class/net/s0/statistics/tx_dropped");
    return std::strtoull(veth.c_str(), nullptr, 10) + counter(st, "port fp0", "xsk_rx_dropped") +
           counter(st, "port fp0", "xsk_rx_ring_full");
  }

  std::set<std::string> route_misses_;
};

TEST_F(ForwardingPuntLimitVeth, FloodIsLimitedToRateTimesTimePlusBurstAndControlFramesAllArrive) {
  constexpr uint64_t kRate = 2000, kBurst = 100;
  startDaemon(config(kRate, kBurst));
  if (HasFatalFailure()) return;
  auto fd = daemon_->defaultNode().controlChannelFd(0);
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  ChannelReader reader(*fd, s_mac_);
  // 99 no-route frames to 64 destinations, then one ARP request: 20000 frames in ~1 s.
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 99; ++i) frames.push_back(noRoute("198.18.99." + std::to_string(1 + i % 64)));
  frames.push_back(arpRequest());
  constexpr uint64_t kCount = 20000, kArp = kCount / 100, kUdp = kCount - kArp;
  auto t0 = Clock::now();
  auto sent = sendDraining(frames, kCount, 20000, 10000);
  ASSERT_EQ(sent.sent, kCount);
  reader.drainAndStop();
  double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  close(*fd);
  auto st = daemon_->defaultNode().stats();
  uint64_t limited = counter(st, "port fp0", "drop_punt_rate_limited");
  uint64_t no_route = counter(st, "port fp0", "punt_no_route");
  uint64_t control = counter(st, "port fp0", "verdict_control");
  uint64_t lost = lostBeforeWorker(st);
  std::printf(
      "[ measure  ] %lu frames in %.2f s: punts delivered %lu (limit %.0f), rate-limited %lu, "
      "ARP delivered %lu of %lu, other control %lu, lost before the worker %lu\n",
      (unsigned long)sent.sent, sent.seconds, (unsigned long)reader.ours(),
      double(kRate) * elapsed + double(kBurst), (unsigned long)limited, (unsigned long)reader.arp(),
      (unsigned long)kArp, (unsigned long)reader.others(), (unsigned long)lost);
  // CONTROL frames are never limited and never crowded out by punts.
  EXPECT_EQ(counter(st, "port fp0", "drop_control_channel_full"), 0u);
  EXPECT_GE(reader.arp() + reader.others(), control) << "every CONTROL frame reached the client";
  EXPECT_EQ(reader.ours() + reader.arp() + reader.others(), counter(st, "port fp0", "to_control"));
  if (lost == 0) {
    EXPECT_EQ(reader.arp(), kArp);
    EXPECT_EQ(no_route, kUdp);
  } else {
    EXPECT_GE(reader.arp() + lost, kArp);
  }
  // Punts: at most rate x time + burst reach the client, the rest is counted.
  EXPECT_LE(double(reader.ours()), double(kRate) * elapsed + double(kBurst))
      << "elapsed " << elapsed << " s";
  EXPECT_GT(reader.ours(), kBurst + kRate / 4) << "the bucket refills over time";
  EXPECT_EQ(reader.ours() + limited + counter(st, "port fp0", "drop_punt_headroom"), no_route)
      << "every punted frame is delivered or counted";
  EXPECT_GT(limited, 0u);
  expectEveryFrameAccounted(st);
  // Route misses are raised for every destination, rate-limited frames included.
  for (int i = 1; i <= 64; ++i)
    EXPECT_TRUE(route_misses_.count("198.18.99." + std::to_string(i)))
        << "no route-miss for 198.18.99." << i;
}

TEST_F(ForwardingPuntLimitVeth, RateLimitedFramesStillRaiseRouteMissEvents) {
  startDaemon(config(1, 1));  // one punt per second, no burst to speak of
  if (HasFatalFailure()) return;
  auto fd = daemon_->defaultNode().controlChannelFd(0);
  ASSERT_TRUE(fd.ok());
  ChannelReader reader(*fd, s_mac_);
  ASSERT_EQ(sendDraining({noRoute("198.18.99.1")}, 1, 0, 2000).sent, 1u);  // takes the token
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 1; i <= 20; ++i) frames.push_back(noRoute("198.18.98." + std::to_string(i)));
  auto t0 = Clock::now();
  ASSERT_EQ(sendDraining(frames, 20, 0, 2000).sent, 20u);
  reader.drainAndStop();
  double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  close(*fd);
  auto st = daemon_->defaultNode().stats();
  // At most one token can have been earned since the first frame (1/s).
  EXPECT_LE(reader.ours(), 2u + uint64_t(elapsed)) << "elapsed " << elapsed << " s";
  EXPECT_EQ(reader.ours() + counter(st, "port fp0", "drop_punt_rate_limited"),
            counter(st, "port fp0", "punt_no_route"));
  EXPECT_GE(
      counter(st, "port fp0", "drop_punt_rate_limited") + std::min<uint64_t>(18, uint64_t(elapsed)),
      18u);
  daemon_->drainEvents();
  EXPECT_TRUE(route_misses_.count("198.18.99.1"));
  for (int i = 1; i <= 20; ++i)
    EXPECT_TRUE(route_misses_.count("198.18.98." + std::to_string(i)))
        << "the frame to 198.18.98." << i << " was dropped by the limiter, its event must not be";
  expectEveryFrameAccounted(st);
}

TEST_F(ForwardingPuntLimitVeth, AFullChannelKeepsHeadroomForControlFrames) {
  startDaemon(config(0, 1));  // unlimited rate: only the headroom protects CONTROL frames
  if (HasFatalFailure()) return;
  auto fd = daemon_->defaultNode().controlChannelFd(0);
  ASSERT_TRUE(fd.ok());
  ChannelReader reader(*fd, s_mac_, /*start_reading=*/false);  // a stalled ns-3
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 99; ++i) frames.push_back(noRoute("198.18.99." + std::to_string(1 + i % 64)));
  frames.push_back(arpRequest());
  constexpr uint64_t kCount = 6000, kArp = kCount / 100;
  ASSERT_EQ(sendDraining(frames, kCount, 20000, 5000).sent, kCount);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  reader.drainAndStop();
  close(*fd);
  auto st = daemon_->defaultNode().stats();
  uint64_t headroom = counter(st, "port fp0", "drop_punt_headroom");
  uint64_t lost = lostBeforeWorker(st);
  std::printf(
      "[ measure  ] stalled client: punts queued %lu, held back %lu, ARP delivered %lu of %lu, "
      "lost before the worker %lu\n",
      (unsigned long)reader.ours(), (unsigned long)headroom, (unsigned long)reader.arp(),
      (unsigned long)kArp, (unsigned long)lost);
  EXPECT_GT(headroom, 0u) << "punts stop at 3/4 of the channel's buffer";
  EXPECT_GT(reader.ours(), 0u);
  EXPECT_EQ(counter(st, "port fp0", "drop_control_channel_full"), 0u)
      << "the last quarter of the buffer was left to CONTROL frames";
  EXPECT_GE(reader.arp() + reader.others(), counter(st, "port fp0", "verdict_control"));
  EXPECT_EQ(reader.ours() + reader.arp() + reader.others(), counter(st, "port fp0", "to_control"));
  if (lost == 0) {
    EXPECT_EQ(reader.arp(), kArp);
  }
  EXPECT_EQ(counter(st, "port fp0", "drop_punt_rate_limited"), 0u) << "--punt-rate 0 is unlimited";
  expectEveryFrameAccounted(st);
}

}  // namespace
}  // namespace fastpath
