// SPDX-License-Identifier: GPL-2.0-only
// Two "hosts" that share no Ethernet segment: namespaces A and B, each with its own
// fastpathd, each on its own subnet of the underlay, and a third namespace R routing
// between the two subnets. Link r1-r2 crosses as VXLAN (RFC 7348): UDP between A's and B's
// underlay addresses, routed by R.
//
//   S --fa0-- [A: r1] ==wa~~ 198.18.10.0/24 ~~[R]~~ 198.18.20.0/24 ~~wb== [B: r2] --fb0-- D
//
// Checked: ping S -> D over the link (the link's delay at each sender), the underlay
// itself still working through the wires' classifiers (ARP, routed ping between A and B);
// hostile VXLAN on B's wire (an unknown VNI, the link's VNI from a foreign source, a cut
// header, the I flag clear, a flood of unknown VNIs) dropped and counted while the link
// goes on; a link MTU that with VXLAN's 50 bytes exceeds the wire's refused naming both;
// and (A's wire on a segment with a second router) the link following a new next hop.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "daemon_log.h"
#include "netns.h"
#include "two_host_plan.h"

namespace fastpath {
namespace {

using testing::Topology;

using testing::finalCounter;
using testing::readFile;

class CrossHostVxlanVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("vx");
    a_ = topo_->addNamespace("a");
    b_ = topo_->addNamespace("b");
    r_ = topo_->addNamespace("r");
    s_ = topo_->addNamespace("s");
    d_ = topo_->addNamespace("d");
    if (lan_) {
      // A's wire on a shared segment (a bridge in L) with two routers, R and R2; R2 reaches
      // B's subnet through R.
      l_ = topo_->addNamespace("l");
      r2_ = topo_->addNamespace("r2");
      topo_->addVeth(a_, "wa", l_, "la");
      topo_->addVeth(r_, "ra", l_, "lr");
      topo_->addVeth(r2_, "r2a", l_, "lr2");
      topo_->addVeth(r2_, "r2r", r_, "rr2");
      for (const char* cmd :
           {"ip link add br0 type bridge", "ip link set br0 mtu 1600", "ip link set br0 up",
            "ethtool -K la gro on"})
        ASSERT_EQ(topo_->exec(l_, cmd), 0) << cmd;
      for (const char* port : {"la", "lr", "lr2"})
        for (const std::string cmd : {std::string("ip link set ") + port + " mtu 1600",
                                      std::string("ip link set ") + port + " master br0",
                                      std::string("ip link set ") + port + " up"})
          ASSERT_EQ(topo_->exec(l_, cmd), 0) << cmd;
      for (const char* cmd :
           {"ip addr add 198.18.10.3/24 dev r2a", "ip addr add 198.18.30.2/24 dev r2r",
            "ip link set r2a mtu 1600", "ip link set r2r mtu 1600",
            "ip route add 198.18.20.0/24 via 198.18.30.1", "sysctl -qw net.ipv4.ip_forward=1"})
        ASSERT_EQ(topo_->exec(r2_, cmd), 0) << cmd;
      // R takes A's underlay frames from R2 too (A's subnet is on another of its interfaces).
      for (const char* cmd : {"ip addr add 198.18.30.1/24 dev rr2", "ip link set rr2 mtu 1600",
                              "sysctl -qw net.ipv4.conf.all.rp_filter=0",
                              "sysctl -qw net.ipv4.conf.rr2.rp_filter=0"})
        ASSERT_EQ(topo_->exec(r_, cmd), 0) << cmd;
    } else {
      topo_->addVeth(a_, "wa", r_, "ra");
    }
    topo_->addVeth(b_, "wb", r_, "rb");
    topo_->addVeth(a_, "fa0", s_, "eth0");
    topo_->addVeth(b_, "fb0", d_, "eth0");
    // The underlay: two subnets, R routing between them. The wires carry 1600 bytes, so a
    // link of 1500 fits with VXLAN's 50. GRO on R's ends: a veth takes frames redirected
    // by XDP into its peer only with NAPI on (an XDP program or GRO).
    for (const char* cmd :
         {"ip addr add 198.18.10.2/24 dev wa", "ip link set wa mtu 1600",
          "ip route add 198.18.20.0/24 via 198.18.10.1"})
      ASSERT_EQ(topo_->exec(a_, cmd), 0) << cmd;
    for (const char* cmd :
         {"ip addr add 198.18.20.2/24 dev wb", "ip link set wb mtu 1600",
          "ip route add 198.18.10.0/24 via 198.18.20.1"})
      ASSERT_EQ(topo_->exec(b_, cmd), 0) << cmd;
    for (const char* cmd :
         {"ip addr add 198.18.10.1/24 dev ra", "ip addr add 198.18.20.1/24 dev rb",
          "ip link set ra mtu 1600", "ip link set rb mtu 1600", "ethtool -K ra gro on",
          "ethtool -K rb gro on", "sysctl -qw net.ipv4.ip_forward=1"})
      ASSERT_EQ(topo_->exec(r_, cmd), 0) << cmd;
    for (auto [ns, ip, gw, gw_mac] :
         {std::tuple{s_, "198.18.1.2/24", "198.18.1.1", topo_->mac(a_, "fa0")},
          std::tuple{d_, "198.18.2.2/24", "198.18.2.1", topo_->mac(b_, "fb0")}}) {
      ASSERT_EQ(topo_->exec(ns, std::string("ip addr add ") + ip + " dev eth0"), 0);
      ASSERT_EQ(topo_->exec(ns, std::string("ip route add default via ") + gw + " dev eth0"), 0);
      ASSERT_EQ(topo_->exec(ns, std::string("ip neigh add ") + gw + " lladdr " + gw_mac +
                                    " dev eth0"),
                0);
    }
    dir_ = "/tmp/fp-vx-" + std::to_string(getpid());
    mkdir(dir_.c_str(), 0755);
  }
  void TearDown() override {
    for (pid_t p : {pid_a_, pid_b_})
      if (p > 0) topo_->stop(p);
    topo_.reset();
    if (!dir_.empty()) testing::sh("rm -rf " + dir_);
  }

