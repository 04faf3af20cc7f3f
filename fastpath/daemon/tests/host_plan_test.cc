// SPDX-License-Identifier: GPL-2.0-only
// One topology over several hosts: the part each host runs (its nodes, cross-host links on
// their wires with VLANs every host numbers alike), the placements refused with what to
// do, the MTU and delay budgets of a wire, the probes' summary and the clock offset as
// chrony and PTP report it. Nothing is touched.
#include <gtest/gtest.h>

#include <string>

#include "daemon/clock_offset.h"
#include "daemon/config.h"
#include "daemon/host_plan.h"
#include "daemon/wires.h"
#include "two_host_plan.h"

namespace fastpath {
namespace {

// r1 on a, r2 and r3 on b; r1-r2 and r1-r3 cross the wire a - b, r2-r3 stays on b. The
// messages below name its lines: r3 is on line 15, r1-r3 on line 23.
const std::string kTwoHosts = [] {
  testing::PlanLink r1r2 = testing::r1r2Link();
  r1r2.params = "rate 10mbit delay 5ms";
  r1r2.b_to_a = "loss 1%";
  return testing::twoHostsYaml() + "nodes:\n" + yaml(testing::r1OnHostA()) +
         "  - {name: r2, host: b}\n"
         "  - {name: r3, host: b}\n"
         "links:\n" +
         yaml(r1r2) +
         "  - {name: r2-r3, a: r2, b: r3}\n"
         "  - {name: r1-r3, a: r1, b: r3, vlan: 2}\n";
}();

Topology parsed(const std::string& text) {
  auto t = parseTopologyText(text, "t.yaml");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : Topology{};
}

std::string problems(const std::string& text) {
  auto t = parseTopologyText(text, "t.yaml");
  return t.ok() ? "" : t.error().message;
}

TEST(HostPlan, EachHostKeepsItsNodesAndMakesItsEndOfEveryCrossHostLink) {
  const Topology t = parsed(kTwoHosts);
  auto a = planForHost(t, "a", "r7");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->local.nodes.size(), 1u);
  EXPECT_EQ(a->local.nodes[0].spec.name, "r1");
  EXPECT_TRUE(a->local.links.empty());
  ASSERT_EQ(a->cross.size(), 2u);
  const CrossHostLink& x = a->cross[0];
  EXPECT_EQ(x.name, "r1-r2");
  EXPECT_EQ(x.end, 'a') << "r1, on host a, is the link's end a";
  EXPECT_EQ(x.vlan, 3) << "2 is r1-r3's, given in the file";
  EXPECT_EQ(a->cross[1].vlan, 2);
  EXPECT_EQ(x.device, "fpwr7-3");
  EXPECT_EQ(wireLinkEndName("r7", 3), "fpxr7-3");
  EXPECT_EQ(x.wire, "wa");
  EXPECT_EQ(x.peer_host, "b");
  EXPECT_EQ(x.mac.toString(), "02:00:00:00:01:01");
  EXPECT_EQ(x.peer_mac.toString(), "02:00:00:00:01:02");
  EXPECT_EQ(x.egress.delay_ns, 5000000u);
  EXPECT_EQ(x.egress.loss, 0) << "a sends a_to_b";
  // The node's port is the link's device: its routes and neighbours follow.
  const TopologyNode& r1 = a->local.nodes[0];
  EXPECT_EQ(r1.interfaces, (std::vector<std::string>{"fa0", "fpwr7-3", "fpwr7-2"}));
  EXPECT_EQ(r1.routes[0].dev, "fpwr7-3");
  EXPECT_EQ(r1.neighbours[0].dev, "fpwr7-3");
  EXPECT_TRUE(validateTopology(a->local, "a").ok());

