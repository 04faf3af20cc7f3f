// SPDX-License-Identifier: GPL-2.0-only
// fpctl and the client library against the real fastpathd on veth: S -- R(fastpathd) -- D
// in namespaces fp-ctl-*. Routes added with fpctl carry traffic; deleted, the traffic is
// punted to the control channel (received through an fd passed with SCM_RIGHTS);
// replace-all of 10k routes while traffic flows loses nothing compared with a run
// without updates. Every traffic loop is bounded in count and time.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "fastpath/ctrl/client.h"
#include "forwarding_veth_traffic.h"
#include "netns.h"

namespace fastpath::ctrl {
namespace {

using fastpath::testing::Topology;
using namespace fastpath::vethtest;

int runFpctl(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::string cmd = FPCTL_PATH;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p)) text += buf;
  int st = ::pclose(p);
  if (out) *out = text;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

uint64_t counter(const std::vector<CounterSet>& sets, const std::string& scope,
                 const std::string& name) {
  for (const auto& cs : sets)
    if (cs.scope == scope)
      for (const auto& [k, v] : cs.counters)
        if (k == name) return v;
  return 0;
}

class FpctlVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!fastpath::testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("ctl");
    s_ = topo_->addNamespace("s");
    r_ = topo_->addNamespace("r");
    d_ = topo_->addNamespace("d");
    topo_->addVeth(s_, "s0", r_, "fp0");
    topo_->addVeth(r_, "fp1", d_, "d0");
    s_mac_ = mac(topo_->mac(s_, "s0"));
    r0_mac_ = mac(topo_->mac(r_, "fp0"));
    d_mac_ = mac(topo_->mac(d_, "d0"));
    sock_ = "/tmp/fp-ctl-" + std::to_string(::getpid()) + ".sock";
    log_ = ::testing::TempDir() + "fastpathd-ctl.log";
    pid_ = topo_->spawn(r_,
                        {FASTPATHD_PATH, "--port", "fp0", "--port", "fp1", "--socket", sock_,
                         "--neigh", "198.18.1.2,mac=" + d_mac_.toString() + ",dev=fp1"},
                        log_);
    ASSERT_GT(pid_, 0);
    // Ready when fpctl gets an answer and both ports have XDP attached.
    bool ready = false;
    for (int i = 0; i < 200 && !ready; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ready = runFpctl({"-s", sock_, "ports"}) == 0 &&
              topo_->execOutput(r_, "ip link show fp0").find("xdp") != std::string::npos &&
              topo_->execOutput(r_, "ip link show fp1").find("xdp") != std::string::npos;
    }
    ASSERT_TRUE(ready) << fastpath::testing::shOutput("cat " + log_);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // sockets bound after attach
    ClientOptions o;
    o.node_name = "fpctl-veth-test";
    auto c = Client::connect(sock_, o);
    ASSERT_TRUE(c) << c.error().message;
    client_ = std::move(c).value();
  }

  void TearDown() override {
    client_.reset();
    if (topo_ && pid_ > 0) {
      EXPECT_EQ(topo_->stop(pid_, 5000), 0) << fastpath::testing::shOutput("cat " + log_);
    }
    topo_.reset();
  }

  std::vector<uint8_t> frame(uint32_t seq = 0) {
    return buildFrame(r0_mac_, s_mac_, false, "198.18.0.1", "198.18.2.10", 64, seq);
  }

  uint64_t stat(const std::string& scope, const std::string& name) {
    auto st = client_->stats();
    EXPECT_TRUE(st) << st.error().message;
    return st ? counter(st.value(), scope, name) : 0;
  }

  std::unique_ptr<Topology> topo_;
  std::string s_, r_, d_, sock_, log_;
  pid_t pid_ = -1;
  MacAddress s_mac_, r0_mac_, d_mac_;
  std::unique_ptr<Client> client_;
};

