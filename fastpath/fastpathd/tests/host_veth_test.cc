// SPDX-License-Identifier: GPL-2.0-only
// Hosts and interfaces attached at run time, through a real fastpathd: two nodes joined by
// a link, a host on each (namespace + veth made by fastpathd), a real `ping` from one host
// to the other through both nodes; an interface of the test attached while fastpathd runs
// and detached while traffic flows (the frame ledger stays balanced, the id is reused);
// DeleteHost removes namespace and veth; fastpathd killed with SIGKILL leaves its hosts, and
// the next start removes them. fastpathd runs with `nsenter --net` (fastpathd's mount
// namespace is the test's, so the namespaces it mounts are visible here).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "fastpathd_child.h"
#include "two_hosts.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::Topology;

class HostVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("hvt");
    d_ = topo_->addNamespace("d");
    // Host names are short (the namespace is fp-NAME): the pid keeps runs apart.
    tag_ = "hv-" + std::to_string(::getpid() % 100000);  // namespaces fp-hv-NNNNNa
    sock_ = "/tmp/fp-hostveth-" + std::to_string(::getpid()) + ".sock";
    topo_file_ = "/tmp/fp-hostveth-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(topo_file_) << "nodes: []\n";
    log_ = ::testing::TempDir() + "fp-hostveth-fastpathd.log";
  }

  void TearDown() override {
    client_.reset();
    if (pid_ > 0) stopDaemon(SIGTERM);
    // Whatever a failed test left: hosts of this run only (by name).
    for (const char* h : {"a", "b"}) {
      const std::string ns = "fp-" + tag_ + h;
      testing::sh("ip netns del " + ns + " 2>/dev/null");
    }
    std::remove(topo_file_.c_str());
  }

  void startDaemon() {
    pid_ = testing::spawnInNetns(d_, log_,
                                 {FASTPATHD_PATH, "--topology", topo_file_, "--socket", sock_});
    ASSERT_GE(pid_, 0);
    testing::connectWhenOpen(sock_, log_, &client_);
  }

  int stopDaemon(int sig) {
    client_.reset();
    ::kill(pid_, sig);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

  static bool netnsExists(const std::string& ns) {
    struct stat st {};
    return ::stat(("/run/netns/" + ns).c_str(), &st) == 0;
  }
  bool linkExists(const std::string& ifname) {
    return topo_->exec(d_, "ip link show " + ifname + " >/dev/null 2>&1") == 0;
  }
  std::string mac(const std::string& ns, const std::string& ifname) {
    return topo_->mac(ns, ifname);
  }

  // Nodes r1 - r2 (link l1) and a host on each (two_hosts.h); fastpathd made the hosts'
  // namespaces and veths.
  void twoNodesTwoHosts() {
    ASSERT_NO_FATAL_FAILURE(testing::twoNodesTwoHosts(*client_, *topo_, d_, tag_, host_));
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(host_[i].netns, "fp-" + host_[i].spec.name);
      EXPECT_TRUE(netnsExists(host_[i].netns));
      EXPECT_TRUE(linkExists(host_[i].port));
    }
  }

  uint64_t workerCounter(const std::string& name) {
    auto st = client_->stats();
    if (!st) return ~0ull;
    for (const auto& cs : *st)
      if (cs.scope == "worker 0")
        for (const auto& [k, v] : cs.counters)
          if (k == name) return v;
    return ~0ull;
  }

  std::unique_ptr<Topology> topo_;
  std::string d_, tag_, sock_, topo_file_, log_;
  pid_t pid_ = -1;
  std::unique_ptr<ctrl::Client> client_;
  HostInfo host_[2];
};