  /// The scenario of two_host_plan.h over VXLAN wires: link r1-r2 with VNI 42,
  /// `link_params` and `link_mtu`.
  std::string plan(const std::string& link_params, int link_mtu = 1500) {
    testing::PlanNode r1 = testing::r1OnHostA();
    r1.routes.push_back("{prefix: 198.18.1.0/24, dev: fa0}");
    r1.neighbours.push_back("{ip: 198.18.1.2, mac: \"" + topo_->mac(s_, "eth0") + "\", dev: fa0}");
    testing::PlanNode r2 = testing::r2OnHostB();
    r2.routes.push_back("{prefix: 198.18.2.0/24, dev: fb0}");
    r2.neighbours.push_back("{ip: 198.18.2.2, mac: \"" + topo_->mac(d_, "eth0") + "\", dev: fb0}");
    testing::PlanLink link = testing::r1r2Link();
    link.vlan = 42;
    link.a.mtu = link.b.mtu = link_mtu;
    link.params = link_params;
    std::string l = yaml(link);
    l.replace(l.find("vlan: 42"), 8, "vni: 42");
    const std::string path = dir_ + "/plan.yaml";
    std::ofstream(path)
        << "hosts:\n"
           "  - name: a\n"
           "    wires: [{peer: b, interface: wa, encap: vxlan, underlay: 198.18.10.2,\n"
           "             peer_underlay: 198.18.20.2}]\n"
           "  - name: b\n"
           "    wires: [{peer: a, interface: wb, encap: vxlan, underlay: 198.18.20.2,\n"
           "             peer_underlay: 198.18.10.2}]\n"
        << "nodes:\n"
        << yaml(r1) << yaml(r2) << "links:\n"
        << l;
    return path;
  }

  pid_t start(const std::string& ns, const std::string& host, const std::string& plan_path) {
    return topo_->spawn(ns,
                        {FASTPATHD_PATH, "--topology", plan_path, "--host-name", host,
                         "--run-tag", "ci", "--socket", dir_ + "/" + host + ".sock", "--no-tune",
                         "--wire-wait", "5000", "--cores", host == "a" ? "0" : "1"},
                        log(host));
  }
  std::string log(const std::string& host) const { return dir_ + "/" + host + ".log"; }

