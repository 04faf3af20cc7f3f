// SPDX-License-Identifier: GPL-2.0-only
// A radio medium from a topology file through a real fastpathd: nodes r1, r2, r3 on medium
// "air" where r1 and r3 are out of each other's range (no pair) and r2 hears both; a host on
// each node (namespace + veth made by fastpathd) and static routes over the medium. A real
// `ping` works between hosts whose nodes are in range and fails between r1's and r3's, whose
// unicast frames are retried to the limit and dropped (counted); a pair update at run time
// brings r1 and r3 into range and the ping works.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "fastpath/ctrl/client.h"
#include "fastpathd_child.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::Topology;

const char* kAirMac[3] = {"02:00:00:00:aa:01", "02:00:00:00:aa:02", "02:00:00:00:aa:03"};

class MediumVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("mdv");
    d_ = topo_->addNamespace("d");
    tag_ = "md-" + std::to_string(::getpid() % 100000);
    sock_ = "/tmp/fp-mediumveth-" + std::to_string(::getpid()) + ".sock";
    topo_file_ = "/tmp/fp-mediumveth-" + std::to_string(::getpid()) + ".yaml";
    log_ = ::testing::TempDir() + "fp-mediumveth-fastpathd.log";
    std::ofstream(topo_file_) << "nodes: [{name: r1}, {name: r2}, {name: r3}]\n"
                                 "media:\n"
                                 "  - name: air\n"
                                 "    ports:\n"
                                 "      - {node: r1, mac: \"" << kAirMac[0] << "\"}\n"
                                 "      - {node: r2, mac: \"" << kAirMac[1] << "\"}\n"
                                 "      - {node: r3, mac: \"" << kAirMac[2] << "\"}\n"
                                 "    phy: {data_rate_kbps: 11000, basic_rate_kbps: 1000, "
                                 "retry_limit: 4, seed: 7, rate_control: arf, "
                                 "arf_success_threshold: 5}\n"
                                 "    pairs:\n"
                                 "      - {from: r1, to: r2, rx_dbm: -60, symmetric: true}\n"
                                 "      - {from: r2, to: r3, rx_dbm: -65, symmetric: true}\n";
    pid_ = testing::spawnInNetns(d_, log_,
                                 {FASTPATHD_PATH, "--topology", topo_file_, "--socket", sock_});
    ASSERT_GE(pid_, 0);
    ASSERT_NO_FATAL_FAILURE(testing::connectWhenOpen(sock_, log_, &client_));
    ASSERT_NO_FATAL_FAILURE(hostsAndRoutes());
  }

  void TearDown() override {
    client_.reset();
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) != pid_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (waitpid(pid_, &status, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
    for (int i = 1; i <= 3; ++i)
      testing::sh("ip netns del fp-" + tag_ + std::to_string(i) + " 2>/dev/null");
    std::remove(topo_file_.c_str());
  }

  PortId portOf(const std::string& node, const std::string& name) {
    auto ps = client_->ports(node);
    if (ps)
      for (const auto& p : *ps)
        if (p.ifname == name) return p.id;
    ADD_FAILURE() << "no port " << name << " in node " << node;
    return PortId(0);
  }

  // Host i (1..3) 198.18.i.2/24 on node ri; ri reaches 198.18.j.0/24 over the medium via
  // 198.18.100.j (rj's air port), statically (no control plane answers ARP here).
  void hostsAndRoutes() {
    auto ip = [](const std::string& s) { return *IpAddress::parse(s); };
    auto pfx = [](const std::string& s) { return *IpPrefix::parse(s); };
    for (int i = 1; i <= 3; ++i) {
      const std::string n = std::to_string(i);
      HostSpec h;
      h.name = tag_ + n;
      h.node = "r" + n;
      h.addresses = {pfx("198.18." + n + ".2/32")};
      h.addresses[0].length = 24;
      h.gateways = {ip("198.18." + n + ".1")};
      auto made = client_->createHost(h);
      ASSERT_TRUE(made.ok()) << made.error().message;
      host_[i] = *made;
    }
    for (int i = 1; i <= 3; ++i) {
      const std::string n = "r" + std::to_string(i);
      const PortId hp = portOf(n, host_[i].port), air = portOf(n, "air");
      const std::string own = "198.18." + std::to_string(i);
      ASSERT_TRUE(client_->addNeighbour(Neighbour{ip(own + ".2"), hp, host_[i].mac}, n).ok());
      RouteBatch b;
      b.add.push_back(Route{pfx(own + ".0/24"), {}, hp, 0});
      for (int j = 1; j <= 3; ++j) {
        if (j == i) continue;
        const std::string via = "198.18.100." + std::to_string(j);
        ASSERT_TRUE(
            client_->addNeighbour(Neighbour{ip(via), air, *MacAddress::parse(kAirMac[j - 1])}, n)
                .ok());
        b.add.push_back(Route{pfx("198.18." + std::to_string(j) + ".0/24"), ip(via), air, 0});
      }
      auto st = client_->applyRoutes(b, n);
      ASSERT_TRUE(st.ok()) << st.error().message;
      ASSERT_EQ(topo_->exec(host_[i].netns, "ip neigh replace " + own + ".1 lladdr " +
                                                topo_->mac(d_, host_[i].port) + " dev eth0"),
                0);
    }
  }

  bool ping(int from, int to, int count = 3) {
    return topo_->exec(host_[from].netns, "ping -c " + std::to_string(count) +
                                              " -i 0.2 -W 2 -q 198.18." + std::to_string(to) +
                                              ".2 >/dev/null") == 0;
  }

  /// fpctl's output (stdout) and exit status for `args`.
  int fpctl(const std::string& args, std::string* out) {
    out->clear();
    FILE* f = ::popen((std::string(FPCTL_PATH) + " -s " + sock_ + " " + args).c_str(), "r");
    if (!f) return -1;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out->append(buf, n);
    const int status = ::pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  MediumInfo air() {
    auto m = client_->media("air");
    EXPECT_TRUE(m.ok() && m->size() == 1u);
    return m.ok() && m->size() == 1u ? m->front() : MediumInfo{};
  }

  std::unique_ptr<Topology> topo_;
  std::string d_, tag_, sock_, topo_file_, log_;
  pid_t pid_ = -1;
  std::unique_ptr<ctrl::Client> client_;
  HostInfo host_[4];
};

TEST_F(MediumVeth, PingInRangeWorksOutOfRangeFailsUntilAnUpdateBringsThemInRange) {
  EXPECT_TRUE(ping(1, 2)) << "r1 and r2 are in range; log: " << log_;
  EXPECT_TRUE(ping(2, 3)) << "r2 and r3 are in range; log: " << log_;
  EXPECT_FALSE(ping(1, 3, 2)) << "r1 and r3 are out of range";
  MediumInfo m = air();
  ASSERT_EQ(m.ports.size(), 3u);
  EXPECT_EQ(m.pairs.size(), 4u);  // r1<->r2, r2<->r3: r1-r3 absent
  EXPECT_GT(m.ports[0].retry_drops, 0u) << "r1's unicasts to r3 were given up";
  EXPECT_GT(m.ports[0].retries, 0u);
  uint64_t delivered = 0;
  for (const auto& p : m.pairs) {
    EXPECT_NEAR(p.expected_delivery, 1.0, 1e-6) << p.from << "->" << p.to;
    delivered += p.delivered;
  }
  EXPECT_GE(delivered, 12u);  // 3 requests and 3 replies each way, both pings
  // The file's rate control reaches the medium and fpctl shows it.
  EXPECT_EQ(m.phy.rate_control, RateControl::kArf);
  EXPECT_EQ(m.phy.arf_success_threshold, 5u);
  EXPECT_EQ(m.phy.arf_timer_threshold, 15u);
  std::string out;
  ASSERT_EQ(fpctl("medium show air --json", &out), 0) << out;
  EXPECT_NE(out.find("\"rate_control\":\"arf\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"arf_success_threshold\":5"), std::string::npos) << out;
  ASSERT_EQ(fpctl("medium show air", &out), 0) << out;
  EXPECT_NE(out.find("rate control arf (up after 5 successes or 15 tries)"), std::string::npos)
      << out;
  // r1 and r3 come into range: one batch, both directions.
  MediumUpdate u;
  u.pairs = {MediumPair{"r1", "r3", -70, false}, MediumPair{"r3", "r1", -70, false}};
  auto st = client_->updateMedium("air", u);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(ping(1, 3)) << "in range after the update; log: " << log_;
  EXPECT_EQ(air().pairs.size(), 6u);
  // Unknown members and bad powers are refused whole.
  u.pairs = {MediumPair{"r1", "r2", -50, false}, MediumPair{"r1", "nosuch", -50, false}};
  EXPECT_FALSE(client_->updateMedium("air", u).ok());
  EXPECT_FALSE(client_->deleteNode("r2").ok()) << "a member node stays while its medium exists";
  ASSERT_TRUE(client_->deleteMedium("air").ok());
  EXPECT_FALSE(ping(1, 2, 1));
}

}  // namespace
}  // namespace fastpath
