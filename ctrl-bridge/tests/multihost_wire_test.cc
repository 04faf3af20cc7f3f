// SPDX-License-Identifier: GPL-2.0-only
// A run over several hosts on the wire (protocol 1.7): declarations and cross-host link
// ends validated field by field (every refusal names its field), and the state carried
// unchanged from the server's domain values to the client's.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "fastpath/control_types.h"
#include "wire_multihost.h"

namespace fastpath::ctrl {
namespace {

v1::MultiHostDeclare declaration() {
  v1::MultiHostDeclare d;
  d.set_host("a");
  d.set_run_tag("exp1");
  auto* w = d.add_wires();
  w->set_peer_host("b");
  w->set_ifname("eth1");
  return d;
}

v1::MultiHostCreateLink crossLink() {
  v1::MultiHostCreateLink l;
  l.set_name("r1-r2");
  l.set_node("r1");
  l.set_end("a");
  l.set_vlan(42);
  l.set_peer_host("b");
  l.mutable_egress()->set_delay_ns(5000000);
  return l;
}

TEST(MultiHostWire, ADeclarationIsValidatedFieldByField) {
  auto ok = multiHostDeclarationFromWire(declaration(), "multi_host_declare");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->host, "a");
  EXPECT_EQ(ok->run_tag, "exp1");
  ASSERT_EQ(ok->wires.size(), 1u);
  EXPECT_EQ(ok->wires[0], (std::pair<std::string, std::string>{"b", "eth1"}));

  struct Case {
    std::function<void(v1::MultiHostDeclare&)> spoil;
    std::string field, says;
  };
  const std::vector<Case> cases = {
      {[](auto& d) { d.set_host(""); }, "multi_host_declare.host", "host name '' is not valid"},
      {[](auto& d) { d.set_run_tag("Exp1"); }, "multi_host_declare.run_tag", "no run tag"},
      {[](auto& d) { d.set_run_tag("toolong"); }, "multi_host_declare.run_tag", "1 to 6 of a-z"},
      {[](auto& d) { d.clear_wires(); }, "multi_host_declare.wires", "0 wires: give 1 to 64"},
      {[](auto& d) { d.mutable_wires(0)->set_peer_host("a"); },
       "multi_host_declare.wires[0].peer_host", "is this host (a)"},
      {[](auto& d) { *d.add_wires() = d.wires(0); }, "multi_host_declare.wires[1].peer_host",
       "a second wire to host b"},
      {[](auto& d) { d.mutable_wires(0)->set_ifname("eth/1"); },
       "multi_host_declare.wires[0].ifname", "interface name 'eth/1' is not valid"},
      {[](auto& d) { d.set_wait_ms(600001); }, "multi_host_declare.wait_ms", "10 minutes"},
  };
  for (const auto& c : cases) {
    v1::MultiHostDeclare d = declaration();
    c.spoil(d);
    auto r = multiHostDeclarationFromWire(d, "multi_host_declare");
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().code, v1::INVALID_ARGUMENT);
    EXPECT_EQ(r.error().field, c.field);
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
}

TEST(MultiHostWire, ACrossHostLinkEndIsValidatedFieldByField) {
  auto ok = crossLinkSpecFromWire(crossLink(), "multi_host_create_link");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->end, 'a');
  EXPECT_EQ(ok->vlan, 42);
  EXPECT_EQ(ok->mtu, 1500u) << "0 is 1500";
  EXPECT_TRUE(ok->mac.isZero()) << "empty: derived from the link's name by fastpathd";
  EXPECT_EQ(ok->egress.delay_ns, 5000000u);

