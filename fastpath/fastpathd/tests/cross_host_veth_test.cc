// SPDX-License-Identifier: GPL-2.0-only
// Two "hosts" on one machine: namespaces A and B, each with its own fastpathd, joined by a
// veth pair standing for the wire (wa - wb). Router r1 runs on A and faces end host S,
// router r2 on B faces end host D; link r1-r2 crosses the wire on its own 802.1Q VLAN.
//
//   S --fa0-- [A: r1] ==wa~~~wire~~~wb== [B: r2] --fb0-- D
//
// Checked: ping S -> D over the link, with the link's delay applied at each sender (the
// wire's measured latency taken off); hostile input on the wire (foreign VLANs, a foreign
// source, truncated tags, untagged frames, a flood) dropped and counted while the link
// goes on; placements refused (a node on an undeclared host, a delay below the wire's
// latency, an MTU the wire cannot carry); a killed fastpathd's objects removed by the
// next run with the same tag, another tag's left alone. And the same link made over the
// control socket (fpctl multihost: declare the hosts and wires, one link end on each host)
// on daemons started without `hosts:`, with its refusals, and its changes (a new delay
// for the direction a host sends, an end taken down and up) followed by that host.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "daemon_log.h"
#include "netns.h"
#include "two_host_plan.h"

namespace fastpath {
namespace {

using testing::Topology;

using testing::finalCounter;
using testing::readFile;

class CrossHostVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("xh");
    a_ = topo_->addNamespace("a");
    b_ = topo_->addNamespace("b");
    s_ = topo_->addNamespace("s");
    d_ = topo_->addNamespace("d");
    topo_->addVeth(a_, "wa", b_, "wb");
    topo_->addVeth(a_, "fa0", s_, "eth0");
    topo_->addVeth(b_, "fb0", d_, "eth0");
    // One command per exec: exec prefixes only the first word with the namespace.
    for (auto [ns, ip, gw, gw_mac] :
         {std::tuple{s_, "198.18.1.2/24", "198.18.1.1", topo_->mac(a_, "fa0")},
          std::tuple{d_, "198.18.2.2/24", "198.18.2.1", topo_->mac(b_, "fb0")}}) {
      ASSERT_EQ(topo_->exec(ns, std::string("ip addr add ") + ip + " dev eth0"), 0);
      ASSERT_EQ(topo_->exec(ns, std::string("ip route add default via ") + gw + " dev eth0"), 0);
      ASSERT_EQ(topo_->exec(ns, std::string("ip neigh add ") + gw + " lladdr " + gw_mac +
                                    " dev eth0"),
                0);
    }
    dir_ = "/tmp/fp-xh-" + std::to_string(getpid());
    mkdir(dir_.c_str(), 0755);
  }
  void TearDown() override {
    for (pid_t p : {pid_a_, pid_b_})
      if (p > 0) topo_->stop(p);
    topo_.reset();
    if (!dir_.empty()) testing::sh("rm -rf " + dir_);
  }

  /// The scenario's plan (two_host_plan.h): r1 and r2 also route to their end hosts S and
  /// D, link r1-r2 has VLAN 42, `link_params` and `link_mtu`; r2 on `r2_host`.
  std::string plan(const std::string& link_params, int link_mtu = 1500,
                   const std::string& r2_host = "b") {
    testing::PlanNode r1 = testing::r1OnHostA();
    r1.routes.push_back("{prefix: 198.18.1.0/24, dev: fa0}");
    r1.neighbours.push_back("{ip: 198.18.1.2, mac: \"" + topo_->mac(s_, "eth0") + "\", dev: fa0}");
    testing::PlanNode r2 = testing::r2OnHostB();
    r2.host = r2_host;
    r2.routes.push_back("{prefix: 198.18.2.0/24, dev: fb0}");
    r2.neighbours.push_back("{ip: 198.18.2.2, mac: \"" + topo_->mac(d_, "eth0") + "\", dev: fb0}");
    testing::PlanLink link = testing::r1r2Link();
    link.vlan = 42;
    link.a.mtu = link.b.mtu = link_mtu;
    link.params = link_params;
    const std::string path = dir_ + "/plan.yaml";
    std::ofstream(path) << testing::twoHostsYaml() << "nodes:\n"
                        << yaml(r1) << yaml(r2) << "links:\n"
                        << yaml(link);
    return path;
  }