TEST_F(FpctlVeth, RouteAddedWithFpctlForwardsAndDeletedIsPunted) {
  // The control channel of fp0 (where punted frames go), received via SCM_RIGHTS.
  auto ch = client_->openControlChannel(0);
  ASSERT_TRUE(ch) << ch.error().message;
  auto punted = [&](int want, int ms) {
    int got = 0;
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    uint8_t buf[4096];
    while (got < want && Clock::now() < end) {
      pollfd p{ch.value(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      ssize_t n = ::recv(ch.value(), buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0 && Capture::isOurs(buf, size_t(n))) ++got;
    }
    return got;
  };

  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  // No route yet: punted.
  ASSERT_EQ(sendFrames(s_, "s0", {frame()}, 50, 2000, 3000).sent, 50u);
  EXPECT_EQ(punted(50, 3000), 50);
  EXPECT_EQ(cap.count(), 0u);

  std::string out;
  ASSERT_EQ(
      runFpctl({"-s", sock_, "route", "add", "198.18.2.0/24", "via", "198.18.1.2", "dev", "fp1"},
               &out),
      0)
      << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "--json", "route", "show"}, &out), 0);
  EXPECT_NE(out.find(R"("prefix":"198.18.2.0/24","via":"198.18.1.2","dev":"fp1")"),
            std::string::npos)
      << out;
  ASSERT_EQ(sendFrames(s_, "s0", {frame()}, 100, 2000, 3000).sent, 100u);
  EXPECT_TRUE(cap.waitFor(100, 3000)) << "forwarded " << cap.count() << " of 100";

  ASSERT_EQ(runFpctl({"-s", sock_, "route", "del", "198.18.2.0/24"}, &out), 0) << out;
  uint64_t before = cap.count();
  ASSERT_EQ(sendFrames(s_, "s0", {frame()}, 50, 2000, 3000).sent, 50u);
  EXPECT_EQ(punted(50, 3000), 50);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(cap.count(), before) << "nothing forwarded after the delete";
  EXPECT_EQ(runFpctl({"-s", sock_, "route", "del", "198.18.2.0/24"}, &out), 1) << out;
  ::close(ch.value());
}

TEST_F(FpctlVeth, ReplaceAllOf10kRoutesWhileTrafficFlowsLosesNothing) {
  ASSERT_TRUE(client_->addRoute([&] {
    Route r;
    r.prefix = IpPrefix::parse("198.18.2.0/24").value();
    r.next_hop = IpAddress::parse("198.18.1.2").value();
    r.port = client_->portByName("fp1").value();
    return r;
  }()));
  char path[] = "/tmp/fp-ctl-table-XXXXXX";
  int fd = ::mkstemp(path);
  std::string keep = "198.18.2.0/24 via 198.18.1.2 dev fp1\n";
  ASSERT_EQ(::write(fd, keep.data(), keep.size()), ssize_t(keep.size()));
  ::close(fd);

  constexpr uint64_t kFrames = 20000;
  constexpr uint64_t kPps = 10000;
  auto run = [&](bool updates, unsigned* replaced) {
    Capture cap(d_, "d0");
    EXPECT_TRUE(cap.ok());
    uint64_t punt0 = stat("port fp0", "punt_no_route");
    std::atomic<bool> sending{true};
    std::thread updater([&] {
      while (updates && sending) {
        std::string out;
        // The kept route plus 10000 synthetic /24s, as one transaction.
        int rc = runFpctl({"-s", sock_, "route", "replace-all", "--file", path, "--generate",
                           "10000", "dev", "fp1"},
                          &out);
        EXPECT_EQ(rc, 0) << out;
        if (rc != 0) break;
        ++*replaced;
      }
    });
    auto sent = sendFrames(s_, "s0", {frame()}, kFrames, kPps, 10000);
    sending = false;
    updater.join();
    cap.waitFor(sent.sent, 2000);
    uint64_t punted = stat("port fp0", "punt_no_route") - punt0;
    return std::make_tuple(sent.sent, cap.count(), punted);
  };
  unsigned none = 0, replaced = 0;
  auto [sent0, got0, punt0] = run(false, &none);
  auto [sent1, got1, punt1] = run(true, &replaced);
  ::unlink(path);
  std::printf(
      "[ measure  ] baseline: %lu sent, %lu forwarded; with %u replace-alls of 10001 routes: "
      "%lu sent, %lu forwarded, %lu punted as no-route\n",
      sent0, got0, none + replaced, sent1, got1, punt1);
  EXPECT_GE(replaced, 2u) << "the table must have been replaced while traffic flowed";
  EXPECT_EQ(punt1, 0u) << "a packet saw no route during a replace-all";
  EXPECT_EQ(punt0, 0u);
  // Loss with updates may not exceed the loss of the same run without them (plus noise of
  // 0.1% from a shared 2-core machine).
  uint64_t loss0 = sent0 - got0, loss1 = sent1 - got1;
  EXPECT_LE(loss1, loss0 + sent1 / 1000) << "baseline loss " << loss0 << ", with updates " << loss1;
  EXPECT_EQ(client_->routes()->size(), 10001u);
}

