// SPDX-License-Identifier: GPL-2.0-only
// Network's bookkeeping without a daemon: link port ids (fresh, reused, exhausted),
// generated MACs (unique, never one a port has), and which ports are attached.
#include "daemon/network.h"

#include <gtest/gtest.h>

namespace fastpath {
namespace {

LinkPort portWithMac(const MacAddress& mac, const std::string& node) {
  LinkPort lp;
  lp.info.mac = mac;
  lp.info.node = node;
  return lp;
}

TEST(Network, LinkPortIdsAreFreshThenReusedThenExhausted) {
  Network net;
  auto a = net.takeLinkPortId();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, kFirstLinkPort);
  // An id held by a port being made is not handed out twice.
  auto b = net.takeLinkPortId({*a});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, kFirstLinkPort + 1);
  net.link_ports[*a] = portWithMac(MacAddress{}, "n1");
  net.link_ports[*b] = portWithMac(MacAddress{}, "n2");
  // A freed id comes back first.
  net.free_link_ports.push_back(*a);
  auto c = net.takeLinkPortId();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, *a);
  // Every id in use: an error that says what to do.
  for (PortId id = kFirstLinkPort; id < kMaxPorts; ++id) net.link_ports[id] = LinkPort{};
  auto none = net.takeLinkPortId();
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("delete links or segments first"), std::string::npos);
}

TEST(Network, GeneratedMacsAreLocalUnicastAndUnused) {
  Network net;
  const MacAddress first = net.nextLinkMac({});
  EXPECT_EQ(first.bytes[0], 0x02);  // locally administered, unicast
  EXPECT_EQ(first.bytes[1], 0x66);
  EXPECT_EQ(first.bytes[2], 0x70);
  // The next one a port already has is skipped, and so is one the caller is about to use.
  MacAddress taken = first;
  taken.bytes[5] = uint8_t(first.bytes[5] + 1);
  net.link_ports[kFirstLinkPort] = portWithMac(taken, "n1");
  EXPECT_TRUE(net.linkMacInUse(taken));
  MacAddress reserved = first;
  reserved.bytes[5] = uint8_t(first.bytes[5] + 2);
  const MacAddress next = net.nextLinkMac({reserved});
  EXPECT_NE(next, first);
  EXPECT_NE(next, taken);
  EXPECT_NE(next, reserved);
  EXPECT_FALSE(net.linkMacInUse(next));
}

TEST(Network, PortsAreAttachedWhileTheirSlotHoldsOne) {
  Network net;
  net.ports.resize(2);
  net.ports[1] = std::make_unique<InterfacePort>();
  EXPECT_FALSE(net.portAttached(0));  // a detached port's id
  EXPECT_TRUE(net.portAttached(1));
  EXPECT_FALSE(net.portAttached(7));
  net.link_ports[kFirstLinkPort] = portWithMac(MacAddress{}, "n3");
  EXPECT_EQ(net.portNodeName(kFirstLinkPort), "n3");
  EXPECT_EQ(net.portNodeName(0), "");
  EXPECT_EQ(net.portNodeName(kFirstLinkPort + 1), "");
  net.clear();
  EXPECT_FALSE(net.portAttached(1));
}

}  // namespace
}  // namespace fastpath
