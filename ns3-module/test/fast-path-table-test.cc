// SPDX-License-Identifier: GPL-2.0-only
// FastPathTable: diffs compose to the table, lookups take the longest prefix, IPv4 and IPv6
// stay apart.
#include "fast-path-route-mirror-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::route_mirror_test;

TEST(FastPathTableTest, DiffComposesAndLookupIsLongestPrefix)
{
    FastPathTable a;
    a.Add(R("198.18.1.0/24", "", 0));
    a.Add(R("198.18.9.0/24", "198.18.1.1", 0));
    FastPathTable b;
    b.Add(R("198.18.1.0/24", "", 0));
    b.Add(R("198.18.9.0/24", "198.18.2.2", 1)); // changed
    b.Add(R("198.18.9.7/32", "198.18.1.1", 0)); // new
    b.Add(R("198.18.3.0/24", "", 1));           // new
    fastpath::RouteBatch d = FastPathTable::Diff(a, b);
    EXPECT_EQ(d.add.size(), 3u);
    EXPECT_EQ(d.remove.size(), 0u);
    FastPathTable c = a;
    c.Apply(d);
    EXPECT_EQ(FastPathTable::Diff(c, b).add.size(), 0u);
    fastpath::RouteBatch back = FastPathTable::Diff(b, a);
    EXPECT_EQ(back.remove.size(), 2u);
    EXPECT_EQ(back.add.size(), 1u);
    ASSERT_NE(b.Lookup(Ipv4Address("198.18.9.7")), nullptr);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.18.9.7"))->prefix.length, 32);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.18.9.8"))->prefix.length, 24);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.19.0.1")), nullptr);
}

TEST(FastPathTableTest, Ipv6DiffAndLookupAndFamiliesStayApart)
{
    FastPathTable a;
    a.Add(R("2001:2:0:1::/64", "", 0));
    a.Add(R("2001:2:0:20::/64", "2001:2:0:2::2", 1));
    a.Add(R("198.18.0.0/16", "", 2)); // same leading bytes as c612::/16 below
    FastPathTable b = a;
    b.Add(R("2001:2:0:20::/64", "fe80::2", 1)); // changed next hop
    b.Add(R("2001:2:0:20::7/128", "", 0));      // new host route
    b.Add(R("c612::/16", "", 3));               // IPv6, not the IPv4 /16
    b.Remove(R("2001:2:0:1::/64", "", 0).prefix);
    fastpath::RouteBatch d = FastPathTable::Diff(a, b);
    EXPECT_EQ(d.add.size(), 3u);
    ASSERT_EQ(d.remove.size(), 1u);
    EXPECT_EQ(d.remove[0].toString(), "2001:2:0:1::/64");
    FastPathTable c = a;
    c.Apply(d);
    EXPECT_TRUE(FastPathTable::Diff(c, b).add.empty());
    EXPECT_TRUE(FastPathTable::Diff(c, b).remove.empty());
    EXPECT_EQ(c.Size(), 4u);
    EXPECT_TRUE(Has(c, R("198.18.0.0/16", "", 2)));
    EXPECT_TRUE(Has(c, R("c612::/16", "", 3)));
    // Longest prefix within the family; host bits of added prefixes are cleared.
    ASSERT_NE(c.Lookup(Ipv6Address("2001:2:0:20::7")), nullptr);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:20::7"))->prefix.length, 128);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:20::8"))->prefix.length, 64);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:1::1")), nullptr);
    EXPECT_EQ(c.Lookup(Ipv4Address("198.18.3.3"))->port, 2u);
    EXPECT_EQ(c.Lookup(Ipv6Address("c612::1"))->port, 3u);
    c.Add(R("2001:2:0:40::/62", "", 1));
    ASSERT_NE(c.Find(Ipv6Address("2001:2:0:43::"), 62), nullptr);
    EXPECT_EQ(c.Find(Ipv6Address("2001:2:0:43::"), 62)->prefix.toString(), "2001:2:0:40::/62");

    FastPathNeighbours n1;
    FastPathNeighbours n2;
    fastpath::Neighbour v6{fastpath::IpAddress::parse("fe80::2").value(), 1, {}};
    v6.mac.bytes = {2, 0, 0, 0, 0, 2};
    n2.Add(v6);
    v6.port = 0; // the same link-local address on another port is another neighbour
    n2.Add(v6);
    std::vector<fastpath::Neighbour> add;
    std::vector<fastpath::Neighbour> remove;
    FastPathNeighbours::Diff(n1, n2, add, remove);
    EXPECT_EQ(add.size(), 2u);
    EXPECT_TRUE(remove.empty());
}