  auto b = planForHost(t, "b", "r7");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->local.nodes.size(), 2u);
  ASSERT_EQ(b->local.links.size(), 1u);
  EXPECT_EQ(b->local.links[0].spec.name, "r2-r3");
  ASSERT_EQ(b->cross.size(), 2u);
  EXPECT_EQ(b->cross[0].vlan, 3) << "every host numbers the VLANs alike";
  EXPECT_EQ(b->cross[0].wire, "wb");
  EXPECT_EQ(b->cross[0].end, 'b');
  EXPECT_DOUBLE_EQ(b->cross[0].egress.loss, 0.01) << "b sends b_to_a";
  // Ends without a MAC get the same one on both hosts.
  EXPECT_EQ(a->cross[1].mac, b->cross[1].peer_mac);
  EXPECT_EQ(a->cross[1].peer_mac, b->cross[1].mac);
  EXPECT_EQ(a->cross[1].mac, crossLinkMac("r1-r3", 'a'));
  EXPECT_EQ(a->cross[1].mac.bytes[0] & 3, 2) << "locally administered unicast";
}

TEST(HostPlan, WithoutHostsEverythingIsLocal) {
  Topology t = parsed("nodes: [{name: r1}, {name: r2}]\nlinks: [{name: l, a: r1, b: r2}]\n");
  auto p = planForHost(t, "local", "run");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->local.nodes.size(), 2u);
  EXPECT_EQ(p->local.links.size(), 1u);
  EXPECT_TRUE(p->cross.empty());
  auto named = planForHost(t, "a", "run");
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.error().message.find("declares no 'hosts:'"), std::string::npos);
}

TEST(HostPlan, AnUnknownHostNameIsRefused) {
  auto p = planForHost(parsed(kTwoHosts), "c", "run");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "--host-name c is not one of the topology's hosts (a, b)");
}

TEST(HostPlan, BadPlacementsAreRefusedWithTheirLine) {
  std::string t = kTwoHosts;
  t.replace(t.find("{name: r3, host: b}"), 19, "{name: r3, host: c}");
  EXPECT_NE(problems(t).find("t.yaml:15: node r3: host 'c' is not declared under 'hosts:' "
                             "(declared: a, b): add it or correct the name"),
            std::string::npos)
      << problems(t);
  EXPECT_NE(problems("nodes: [{name: r1, host: x}]\n")
                .find("node r1: host 'x' is not declared under 'hosts:': add it"),
            std::string::npos);
  std::string no_host = kTwoHosts;
  no_host.replace(no_host.find("{name: r2, host: b}"), 19, "{name: r2}");
  EXPECT_NE(problems(no_host).find("node r2 has no host: with 'hosts:' every node names its "
                                   "host (one of a, b)"),
            std::string::npos)
      << problems(no_host);
  std::string one_way = kTwoHosts;
  one_way.replace(one_way.find("    wires: [{peer: a, interface: wb}]\n"), 38, "");
  EXPECT_NE(problems(one_way).find("host a: wire to b: host b declares no wire to a"),
            std::string::npos)
      << problems(one_way);
  EXPECT_NE(problems(one_way).find("link r1-r2 joins hosts a and b, which have no wire"),
            std::string::npos);
  std::string same_vlan = kTwoHosts;
  same_vlan.replace(same_vlan.find("    params: \"rate"), 0, "    vlan: 2\n");
  EXPECT_NE(problems(same_vlan).find("vlan 2 is link r1-r2's on the wire a - b: one VLAN per link"),
            std::string::npos)
      << problems(same_vlan);
  std::string seg = kTwoHosts;
  seg += "segments: [{name: lan, ports: [r1, r2]}]\n";
  EXPECT_NE(problems(seg).find("segment lan has ports on hosts a, b: a segment is emulated by "
                               "one host"),
            std::string::npos)
      << problems(seg);
}

TEST(HostPlan, CommandLineKeepsTheNamedHostsPart) {
  const std::string path = "/tmp/fp-host-plan-" + std::to_string(getpid()) + ".yaml";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_TRUE(f);
  fputs(kTwoHosts.c_str(), f);
  fclose(f);
  std::vector<std::string> args = {"fastpathd", "--topology", path, "--host-name", "b",
                                   "--run-tag", "x1"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  auto c = parseCommandLine(int(argv.size()), argv.data());
  unlink(path.c_str());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->topology.nodes.size(), 2u);
  ASSERT_EQ(c->cross_links.size(), 2u);
  EXPECT_EQ(c->cross_links[0].device, "fpwx1-3");
  EXPECT_TRUE(validateConfig(*c).ok());
  args[6] = "Bad-Tag";
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_FALSE(parseCommandLine(int(argv.size()), argv.data()).ok());
  EXPECT_FALSE(validateRunTag("toolong").ok());
  EXPECT_TRUE(validateRunTag("ci42").ok());
}