TEST_F(HostVeth, PingBetweenHostsThroughTwoNodesThenDeleteRemovesThem) {
  startDaemon();
  twoNodesTwoHosts();
  if (HasFatalFailure()) return;
  EXPECT_EQ(topo_->exec(host_[0].netns, "ping -c 5 -i 0.1 -W 2 -q 198.18.2.2 >/dev/null"), 0)
      << "log: " << log_;
  // TCP too: the hosts' eth0 hand their frames over with complete checksums (no TX
  // checksum offload), else every segment through the AF_XDP copy arrives corrupt.
  EXPECT_EQ(topo_->execOutput(host_[0].netns, "ethtool -k eth0 | grep '^tx-checksumming'"),
            "tx-checksumming: off\n");
  const pid_t server = topo_->spawn(host_[1].netns, {"iperf3", "-s", "-1", "-B", "198.18.2.2"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(topo_->exec(host_[0].netns,
                        "timeout 10 iperf3 -c 198.18.2.2 -n 1M --connect-timeout 3000 >/dev/null"),
            0)
      << "log: " << log_;
  topo_->stop(server, 2000);
  auto hosts = client_->hosts();
  ASSERT_TRUE(hosts.ok());
  EXPECT_EQ(hosts->size(), 2u);
  ASSERT_TRUE(client_->deleteHost(host_[1].spec.name).ok());
  EXPECT_FALSE(netnsExists(host_[1].netns));
  EXPECT_FALSE(linkExists(host_[1].port));
  EXPECT_NE(topo_->exec(host_[0].netns, "ping -c 1 -W 1 -q 198.18.2.2 >/dev/null"), 0);
  EXPECT_EQ(workerCounter("frames_balanced"), 1u);
  // Deleting the node deletes its host too.
  ASSERT_TRUE(client_->deleteNode("r1").ok());
  EXPECT_FALSE(netnsExists(host_[0].netns));
  EXPECT_FALSE(linkExists(host_[0].port));
  EXPECT_TRUE(client_->hosts()->empty());
  // A clean stop leaves nothing either (the state file goes).
  EXPECT_EQ(stopDaemon(SIGTERM), 0);
}

TEST_F(HostVeth, AttachAndDetachAnInterfaceWhileTrafficFlows) {
  startDaemon();
  twoNodesTwoHosts();
  if (HasFatalFailure()) return;
  // A namespace of the test with a veth into fastpathd's namespace: s0 198.18.1.3 <-> x0.
  const std::string s = topo_->addNamespace("s");
  topo_->addVeth(s, "s0", d_, "fp-hvx0");
  ASSERT_EQ(topo_->exec(s, "ip addr add 198.18.1.3/24 dev s0"), 0);
  auto p = client_->attachInterface("r1", "fp-hvx0");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->node, "r1");
  EXPECT_FALSE(client_->attachInterface("r2", "fp-hvx0").ok()) << "attached twice";
  EXPECT_FALSE(client_->attachInterface("r1", "fp-hvnosuch").ok());
  // r1 routes 198.18.1.3 out of the new port; s routes 198.18.2.0/24 via r1's port MAC.
  ASSERT_TRUE(client_->addNeighbour(Neighbour{*IpAddress::parse("198.18.1.3"), p->id,
                                              *MacAddress::parse(mac(s, "s0"))},
                                    "r1")
                  .ok());
  RouteBatch b;
  b.add = {Route{*IpPrefix::parse("198.18.1.3/32"), {}, p->id, 0}};
  ASSERT_TRUE(client_->applyRoutes(b, "r1").ok());
  ASSERT_EQ(topo_->exec(s, "ip neigh replace 198.18.1.1 lladdr " + mac(d_, "fp-hvx0") +
                               " dev s0"),
            0);
  ASSERT_EQ(topo_->exec(s, "ip route add 198.18.2.0/24 via 198.18.1.1 dev s0"), 0);
  EXPECT_EQ(topo_->exec(s, "ping -c 3 -i 0.1 -W 2 -q 198.18.2.2 >/dev/null"), 0);
  // Detach while a flood ping (bounded: 400 frames, at most 10 s) runs through the port.
  const std::string out = ::testing::TempDir() + "fp-hostveth-ping.txt";
  std::thread ping([&] {
    topo_->exec(s, "ping -c 400 -i 0.005 -W 1 -w 10 -q 198.18.2.2 > " + out + " 2>&1");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(client_->detachInterface("r1", "fp-hvx0").ok());
  ping.join();
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(" received"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 0 received"), std::string::npos) << "nothing before the detach: " << text;
  EXPECT_EQ(text.find(" 400 received"), std::string::npos) << "the detach changed nothing: " << text;
  // Routes through it went; the worker took every frame back.
  auto routes = client_->routes("r1");
  ASSERT_TRUE(routes.ok());
  for (const auto& r : *routes) EXPECT_NE(r.port, p->id) << r.prefix.toString();
  EXPECT_EQ(workerCounter("frames_balanced"), 1u);
  EXPECT_EQ(workerCounter("frames_lost"), 0u) << "copy mode: nothing stays in the kernel";
  // Attached again: the same id, traffic flows again.
  auto again = client_->attachInterface("r1", "fp-hvx0");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->id, p->id);
  ASSERT_TRUE(client_->addNeighbour(Neighbour{*IpAddress::parse("198.18.1.3"), again->id,
                                              *MacAddress::parse(mac(s, "s0"))},
                                    "r1")
                  .ok());
  ASSERT_TRUE(client_->applyRoutes(b, "r1").ok());
  EXPECT_EQ(topo_->exec(s, "ping -c 3 -i 0.1 -W 2 -q 198.18.2.2 >/dev/null"), 0);
  // An attached interface that vanishes is detached; fastpathd goes on.
  ASSERT_EQ(topo_->exec(d_, "ip link del fp-hvx0"), 0);
  bool gone = false;
  for (int i = 0; i < 40 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = true;
    auto ports = client_->ports("r1");
    ASSERT_TRUE(ports.ok());
    for (const auto& port : *ports)
      if (port.ifname == "fp-hvx0") gone = false;
  }
  EXPECT_TRUE(gone);
  EXPECT_EQ(topo_->exec(host_[0].netns, "ping -c 2 -i 0.1 -W 2 -q 198.18.2.2 >/dev/null"), 0);
  EXPECT_EQ(workerCounter("frames_balanced"), 1u);
  // SIGTERM: fastpathd removes its hosts as it stops.
  EXPECT_EQ(stopDaemon(SIGTERM), 0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(netnsExists(host_[i].netns));
    EXPECT_FALSE(linkExists(host_[i].port));
  }
}

TEST_F(HostVeth, SigkillThenNextStartRemovesTheHosts) {
  startDaemon();
  twoNodesTwoHosts();
  if (HasFatalFailure()) return;
  stopDaemon(SIGKILL);
  // Left behind by the killed daemon.
  EXPECT_TRUE(netnsExists(host_[0].netns));
  EXPECT_TRUE(netnsExists(host_[1].netns));
  startDaemon();
  if (HasFatalFailure()) return;
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(netnsExists(host_[i].netns));
    EXPECT_FALSE(linkExists(host_[i].port));
  }
  EXPECT_TRUE(client_->hosts()->empty());
  EXPECT_EQ(stopDaemon(SIGTERM), 0);
  std::ifstream f(log_);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("left by fastpathd"), std::string::npos);
}

}  // namespace
}  // namespace fastpath