  struct Case {
    std::function<void(v1::MultiHostCreateLink&)> spoil;
    std::string field, says;
  };
  const std::vector<Case> cases = {
      {[](auto& l) { l.set_name("a b"); }, "multi_host_create_link.name", "has ' ' at offset 1"},
      {[](auto& l) { l.set_node(""); }, "multi_host_create_link.node", "empty node name"},
      {[](auto& l) { l.set_peer_host("b/c"); }, "multi_host_create_link.peer_host", "not valid"},
      {[](auto& l) { l.set_end("c"); }, "multi_host_create_link.end", "\"a\" or \"b\""},
      {[](auto& l) { l.set_vlan(1); }, "multi_host_create_link.vlan", "outside 2..4094"},
      {[](auto& l) { l.set_vlan(4095); }, "multi_host_create_link.vlan", "outside 2..4094"},
      {[](auto& l) { l.set_mtu(67); }, "multi_host_create_link.mtu", "outside 68..65535"},
      {[](auto& l) { l.set_mac(std::string("\x01\x00\x00\x00\x00\x01", 6)); },
       "multi_host_create_link.mac", "multicast"},
      {[](auto& l) { l.set_peer_mac("abc"); }, "multi_host_create_link.peer_mac", "3 bytes"},
  };
  for (const auto& c : cases) {
    v1::MultiHostCreateLink l = crossLink();
    c.spoil(l);
    auto r = crossLinkSpecFromWire(l, "multi_host_create_link");
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().field, c.field) << r.error().message;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
}

TEST(MultiHostWire, TheStateTravelsUnchanged) {
  MultiHostInfo in;
  in.host = "a";
  in.run_tag = "exp1";
  in.wires.push_back({"b", "eth1", 1500, 9000, 7000, 4000, 50});
  CrossLinkInfo l;
  l.spec.name = "r1-r2";
  l.spec.node = "r1";
  l.spec.mac = *MacAddress::parse("02:00:00:00:01:01");
  l.spec.peer_mac = *MacAddress::parse("02:00:00:00:01:02");
  l.spec.mtu = 1400;
  l.spec.vlan = 42;
  l.spec.peer_host = "b";
  l.spec.egress.delay_ns = 5000000;
  l.port = "fpwexp1-42";
  l.port_id = 3;
  l.wire = "eth1";
  l.applied.delay_ns = 4991000;
  in.links.push_back(l);
  l.spec.name = "r1-r3";
  l.up = false;
  in.links.push_back(l);
  in.clock_known = true;
  in.clock_offset_ns = -12345;
  in.clock_source = "chrony";
  v1::MultiHostState w;
  toWire(in, &w);
  const MultiHostInfo out = multiHostFromReply(w);
  EXPECT_EQ(out.host, "a");
  EXPECT_EQ(out.run_tag, "exp1");
  ASSERT_EQ(out.wires.size(), 1u);
  EXPECT_EQ(out.wires[0].latency_ns, 9000u);
  EXPECT_EQ(out.wires[0].probes, 50u);
  ASSERT_EQ(out.links.size(), 2u);
  EXPECT_EQ(out.links[0].spec.peer_mac, l.spec.peer_mac);
  EXPECT_EQ(out.links[0].spec.vlan, 42);
  EXPECT_EQ(out.links[0].port_id, 3u);
  EXPECT_EQ(out.links[0].applied.delay_ns, 4991000u);
  EXPECT_FALSE(out.links[0].from_topology);
  EXPECT_TRUE(out.links[0].up);
  EXPECT_FALSE(out.links[1].up);
  // A negative offset keeps its sign.
  EXPECT_TRUE(out.clock_known);
  EXPECT_EQ(out.clock_offset_ns, -12345);
  EXPECT_EQ(out.clock_source, "chrony");
}

TEST(MultiHostWire, AStateWithoutTheLaterFieldsReadsAsUpAndClockUnknown) {
  // What a 1.7 or 1.8 server sends: no port state, no clock.
  v1::MultiHostState w;
  w.set_host("a");
  w.add_links()->set_name("r1-r2");
  const MultiHostInfo out = multiHostFromReply(w);
  ASSERT_EQ(out.links.size(), 1u);
  EXPECT_TRUE(out.links[0].up);
  EXPECT_FALSE(out.clock_known);
  EXPECT_TRUE(out.clock_source.empty());
}

}  // namespace
}  // namespace fastpath::ctrl