  pid_t start(const std::string& ns, const std::string& host, const std::string& plan_path,
              const std::string& tag = "ci") {
    return topo_->spawn(ns,
                        {FASTPATHD_PATH, "--topology", plan_path, "--host-name", host,
                         "--run-tag", tag, "--socket", dir_ + "/" + host + ".sock", "--no-tune",
                         "--wire-wait", "5000", "--cores", host == "a" ? "0" : "1"},
                        log(host));
  }
  std::string log(const std::string& host) const { return dir_ + "/" + host + ".log"; }

  /// Waits until both daemons forward (their control sockets exist) or one has died.
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

  /// ping S -> D: replies received and the shortest round trip (ms), -1 if none (the
  /// shortest: the machine is shared, a busy moment lengthens the others).
  std::pair<int, double> ping(int count, const std::string& extra = "") {
    const std::string out = topo_->execOutput(
        s_, "ping -q -c " + std::to_string(count) + " -i 0.05 -W 1 " + extra + " 198.18.2.2");
    std::smatch m;
    int received = 0;
    double avg = -1;
    if (std::regex_search(out, m, std::regex("([0-9]+) received"))) received = std::stoi(m[1]);
    if (std::regex_search(out, m, std::regex("= ([0-9.]+)/"))) avg = std::stod(m[1]);
    return {received, avg};
  }

  /// Exit status of a daemon that must stop by itself.
  int exitStatus(pid_t pid) {
    int status = 0;
    for (int i = 0; i < 300; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -2;
  }

  /// A plan without hosts: node `router` with `iface` facing `host_ip`'s /24.
  std::string localPlan(const std::string& host, const std::string& router,
                        const std::string& iface, const std::string& net, const std::string& mac) {
    const std::string path = dir_ + "/" + host + "-local.yaml";
    std::ofstream(path) << "nodes:\n"
                        << yaml(testing::PlanNode{
                               router, "", {iface},
                               {"{prefix: " + net + ".0/24, dev: " + iface + "}"},
                               {"{ip: " + net + ".2, mac: \"" + mac + "\", dev: " + iface + "}"}});
    return path;
  }
  pid_t startLocal(const std::string& ns, const std::string& host, const std::string& plan_path) {
    return topo_->spawn(ns,
                        {FASTPATHD_PATH, "--topology", plan_path, "--socket",
                         dir_ + "/" + host + ".sock", "--no-tune", "--cores",
                         host == "a" ? "0" : "1"},
                        log(host));
  }
  /// fpctl on host `host`'s daemon: exit status, output in *out.
  int fpctl(const std::string& host, const std::string& args, std::string* out = nullptr) {
    const std::string o = dir_ + "/fpctl-" + host + ".out";
    const int rc = testing::sh(std::string(FPCTL_PATH) + " --socket " + dir_ + "/" + host +
                               ".sock " + args + " >" + o + " 2>&1");
    if (out) *out = readFile(o);
    return rc;
  }

  std::unique_ptr<Topology> topo_;
  std::string a_, b_, s_, d_, dir_;
  pid_t pid_a_ = -1, pid_b_ = -1;
};

TEST_F(CrossHostVeth, PingCrossesTheWireWithTheLinksDelayAppliedAtTheSender) {
  const std::string p = plan("delay 5ms");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  auto [received, min_ms] = ping(20);
  EXPECT_EQ(received, 20) << readFile(log("a"));
  // 5 ms each way, the wire's latency inside it: not less, and not 0.8 ms more (the rest
  // is the four AF_XDP hops of the routers' ports).
  EXPECT_GT(min_ms, 9.9);
  EXPECT_LT(min_ms, 10.8);
  const std::string la = readFile(log("a"));
  EXPECT_NE(la.find("wire wa to host b: one-way latency"), std::string::npos) << la;
  EXPECT_NE(la.find("port fpwci-42 egress: rate unlimited delay 4."), std::string::npos) << la;
  topo_->stop(pid_a_);
  pid_a_ = -1;
  const std::string fa = readFile(log("a"));
  EXPECT_GE(finalCounter(fa, "final wire wa", "pass_wire_link"), 20) << fa;
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 2>/dev/null"), 1)
      << "a clean stop removes the link's veth pair";
}

TEST_F(CrossHostVeth, HostileFramesOnTheWireAreDroppedAndCountedWhileTheLinkGoesOn) {
  const std::string p = plan("delay 1ms");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  // From B's side of the wire: foreign VLANs, VLAN 42 from a foreign source, cut tags,
  // untagged frames, then a flood of foreign VLANs while S pings D.
  const std::string py = R"(import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("wb", 0))
dst = bytes.fromhex("020000000101")
peer = bytes.fromhex("020000000102")
foreign = bytes.fromhex("02000000beef")
body = bytes.fromhex("0800") + bytes(46)
def tag(vid): return bytes.fromhex("8100") + vid.to_bytes(2, "big")
n = int(sys.argv[1])
for i in range(300): s.send(dst + peer + tag(77) + body)
for i in range(200): s.send(dst + foreign + tag(42) + body)
for i in range(100): s.send(dst + peer + bytes.fromhex("8100002a"))
for i in range(150): s.send(dst + peer + body)
for i in range(n): s.send(dst + foreign + tag(1000 + i % 3000) + body)
)";
  std::ofstream(dir_ + "/hostile.py") << py;
  std::thread flood([&] { topo_->exec(b_, "/usr/bin/python3 " + dir_ + "/hostile.py 50000"); });
  auto [received, min_ms] = ping(20);
  flood.join();
  EXPECT_EQ(received, 20) << "the link goes on under the flood";
  EXPECT_LT(min_ms, 4.0);
  topo_->stop(pid_a_);
  pid_a_ = -1;
  const std::string la = readFile(log("a"));
  EXPECT_EQ(finalCounter(la, "final wire wa", "drop_wire_foreign_tag"), 300 + 50000) << la;
  EXPECT_EQ(finalCounter(la, "final wire wa", "drop_wire_foreign_host"), 200) << la;
  EXPECT_EQ(finalCounter(la, "final wire wa", "drop_truncated"), 100) << la;
  EXPECT_GE(finalCounter(la, "final wire wa", "drop_wire_untagged"), 150) << la;
  EXPECT_GE(finalCounter(la, "final wire wa", "pass_wire_link"), 20) << la;
}