// fpctl segment against the real daemon: add (ports in three nodes, the medium's
// parameters), list, show in text and JSON, set parameters and state, the errors' exit
// statuses, del.
TEST_F(FpctlVeth, SegmentAddListShowSetDel) {
  for (const char* n : {"h3a", "h3b", "h3c"}) ASSERT_EQ(runFpctl({"-s", sock_, "node", "add", n}), 0);
  std::string out;
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "add", "lan", "h3a", "h3b", "h3c:eth9", "rate",
                      "10mbit", "delay", "1ms"},
                     &out),
            0)
      << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "list"}, &out), 0);
  EXPECT_NE(out.find("h3a:lan h3b:lan h3c:eth9"), std::string::npos) << out;
  EXPECT_NE(out.find("rate 10mbit delay 1ms"), std::string::npos) << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "set", "lan", "loss", "1%", "down"}, &out), 0)
      << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "--json", "segment", "show", "lan"}, &out), 0);
  EXPECT_NE(out.find("\"up\":false"), std::string::npos) << out;
  EXPECT_NE(out.find("\"port\":\"eth9\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"rate_bps\":10000000"), std::string::npos) << out;
  EXPECT_NE(out.find("\"unknown_dst_drops\":0"), std::string::npos) << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "show", "lan"}, &out), 0);
  EXPECT_NE(out.find("rate 10mbit delay 1ms loss 1%"), std::string::npos) << out;
  EXPECT_NE(out.find("segment lan: down, 3 port(s)"), std::string::npos) << out;
  // The port is the node's, like any other.
  ASSERT_EQ(runFpctl({"-s", sock_, "--node", "h3c", "ports"}, &out), 0);
  EXPECT_NE(out.find("eth9"), std::string::npos) << out;
  EXPECT_EQ(runFpctl({"-s", sock_, "segment", "add", "lan2", "h3a", "h3a"}), 2) << "node twice";
  EXPECT_EQ(runFpctl({"-s", sock_, "segment", "set", "lan", "loss", "150%"}), 2);
  EXPECT_EQ(runFpctl({"-s", sock_, "segment", "add", "lan", "h3a:x"}), 1) << "name in use";
  EXPECT_EQ(runFpctl({"-s", sock_, "segment", "add", "lan3", "nope"}), 1) << "unknown node";
  EXPECT_EQ(runFpctl({"-s", sock_, "segment", "show", "nope"}), 1);
  // One node's port alone.
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "set", "lan", "up"}), 0);
  ASSERT_EQ(runFpctl({"-s", sock_, "--node", "h3b", "segment", "set", "lan", "down"}, &out), 0)
      << out;
  ASSERT_EQ(runFpctl({"-s", sock_, "--json", "segment", "show", "lan"}, &out), 0);
  EXPECT_NE(out.find("\"up\":true,\"ports\""), std::string::npos) << "the segment: " << out;
  EXPECT_NE(out.find("\"mtu\":1500,\"up\":false"), std::string::npos) << "h3b's port: " << out;
  EXPECT_EQ(runFpctl({"-s", sock_, "--node", "nope", "segment", "set", "lan", "down"}), 1);
  EXPECT_EQ(runFpctl({"-s", sock_, "--node", "h3b", "segment", "set", "lan", "rate", "1mbit"}), 2);
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "del", "lan"}), 0);
  ASSERT_EQ(runFpctl({"-s", sock_, "segment", "list"}, &out), 0);
  EXPECT_EQ(out.find("lan"), std::string::npos) << out;
  EXPECT_NE(runFpctl({"-s", sock_, "--node", "h3c", "ports"}, &out), -1);
  EXPECT_EQ(out.find("eth9"), std::string::npos) << "the port went with the segment: " << out;
}

}  // namespace
}  // namespace fastpath::ctrl
