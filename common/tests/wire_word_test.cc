// SPDX-License-Identifier: GPL-2.0-only
// A host's wire as fpctl and the ns-3 hosts file write it: 802.1Q and VXLAN words, written
// back as read, and every malformed word refused saying what is wrong.
#include "fastpath/wire_word.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fastpath {
namespace {

TEST(WireWord, AnEthernetWireIsPeerAndInterface) {
  auto w = parseWireWord("b=eth1");
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(w->peer, "b");
  EXPECT_EQ(w->ifname, "eth1");
  EXPECT_FALSE(w->vxlan.has_value());
  auto v = parseWireWord("b=eth1,encap=vlan");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_FALSE(v->vxlan.has_value());
}

TEST(WireWord, AVxlanWireCarriesItsUnderlayAndPort) {
  auto w = parseWireWord("b=eth2,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.20.2");
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_TRUE(w->vxlan.has_value());
  EXPECT_EQ(w->vxlan->underlay.toString(), "198.18.10.2");
  EXPECT_EQ(w->vxlan->peer_underlay.toString(), "198.18.20.2");
  EXPECT_EQ(w->vxlan->port, 4789);
  // Keys in any order, a port of its own; written back as read.
  auto p = parseWireWord("b=eth2,port=8472,peer_underlay=198.18.20.2,underlay=198.18.10.2,"
                         "encap=vxlan");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->vxlan->port, 8472);
  EXPECT_EQ(formatWireWord(*p),
            "b=eth2,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.20.2,port=8472");
  auto again = parseWireWord(formatWireWord(*p));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(*again->vxlan == *p->vxlan);
}

TEST(WireWord, MalformedWordsAreRefusedSayingWhy) {
  const std::string vx = "b=eth2,encap=vxlan,underlay=198.18.10.2";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"b", "'b' is no wire: write PEER=INTERFACE"},
      {"=eth1", "'=eth1' is no wire"},
      {"b:1=eth1", "peer host name 'b:1' is not valid"},
      {"b=", "interface name '' is not valid"},
      {"b=this-name-is-too-long", "interface name 'this-name-is-too-long' is not valid"},
      {"b=eth2,vxlan", "'vxlan' is no KEY=VALUE"},
      {"b=eth2,encap=gre", "encap gre is neither vlan (802.1Q) nor vxlan"},
      {"b=eth2,encap=vlan,underlay=198.18.10.2", "underlay, peer_underlay and port are for "
                                                 "encap=vxlan"},
      {"b=eth2,underlay=198.18.10.2,peer_underlay=198.18.20.2", "are for encap=vxlan"},
      {vx, "VXLAN needs peer_underlay"},
      {"b=eth2,encap=vxlan,peer_underlay=198.18.20.2", "VXLAN needs underlay"},
      {vx + ",peer_underlay=2001:2::1", "peer_underlay 2001:2::1 is no unicast IPv4 address"},
      {vx + ",peer_underlay=224.0.0.5", "peer_underlay 224.0.0.5 is no unicast IPv4 address"},
      {vx + ",peer_underlay=198.18.10.2", "underlay and peer_underlay are both 198.18.10.2"},
      {vx + ",peer_underlay=198.18.20.2,port=0", "port 0 is outside 1..65534"},
      {vx + ",peer_underlay=198.18.20.2,port=65535", "port 65535 is outside 1..65534 (the "
                                                     "wire's probes use port + 1)"},
      {vx + ",peer_underlay=198.18.20.2,port=4789x", "port 4789x is outside"},
      {vx + ",peer_underlay=198.18.20.2,ttl=3", "unknown key ttl"},
      {vx + ",underlay=198.18.10.3", "underlay given twice"},
  };
  for (const auto& [word, says] : bad) {
    auto w = parseWireWord(word);
    ASSERT_FALSE(w) << word;
    EXPECT_EQ(w.error().code, -EINVAL) << word;
    EXPECT_NE(w.error().message.find(says), std::string::npos)
        << word << ": " << w.error().message;
  }
}

}  // namespace
}  // namespace fastpath
