// SPDX-License-Identifier: GPL-2.0-only
// One worker on real AF_XDP sockets, below the daemon: the classifier on both ports of R,
// a shared UMEM, frames the classifier punts (TTL 1) delivered to the control channel with
// their metadata read correctly, client frames transmitted, and the frame ledger exact.
// Needs no forwarding table: punted frames never reach the lookup.
#include <gtest/gtest.h>

#include "fastpath/classifier.h"
#include "fib_testing.h"
#include "forwarding_veth_traffic.h"
#include "netns.h"
#include "worker/worker.h"

namespace fastpath {
namespace {

using namespace vethtest;
using testing::NetnsGuard;
using testing::Topology;

TEST(WorkerVeth, PuntsToTheControlChannelAndTransmitsClientFrames) {
  std::string why;
  if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
  Topology topo("fwd");
  std::string s = topo.addNamespace("ws"), r = topo.addNamespace("wr"), d = topo.addNamespace("wd");
  topo.addVeth(s, "s0", r, "fp0");
  topo.addVeth(r, "fp1", d, "d0");
  MacAddress s_mac = mac(topo.mac(s, "s0")), r0 = mac(topo.mac(r, "fp0"));
  MacAddress r1 = mac(topo.mac(r, "fp1")), d_mac = mac(topo.mac(d, "d0"));

  NetnsGuard guard(r);
  ASSERT_TRUE(guard.ok());
  std::vector<std::unique_ptr<Classifier>> cls;
  for (const char* ifname : {"fp0", "fp1"}) {
    ClassifierOptions co;
    co.ifname = ifname;
    auto c = Classifier::attach(co);
    ASSERT_TRUE(c.ok()) << c.error().message;
    cls.push_back(std::move(*c));
  }
  UmemOptions uo;
  uo.frames = 4096;
  uo.fill_size = 1024;
  uo.comp_size = 1024;
  auto umem = Umem::create(uo);
  ASSERT_TRUE(umem.ok()) << umem.error().message;
  std::vector<std::unique_ptr<XskSocket>> socks;
  std::vector<std::unique_ptr<ControlChannel>> chans;
  std::vector<ControlChannel*> chan_ptrs;
  for (PortId p = 0; p < 2; ++p) {
    XskOptions xo;
    xo.ifname = p ? "fp1" : "fp0";
    xo.rx_size = xo.tx_size = 1024;
    xo.mode = XskMode::kCopy;
    xo.xsks_map_fd = cls[p]->xsksMapFd();
    auto x = XskSocket::create(**umem, xo);
    ASSERT_TRUE(x.ok()) << x.error().message;
    EXPECT_FALSE((*x)->zeroCopy()) << "veth has no zero-copy";
    socks.push_back(std::move(*x));
    auto ch = ControlChannel::create(p, xo.ifname);
    ASSERT_TRUE(ch.ok());
    chan_ptrs.push_back(ch->get());
    chans.push_back(std::move(*ch));
  }
  auto fib_owner = testing::createFib(1 << 20, 1 << 16);
  FibManager& fib = *fib_owner;
  WorkerOptions wo;
  Worker worker(wo, std::move(*umem), std::move(socks), chan_ptrs, fib.view(), fib.epoch());
  ControlRelay relay(
      {{chan_ptrs[0], &worker.controlTxQueue()}, {chan_ptrs[1], &worker.controlTxQueue()}});
  ASSERT_TRUE(relay.start().ok());
  ASSERT_TRUE(worker.start().ok());

  auto fd0 = chans[0]->clientFd();
  ASSERT_TRUE(fd0.ok());
  auto ttl1 = buildFrame(r0, s_mac, false, "198.18.0.1", "198.18.2.10", 1, 0);
  auto sent = sendFrames(s, "s0", {ttl1}, 50, 5000, 3000);
  ASSERT_EQ(sent.sent, 50u);
  unsigned got = 0;
  uint8_t buf[4096];
  auto end = Clock::now() + std::chrono::seconds(3);
  while (got < 50 && Clock::now() < end) {
    pollfd p{*fd0, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = recv(*fd0, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == ssize_t(ttl1.size()) && std::memcmp(buf, ttl1.data(), ttl1.size()) == 0) ++got;
  }
  EXPECT_EQ(got, 50u) << "punted frames reach the channel unmodified";
  EXPECT_GE(worker.portCounters(0).verdict[FP_VERDICT_PUNT].get(), 50u);
  EXPECT_EQ(worker.portCounters(0).no_meta.get(), 0u)
      << "fp_xdp_meta found in front of every frame";

  // Client frames on fp1's channel leave through fp1.
  Capture cap(d, "d0");
  auto fd1 = chans[1]->clientFd();
  ASSERT_TRUE(fd1.ok());
  auto f = buildFrame(d_mac, r1, false, "198.18.1.1", "198.18.1.2", 64, 1);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(send(*fd1, f.data(), f.size(), 0), ssize_t(f.size()));
  EXPECT_TRUE(cap.waitFor(20, 3000)) << "got " << cap.count();
  EXPECT_EQ(worker.portCounters(1).ctrl_tx_packets.get(), 20u);
  close(*fd0);
  close(*fd1);

  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  FrameAccounting a = worker.accounting();
  EXPECT_TRUE(a.balanced());
  EXPECT_EQ(a.held, 0u);
  EXPECT_EQ(a.lent_tx, 0u);
  EXPECT_EQ(a.free + a.fill_ring + uint64_t(std::max<int64_t>(0, a.inKernel())), a.total);
  worker.stop();
  relay.stop();
}

}  // namespace
}  // namespace fastpath
