// SPDX-License-Identifier: GPL-2.0-only
// VXLAN wires in a topology over several hosts: what each host's part carries (the wire's
// underlay addresses and port, a VNI per link numbered as VLANs are), the wires and links
// refused with their reason, and the MTU budget (the link's MTU + 50 within the wire's).
// Nothing is touched.
#include <gtest/gtest.h>

#include <string>

#include "daemon/config.h"
#include "daemon/host_plan.h"
#include "daemon/wires.h"
#include "fastpath/classifier.h"
#include "two_host_plan.h"

namespace fastpath {
namespace {

std::string hosts(const std::string& a_wire, const std::string& b_wire) {
  return "hosts:\n"
         "  - name: a\n"
         "    wires: [{peer: b, interface: wa" + a_wire + "}]\n"
         "  - name: b\n"
         "    wires: [{peer: a, interface: wb" + b_wire + "}]\n";
}

const std::string kA = ", encap: vxlan, underlay: 198.18.10.2, peer_underlay: 198.18.20.2";
const std::string kB = ", encap: vxlan, underlay: 198.18.20.2, peer_underlay: 198.18.10.2";

// r1 on a, r2 and r3 on b; r1-r2 and r1-r3 cross (r1-r3 with VNI 2, given).
std::string plan(const std::string& hosts_yaml, const std::string& r1r3 = "vni: 2") {
  return hosts_yaml + "nodes:\n" + yaml(testing::r1OnHostA()) +
         "  - {name: r2, host: b}\n"
         "  - {name: r3, host: b}\n"
         "links:\n" +
         yaml(testing::r1r2Link()) + "  - {name: r1-r3, a: r1, b: r3" +
         (r1r3.empty() ? "" : ", " + r1r3) + "}\n";
}

std::string problems(const std::string& text) {
  auto t = parseTopologyText(text, "t.yaml");
  return t.ok() ? "" : t.error().message;
}

TEST(VxlanPlan, EachEndCarriesTheWiresUnderlayAndAVniPerLink) {
  auto t = parseTopologyText(plan(hosts(kA, kB + ", port: 8472")), "t.yaml");
  ASSERT_FALSE(t.ok()) << "the port differs at the two ends";
  EXPECT_NE(t.error().message.find("do not match host a's wire"), std::string::npos)
      << t.error().message;
  t = parseTopologyText(plan(hosts(kA + ", port: 8472", kB + ", port: 8472")), "t.yaml");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto a = planForHost(*t, "a", "ci");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->cross.size(), 2u);
  const CrossHostLink& x = a->cross[0];
  EXPECT_EQ(x.encap.kind, WireEncap::kVxlan);
  EXPECT_EQ(x.encap.underlay.toString(), "198.18.10.2");
  EXPECT_EQ(x.encap.peer_underlay.toString(), "198.18.20.2");
  EXPECT_EQ(x.encap.port, 8472);
  EXPECT_EQ(x.vlan, 3) << "VNIs numbered as VLANs: 2 is r1-r3's";
  EXPECT_EQ(a->cross[1].vlan, 2);
  auto b = planForHost(*t, "b", "ci");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->cross[0].encap.underlay.toString(), "198.18.20.2");
  EXPECT_EQ(b->cross[0].vlan, 3) << "every host numbers alike";
}