TEST(WireBudget, MtuAboveTheWiresAndDelayBelowItsLatencyAreRefused) {
  auto plan = planForHost(parsed(kTwoHosts), "a", "run");
  ASSERT_TRUE(plan.ok());
  std::vector<CrossHostLink> links = plan->cross;  // r1-r2 delay 5 ms, r1-r3 none
  WireLatency wire;
  wire.one_way_ns = 40000;
  wire.jitter_ns = 9000;
  auto st = checkCrossLinks(links, {{"wa", 1500}}, {{"wa", wire}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "link r1-r3 (line 23, VLAN 2 on wire wa to host b): delay 0us is below the wire's "
            "one-way latency 40us (measured, jitter 9us): give the link at least that delay or "
            "put both ends on one host");
  links.pop_back();
  EXPECT_TRUE(checkCrossLinks(links, {{"wa", 1500}}, {{"wa", wire}}).ok());
  links[0].mtu = 9000;
  st = checkCrossLinks(links, {{"wa", 1500}}, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("mtu 9000 is more than the wire carries (1500; 802.1Q adds 4 "
                                    "bytes a frame"),
            std::string::npos)
      << st.error().message;
  // The sender emulates what the wire does not: 5 ms less its 40 us.
  EXPECT_EQ(senderParams(links[0], wire).delay_ns, 5000000u - 40000u);
  EXPECT_EQ(senderParams(links[0], wire).rate_bps, 10000000u);
}

TEST(WireBudget, ProbesAreSummarisedAsOneWayFigures) {
  std::vector<uint64_t> rtt;
  for (uint64_t i = 0; i < 11; ++i) rtt.push_back(20000 + i * 1000);  // 20 .. 30 us
  WireLatency w = summariseRoundTrips(rtt);
  EXPECT_EQ(w.samples, 11u);
  EXPECT_EQ(w.min_ns, 10000u);
  EXPECT_EQ(w.one_way_ns, 12500u);
  EXPECT_EQ(w.jitter_ns, (29000u - 21000u) / 2);
  EXPECT_EQ(summariseRoundTrips({}).samples, 0u);
}

TEST(ClockOffsetTest, ChronyAndPtpAnswersAndTheirAbsence) {
  ClockOffset c = parseChronyTracking(
      "C0A80101,192.168.1.1,3,1764200000.123,-0.000012345,-0.000001,0.000020,-3.1,0.01,0.05,"
      "0.001,0.002,64.0,Normal\n");
  EXPECT_TRUE(c.known);
  EXPECT_EQ(c.text(), "-12 us (chrony)");
  c = parseChronyTracking("00000000,,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Not synchronised\n");
  EXPECT_FALSE(c.known);
  EXPECT_EQ(c.text(), "unknown (chrony has no reference)");
  EXPECT_FALSE(parseChronyTracking("506 Cannot talk to daemon\n").known);
  c = parsePmcTimeStatus(
      "sending: GET TIME_STATUS_NP\n\t001122.fffe.334455-0 seq 0 RESPONSE MANAGEMENT "
      "TIME_STATUS_NP\n\t\tmaster_offset              -850\n\t\tingress_time               0\n"
      "\t\tgmPresent                  true\n");
  EXPECT_TRUE(c.known);
  EXPECT_NEAR(c.offset_s, -850e-9, 1e-12);
  EXPECT_FALSE(parsePmcTimeStatus("\t\tmaster_offset 0\n\t\tgmPresent false\n").known);
  EXPECT_FALSE(readClockOffset().source.empty());
}

}  // namespace
}  // namespace fastpath
