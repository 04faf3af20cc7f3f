// SPDX-License-Identifier: GPL-2.0-only
// VXLAN wires over the control socket (protocol 1.11): a declaration's VXLAN fields
// validated field by field and carried both ways unchanged, the state's wires with their
// underlay, and a client that refuses a VXLAN wire against an older fastpathd (which would
// drop the field unseen and make the wire 802.1Q) naming both versions.
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "fastpath/control_types.h"
#include "fastpath/ctrl/client.h"
#include "older_server.h"
#include "wire_multihost.h"

namespace fastpath::ctrl {
namespace {

IpAddress ip(const char* text) { return *IpAddress::parse(text); }

MultiHostDeclaration vxlanDeclaration() {
  MultiHostDeclaration d;
  d.host = "a";
  d.run_tag = "exp1";
  d.wires = {{"b", "eth2"}, {"c", "eth3"}};
  d.vxlan["eth2"] = WireVxlan{ip("198.18.10.2"), ip("198.18.20.2"), 4790};
  return d;
}

TEST(MultiHostVxlanWire, ADeclarationsVxlanWireTravelsBothWaysUnchanged) {
  v1::MultiHostDeclare w;
  toWire(vxlanDeclaration(), &w);
  ASSERT_TRUE(w.wires(0).has_vxlan());
  EXPECT_FALSE(w.wires(1).has_vxlan());  // eth3 stays 802.1Q
  auto back = multiHostDeclarationFromWire(w, "multi_host_declare");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->vxlan.size(), 1u);
  EXPECT_TRUE(back->vxlan.at("eth2") == vxlanDeclaration().vxlan.at("eth2"));
  EXPECT_EQ(back->wires, vxlanDeclaration().wires);

  // Port 0 on the wire is RFC 7348's 4789.
  w.mutable_wires(0)->mutable_vxlan()->set_port(0);
  back = multiHostDeclarationFromWire(w, "multi_host_declare");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->vxlan.at("eth2").port, 4789);
}

TEST(MultiHostVxlanWire, AVxlanWireIsValidatedFieldByField) {
  struct Case {
    std::function<void(v1::MultiHostVxlan&)> spoil;
    std::string field, says;
  };
  auto v4 = [](v1::IpAddress* a, const char* text) {
    a->set_bytes(std::string(reinterpret_cast<const char*>(ip(text).bytes.data()), 4));
  };
  const std::string f = "multi_host_declare.wires[0].vxlan";
  const std::vector<Case> cases = {
      {[](auto& v) { v.clear_underlay(); }, f + ".underlay", "0 address bytes"},
      {[](auto& v) { v.mutable_peer_underlay()->set_bytes(std::string(16, '\1')); },
       f + ".peer_underlay", "is no unicast IPv4 address"},
      {[&](auto& v) { v4(v.mutable_underlay(), "127.0.0.1"); }, f + ".underlay",
       "127.0.0.1 is no unicast IPv4 address"},
      {[&](auto& v) { v4(v.mutable_peer_underlay(), "239.1.2.3"); }, f + ".peer_underlay",
       "239.1.2.3 is no unicast IPv4 address"},
      {[&](auto& v) { v4(v.mutable_peer_underlay(), "198.18.10.2"); }, f + ".peer_underlay",
       "is this host's own underlay address (198.18.10.2)"},
      {[](auto& v) { v.set_port(65535); }, f + ".port", "65535 is outside 1..65534"},
  };
  for (const auto& c : cases) {
    v1::MultiHostDeclare w;
    toWire(vxlanDeclaration(), &w);
    c.spoil(*w.mutable_wires(0)->mutable_vxlan());
    auto r = multiHostDeclarationFromWire(w, "multi_host_declare");
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().code, v1::INVALID_ARGUMENT) << c.field;
    EXPECT_EQ(r.error().field, c.field) << r.error().message;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
}

TEST(MultiHostVxlanWire, TheStatesWiresCarryTheirUnderlay) {
  MultiHostInfo in;
  in.host = "a";
  in.run_tag = "exp1";
  in.wires.push_back({"b", "eth2", 1600, 25000, 13000, 28000, 50, std::nullopt});
  in.wires[0].vxlan = WireVxlan{ip("198.18.10.2"), ip("198.18.20.2"), 4789};
  in.wires.push_back({"c", "eth3", 1500, 7000, 6000, 14000, 50, std::nullopt});
  v1::MultiHostState w;
  toWire(in, &w);
  auto out = multiHostFromReply(w);
  ASSERT_EQ(out.wires.size(), 2u);
  ASSERT_TRUE(out.wires[0].vxlan.has_value());
  EXPECT_TRUE(*out.wires[0].vxlan == *in.wires[0].vxlan);
  EXPECT_EQ(out.wires[0].mtu, 1600u);
  EXPECT_FALSE(out.wires[1].vxlan.has_value());
}

TEST(MultiHostVxlanWire, AVxlanWireIsRefusedByTheClientAgainstAnOlderServer) {
  testing::OlderServer server(10);
  ASSERT_FALSE(server.path().empty());
  {
    auto c = Client::connect(server.path());
    ASSERT_TRUE(c) << c.error().message;
    auto m = (*c)->declareMultiHost(vxlanDeclaration());
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, -EPROTONOSUPPORT);
    const std::string both = "needs protocol 1.11 (this client speaks 1." +
                             std::to_string(kProtocolMinor) + "); fastpathd speaks 1.10";
    EXPECT_NE(m.error().message.find("multi_host_declare: a VXLAN wire (eth2, 198.18.10.2 -> "
                                     "198.18.20.2) " + both),
              std::string::npos)
        << m.error().message;
    EXPECT_NE(m.error().message.find("make it an 802.1Q wire"), std::string::npos);
    // The same host with 802.1Q wires only is what a 1.10 server knows: sent.
    MultiHostDeclaration vlan = vxlanDeclaration();
    vlan.vxlan.clear();
    EXPECT_TRUE((*c)->declareMultiHost(vlan)) << "an 802.1Q declaration is for any 1.7 server";
  }
  int declares = 0;
  for (const auto& r : server.requests()) {
    if (!r.has_multi_host_declare()) continue;
    ++declares;
    for (const auto& w : r.multi_host_declare().wires()) EXPECT_FALSE(w.has_vxlan());
  }
  EXPECT_EQ(declares, 1) << "the VXLAN declaration never left the client";
}

}  // namespace
}  // namespace fastpath::ctrl