TEST(VxlanPlan, BadWiresAndLinksAreRefusedSayingWhy) {
  EXPECT_NE(problems(plan(hosts(", encap: gre", ""))).find(
                "wire encap 'gre': use vlan (802.1Q on a shared segment) or vxlan"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(", encap: vxlan", kB)))
                .find("host a: wire to b: VXLAN needs underlay, a unicast IPv4 address (none "
                      "given): this host's on wa"),
            std::string::npos)
      << problems(plan(hosts(", encap: vxlan", kB)));
  EXPECT_NE(problems(plan(hosts(", encap: vxlan, underlay: 2001:2::1, peer_underlay: 198.18.20.2",
                                kB)))
                .find("VXLAN needs underlay, a unicast IPv4 address (2001:2::1)"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(", encap: vxlan, underlay: 224.0.0.1, peer_underlay: 198.18.20.2",
                                kB)))
                .find("(224.0.0.1)"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(", encap: vxlan, underlay: 198.18.10.2, peer_underlay: 198.18.10.2",
                                kB)))
                .find("underlay and peer_underlay are both 198.18.10.2"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(kA, "")))
                .find("host a: wire to b is VXLAN, host b's wire to a is 802.1Q: give both ends "
                      "the same encap"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(", underlay: 198.18.10.2", "")))
                .find("underlay, peer_underlay and port are for 'encap: vxlan'"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(kA + ", port: 0", kB)))
                .find("wire port must be 1..65534 (the wire's probes use port + 1)"),
            std::string::npos);
  // The probes' port would not exist.
  EXPECT_NE(problems(plan(hosts(kA + ", port: 65535", kB)))
                .find("wire port must be an integer 0..65534, not '65535'"),
            std::string::npos)
      << problems(plan(hosts(kA + ", port: 65535", kB)));
  // A link's number named for the other encapsulation, or twice.
  EXPECT_NE(problems(plan(hosts(kA, kB), "vlan: 2"))
                .find("link r1-r3: vlan on the wire a - b, which is VXLAN: write vni"),
            std::string::npos)
      << problems(plan(hosts(kA, kB), "vlan: 2"));
  EXPECT_NE(problems(plan(hosts("", ""), "vni: 2"))
                .find("link r1-r3: vni on the wire a - b, which is 802.1Q: write vlan"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(kA, kB), "vni: 2, vlan: 3")).find("vlan and vni: give one"),
            std::string::npos);
  EXPECT_NE(problems(plan(hosts(kA, kB), "vni: 5000")).find("vni must be an integer 0..4094"),
            std::string::npos);
  EXPECT_EQ(problems(plan(hosts(kA, kB))), "");
}

TEST(VxlanPlan, TheLinksMtuPlusVxlansFiftyBytesMustFitTheWire) {
  auto t = parseTopologyText(plan(hosts(kA, kB)), "t.yaml");
  ASSERT_TRUE(t.ok());
  auto a = planForHost(*t, "a", "ci");
  ASSERT_TRUE(a.ok());
  std::vector<CrossHostLink> links = a->cross;  // mtu 1500 each
  EXPECT_TRUE(checkCrossLinks(links, {{"wa", 1550}}, {}).ok()) << "1500 + 50 fits 1550";
  auto st = checkCrossLinks(links, {{"wa", 1500}}, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(
                "link r1-r2 (line 17, VNI 3 on wire wa to host b): mtu 1500 + 50 bytes of VXLAN "
                "(outer Ethernet, IPv4, UDP, VXLAN headers) = 1550 is more than the wire's mtu "
                "1500 (the underlay must not fragment it): give the link an mtu of at most 1450 "
                "or raise the wire's mtu (and the underlay's) to 1550"),
            std::string::npos)
      << st.error().message;
}

TEST(VxlanPlan, TheOuterHeaderTemplateIsRfc7348s) {
  MacAddress wire{{2, 0, 0, 0, 0, 0xa}}, hop{{2, 0, 0, 0, 0, 0xb}};
  const uint32_t src = IpAddress::parse("198.18.10.2")->v4NetworkOrder();
  const uint32_t dst = IpAddress::parse("198.18.20.2")->v4NetworkOrder();
  const auto h = vxlanOuterHeader(wire, hop, src, dst, 4789, 0x123456);
  EXPECT_EQ(h[0], 2);
  EXPECT_EQ(h[5], 0xb) << "to the next hop";
  EXPECT_EQ(h[11], 0xa) << "from the wire";
  EXPECT_EQ(h[12], 0x08);
  EXPECT_EQ(h[14], 0x45);
  EXPECT_EQ(h[20], 0x40) << "DF";
  EXPECT_EQ(h[22], 64) << "TTL";
  EXPECT_EQ(h[23], 17) << "UDP";
  // The checksum over the header with a total length of 0 sums to 0xffff.
  uint32_t sum = 0;
  for (int i = 14; i < 34; i += 2) sum += uint32_t(h[size_t(i)] << 8 | h[size_t(i) + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffu);
  EXPECT_EQ(h[36] << 8 | h[37], 4789);
  EXPECT_EQ(h[42], 0x08) << "I flag";
  EXPECT_EQ(h[46] << 16 | h[47] << 8 | h[48], 0x123456);
  EXPECT_EQ(h[49], 0);
}

}  // namespace
}  // namespace fastpath