  bool bothForwarding() {
    for (int i = 0; i < 200; ++i) {
      if (access((dir_ + "/a.sock").c_str(), F_OK) == 0 &&
          access((dir_ + "/b.sock").c_str(), F_OK) == 0)
        return true;
      if (waitpid(pid_a_, nullptr, WNOHANG) == pid_a_ || waitpid(pid_b_, nullptr, WNOHANG) == pid_b_)
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  /// ping S -> D: replies received and the shortest round trip (ms), -1 if none.
  std::pair<int, double> ping(int count) {
    const std::string out = topo_->execOutput(
        s_, "ping -q -c " + std::to_string(count) + " -i 0.05 -W 1 198.18.2.2");
    std::smatch m;
    int received = 0;
    double min = -1;
    if (std::regex_search(out, m, std::regex("([0-9]+) received"))) received = std::stoi(m[1]);
    if (std::regex_search(out, m, std::regex("= ([0-9.]+)/"))) min = std::stod(m[1]);
    return {received, min};
  }

  int exitStatus(pid_t pid) {
    int status = 0;
    for (int i = 0; i < 300; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -2;
  }

  std::unique_ptr<Topology> topo_;
  bool lan_ = false;  ///< A's wire on a bridge with two routers (CrossHostVxlanNextHop)
  std::string a_, b_, r_, s_, d_, l_, r2_, dir_;
  pid_t pid_a_ = -1, pid_b_ = -1;
};

TEST_F(CrossHostVxlanVeth, PingCrossesTheRoutedUnderlayWithTheLinksDelay) {
  const std::string p = plan("delay 2ms");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  auto [received, min_ms] = ping(20);
  EXPECT_EQ(received, 20) << readFile(log("a")) << readFile(log("b"));
  // 2 ms each way, the wire's latency inside it.
  EXPECT_GT(min_ms, 3.9);
  EXPECT_LT(min_ms, 4.8);
  // The underlay goes on through the wires' classifiers: ARP and a routed ping.
  EXPECT_EQ(topo_->exec(a_, "ping -q -c 3 -i 0.1 -W 1 198.18.20.2 >/dev/null"), 0);
  const std::string la = readFile(log("a"));
  EXPECT_NE(la.find("wire wa to host b: VXLAN 198.18.10.2 -> 198.18.20.2 port 4789, next hop "
                    "198.18.10.1 (" + topo_->mac(r_, "ra") + ")"),
            std::string::npos)
      << la;
  topo_->stop(pid_a_);
  pid_a_ = -1;
  const std::string fa = readFile(log("a"));
  EXPECT_GE(finalCounter(fa, "final wire wa", "pass_wire_link"), 20) << fa;
  EXPECT_GE(finalCounter(fa, "final wire wa", "pass_wire_underlay"), 3) << fa;
  EXPECT_EQ(finalCounter(fa, "final wire wa", "drop_wire_unknown_vni"), 0) << fa;
}

TEST_F(CrossHostVxlanVeth, HostileVxlanIsDroppedAndCountedWhileTheLinkGoesOn) {
  const std::string p = plan("delay 1ms");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  // From R, routed to B's underlay address like the link's own: a VNI no link has, the
  // link's VNI from R's address (not A's), a cut VXLAN header, the I flag clear; then a
  // flood of unknown VNIs while S pings D.
  const std::string py = R"(import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
to = ("198.18.20.2", 4789)
inner = bytes.fromhex("020000000102020000000101") + bytes.fromhex("0800") + bytes(46)
def vx(vni, flags=0x08): return bytes([flags, 0, 0, 0]) + vni.to_bytes(3, "big") + b"\0" + inner
n = int(sys.argv[1])
for i in range(300): s.sendto(vx(77), to)
for i in range(200): s.sendto(vx(42), to)
for i in range(100): s.sendto(bytes([8, 0, 0, 0, 0]), to)
for i in range(150): s.sendto(vx(42, 0x00), to)
for i in range(n): s.sendto(vx(1000 + i % 3000), to)
)";
  std::ofstream(dir_ + "/hostile.py") << py;
  std::thread flood([&] { topo_->exec(r_, "/usr/bin/python3 " + dir_ + "/hostile.py 20000"); });
  auto [received, min_ms] = ping(20);
  flood.join();
  EXPECT_EQ(received, 20) << "the link goes on under the flood";
  EXPECT_GT(min_ms, 1.9);
  topo_->stop(pid_b_);
  pid_b_ = -1;
  const std::string lb = readFile(log("b"));
  EXPECT_EQ(finalCounter(lb, "final wire wb", "drop_wire_unknown_vni"), 300 + 20000) << lb;
  EXPECT_EQ(finalCounter(lb, "final wire wb", "drop_wire_foreign_host"), 200) << lb;
  EXPECT_EQ(finalCounter(lb, "final wire wb", "drop_truncated"), 100) << lb;
  EXPECT_EQ(finalCounter(lb, "final wire wb", "drop_wire_bad_flags"), 150) << lb;
  EXPECT_GE(finalCounter(lb, "final wire wb", "pass_wire_link"), 20) << lb;
}

TEST_F(CrossHostVxlanVeth, AnMtuTheWireCannotCarryWithVxlanIsRefusedNamingBoth) {
  // 1560 + 50 = 1610 > the wire's 1600: refused before waiting for the peer.
  pid_a_ = start(a_, "a", plan("delay 1ms", 1560));
  EXPECT_EQ(exitStatus(pid_a_), 1);
  pid_a_ = -1;
  const std::string la = readFile(log("a"));
  EXPECT_NE(la.find("VNI 42 on wire wa to host b): mtu 1560 + 50 bytes of VXLAN (outer "
                    "Ethernet, IPv4, UDP, VXLAN headers) = 1610 is more than the wire's mtu 1600"),
            std::string::npos)
      << la;
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 2>/dev/null"), 1) << "nothing left";
}

// The underlay changes under a running link: A's route to B's subnet moves from router R
// to router R2 (another MAC on A's segment) and the link's frames follow at once; then the
// route goes away (the frames are dropped and counted, not sent to a stale MAC) and comes
// back (the frames flow again).
class CrossHostVxlanNextHop : public CrossHostVxlanVeth {
 protected:
  CrossHostVxlanNextHop() { lan_ = true; }
};

TEST_F(CrossHostVxlanNextHop, TheLinkFollowsANewNextHopAndDropsWithoutOne) {
  const std::string p = plan("delay 1ms");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  EXPECT_EQ(ping(10).first, 10) << readFile(log("a"));
  // Mid-run: 60 pings over 3 s, the route moved to R2 after 1 s.
  std::pair<int, double> during{};
  std::thread pinger([&] { during = ping(60); });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_EQ(topo_->exec(a_, "ip route replace 198.18.20.0/24 via 198.18.10.3"), 0);
  pinger.join();
  // At most the frames of the moment the kernel resolves R2's MAC are lost.
  EXPECT_GE(during.first, 57) << readFile(log("a"));
  const std::string r2_mac = topo_->mac(r2_, "r2a");
  EXPECT_NE(readFile(log("a")).find("wire wa to host b: next hop now 198.18.10.3 (" + r2_mac +
                                    ")"),
            std::string::npos)
      << readFile(log("a"));
  // R2 forwards the link's frames now: its link to R carried them.
  const std::string r2_stats = topo_->execOutput(r2_, "cat /sys/class/net/r2r/statistics/tx_packets");
  EXPECT_GE(std::stoll(r2_stats), 10) << "R2 forwarded the link's frames";
  // No route to B: dropped and counted at A's link end, none sent.
  ASSERT_EQ(topo_->exec(a_, "ip route del 198.18.20.0/24"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(ping(10).first, 0);
  ASSERT_EQ(topo_->exec(a_, "ip route add 198.18.20.0/24 via 198.18.10.1"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(ping(10).first, 10) << readFile(log("a"));
  topo_->stop(pid_a_);
  pid_a_ = -1;
  const std::string fa = readFile(log("a"));
  EXPECT_NE(fa.find("host a: wire wa to 198.18.20.2: no route to the peer's underlay address"),
            std::string::npos)
      << fa;
  EXPECT_NE(fa.find("the links on wire wa are dropped (drop_wire_no_next_hop) until the "
                    "underlay reaches host b again"),
            std::string::npos)
      << fa;
  // The route removed; maybe also the moment R2's MAC was not known yet.
  EXPECT_GE(finalCounter(fa, "final wire wa", "next_hop_losses"), 1) << fa;
  EXPECT_LE(finalCounter(fa, "final wire wa", "next_hop_losses"), 2) << fa;
  EXPECT_EQ(finalCounter(fa, "final wire wa", "next_hop_up"), 1) << fa;
  EXPECT_GE(finalCounter(fa, "final wire wa", "next_hop_changes"), 2) << fa;
  EXPECT_GE(finalCounter(fa, "final wire wa", "drop_wire_no_next_hop"), 10) << fa;
}

}  // namespace
}  // namespace fastpath