TEST_F(CrossHostVeth, BadPlacementsAreRefusedSayingWhy) {
  // A node on a host the plan does not declare: refused before anything is touched.
  pid_a_ = start(a_, "a", plan("delay 5ms", 1500, "c"));
  EXPECT_EQ(exitStatus(pid_a_), 2);
  pid_a_ = -1;
  EXPECT_NE(readFile(log("a")).find("node r2: host 'c' is not declared under 'hosts:' "
                                    "(declared: a, b)"),
            std::string::npos)
      << readFile(log("a"));
  // An MTU the wire (1500) cannot carry: refused before waiting for the peer.
  pid_a_ = start(a_, "a", plan("delay 5ms", 9000));
  EXPECT_EQ(exitStatus(pid_a_), 1);
  pid_a_ = -1;
  EXPECT_NE(readFile(log("a")).find("link r1-r2 (line 26, VLAN 42 on wire wa to host b): mtu "
                                    "9000 is more than the wire carries (1500"),
            std::string::npos)
      << readFile(log("a"));
  // A delay below the wire's measured latency: both daemons measure, both refuse.
  const std::string p = plan("delay 1us");
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  EXPECT_EQ(exitStatus(pid_a_), 1);
  EXPECT_EQ(exitStatus(pid_b_), 1);
  pid_a_ = pid_b_ = -1;
  EXPECT_NE(readFile(log("a")).find("delay 1us is below the wire's one-way latency"),
            std::string::npos)
      << readFile(log("a"));
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 2>/dev/null"), 1)
      << "a refused start leaves nothing";
}

TEST_F(CrossHostVeth, AKilledRunsObjectsAreRemovedByTheNextRunWithItsTag) {
  const std::string p = plan("delay 1ms");
  // Another run's interface in A: not ours to remove.
  ASSERT_EQ(topo_->exec(a_, "ip link add fpwother-7 type veth peer name fpxother-7"), 0);
  ASSERT_EQ(topo_->exec(a_, "ip link set fpwother-7 alias 'fastpathd run other'"), 0);
  pid_a_ = start(a_, "a", p);
  pid_b_ = start(b_, "b", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  kill(pid_a_, SIGKILL);
  topo_->stop(pid_a_);
  unlink((dir_ + "/a.sock").c_str());
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 >/dev/null"), 0) << "left by the killed run";
  EXPECT_NE(topo_->execOutput(a_, "ip link show wa").find("xdp"), std::string::npos);
  pid_a_ = start(a_, "a", p);
  ASSERT_TRUE(bothForwarding()) << readFile(log("a"));
  const std::string la = readFile(log("a"));
  EXPECT_NE(la.find("run tag ci: removed 1 interface(s) an earlier run left"), std::string::npos)
      << la;
  EXPECT_EQ(ping(10).first, 10) << la;
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwother-7 >/dev/null"), 0) << "another tag's stays";
}

TEST_F(CrossHostVeth, ALinkMadeOverTheControlSocketCrossesTheWire) {
  pid_a_ = startLocal(a_, "a", localPlan("a", "r1", "fa0", "198.18.1", topo_->mac(s_, "eth0")));
  pid_b_ = startLocal(b_, "b", localPlan("b", "r2", "fb0", "198.18.2", topo_->mac(d_, "eth0")));
  ASSERT_TRUE(bothForwarding()) << readFile(log("a")) << readFile(log("b"));
  std::string out;
  // Before a declaration: no run, and a link is refused saying what to do.
  EXPECT_NE(fpctl("a", "multihost link add r1-r2 r1 b --vlan 42 delay 5ms", &out), 0) << out;
  EXPECT_NE(out.find("no run over several hosts is declared on this fastpathd"),
            std::string::npos)
      << out;
  // Each daemon measures its wire once the other answers: both declarations at once.
  std::string out_b;
  std::thread tb([&] { fpctl("b", "multihost declare b --wire a=wb --tag ci --wait 5000", &out_b); });
  ASSERT_EQ(fpctl("a", "multihost declare a --wire b=wa --tag ci --wait 5000", &out), 0) << out;
  tb.join();
  EXPECT_NE(out.find("host a declared, run tag ci: wa to b (latency"), std::string::npos) << out;
  EXPECT_NE(out_b.find("host b declared"), std::string::npos) << out_b;
  // Refused: a peer without a wire; a delay below the wire's latency; a VLAN out of range.
  EXPECT_NE(fpctl("a", "multihost link add r1-r3 r1 c --vlan 43 delay 5ms", &out), 0);
  EXPECT_NE(out.find("link r1-r3: no wire to host c (host a has wires to: b)"), std::string::npos)
      << out;
  EXPECT_NE(fpctl("a", "multihost link add r1-r2 r1 b --vlan 42 delay 1us", &out), 0);
  EXPECT_NE(out.find("delay 1us is below the wire's one-way latency"), std::string::npos) << out;
  EXPECT_NE(fpctl("a", "multihost link add r1-r2 r1 b --vlan 4095 delay 5ms", &out), 0);
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 2>/dev/null"), 1) << "a refusal leaves nothing";
  // The link: end a on host a, end b on host b, 5 ms each way applied at each sender.
  ASSERT_EQ(fpctl("a", "multihost link add r1-r2 r1 b --vlan 42 delay 5ms", &out), 0) << out;
  EXPECT_NE(out.find("port fpwci-42 of node r1, VLAN 42 on wire wa to host b"), std::string::npos)
      << out;
  ASSERT_EQ(fpctl("b", "multihost link add r1-r2 r2 a --vlan 42 --end b delay 5ms", &out), 0)
      << out;
  // Each router: the route over the link, and its peer's MAC (the other end's, as shown).
  for (auto [host, node, net, peer_ip] : {std::tuple{"a", "r1", "198.18.2.0/24", "198.18.100.2"},
                                          std::tuple{"b", "r2", "198.18.1.0/24", "198.18.100.1"}}) {
    ASSERT_EQ(fpctl(host, "--json multihost", &out), 0) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex("\"peer_mac\":\"([0-9a-f:]+)\"")))
        << out;
    const std::string peer_mac = m[1];
    ASSERT_EQ(fpctl(host, std::string("--node ") + node + " neigh add " + peer_ip + " lladdr " +
                              peer_mac + " dev fpwci-42", &out), 0) << out;
    ASSERT_EQ(fpctl(host, std::string("--node ") + node + " route add " + net + " via " +
                              peer_ip + " dev fpwci-42", &out), 0) << out;
  }
  auto [received, min_ms] = ping(20);
  EXPECT_EQ(received, 20) << readFile(log("a")) << readFile(log("b"));
  EXPECT_GT(min_ms, 9.9);
  EXPECT_LT(min_ms, 10.8);
  // fpctl shows the wire as measured and the link as configured and applied.
  ASSERT_EQ(fpctl("a", "multihost", &out), 0) << out;
  EXPECT_NE(out.find("host a, run tag ci"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\nb +wa +1500 +[0-9]+us"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("r1-r2 +r1 +fpwci-42 \\([0-9]+\\) +42 +b +1500 +"
                                                "delay 5ms -> delay 4\\.")))
      << out;
  // Changes follow by the link's name on each host: host a's fastpathd sends a to b, so a
  // new delay there lengthens that direction only (10 + 5 ms).
  ASSERT_EQ(fpctl("a", "link set r1-r2 delay 10ms", &out), 0) << out;
  ASSERT_EQ(fpctl("a", "multihost", &out), 0) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("r1-r2 .* delay 10ms -> delay 9\\."))) << out;
  std::tie(received, min_ms) = ping(10);
  EXPECT_EQ(received, 10);
  EXPECT_GT(min_ms, 14.9);
  EXPECT_LT(min_ms, 15.8);
  // The other direction is host b's to set; a delay the wire cannot give is refused and the
  // link keeps its parameters.
  EXPECT_NE(fpctl("a", "link set r1-r2 b-to-a delay 1ms", &out), 0);
  EXPECT_NE(out.find("direction b to a is emulated by host b's fastpathd (the sender's); set it "
                     "there"),
            std::string::npos)
      << out;
  EXPECT_NE(fpctl("b", "link set r1-r2 delay 1us", &out), 0);
  EXPECT_NE(out.find("delay 1us is below the wire's one-way latency"), std::string::npos) << out;
  EXPECT_NE(out.find("the link keeps its parameters"), std::string::npos) << out;
  // An end taken down: nothing crosses (host b's end stays up), and it comes back.
  ASSERT_EQ(fpctl("a", "link set r1-r2 down", &out), 0) << out;
  ASSERT_EQ(fpctl("a", "--json multihost", &out), 0) << out;
  EXPECT_NE(out.find("\"up\":false"), std::string::npos) << out;
  EXPECT_EQ(ping(3).first, 0);
  ASSERT_EQ(fpctl("a", "link set r1-r2 up", &out), 0) << out;
  EXPECT_GE(ping(10).first, 9) << readFile(log("a"));
  // A second declaration while the link exists is refused; deleting the link removes its
  // veth pair; the daemon's stop removes the rest.
  EXPECT_NE(fpctl("a", "multihost declare a --wire b=wa --tag other", &out), 0);
  EXPECT_NE(out.find("has 1 cross-host link(s); delete them first"), std::string::npos) << out;
  ASSERT_EQ(fpctl("a", "multihost link del r1-r2", &out), 0) << out;
  EXPECT_EQ(topo_->exec(a_, "ip link show fpwci-42 2>/dev/null"), 1);
  topo_->stop(pid_b_);
  pid_b_ = -1;
  EXPECT_EQ(topo_->exec(b_, "ip link show fpwci-42 2>/dev/null"), 1);
  EXPECT_EQ(topo_->execOutput(b_, "ip link show wb").find("xdp"), std::string::npos);
}

}  // namespace
}  // namespace fastpath
