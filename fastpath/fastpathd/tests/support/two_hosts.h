// SPDX-License-Identifier: GPL-2.0-only
// Two nodes joined by a link, with a host on each, made through a running fastpathd's
// control socket: the set-up of the veth tests that send real traffic between hosts
// across an internal link.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "fastpath/ctrl/client.h"
#include "netns.h"

namespace fastpath::testing {

/// Nodes r1 - r2 (link l1) and a host on each: host[0] "<tag>a" 198.18.1.2/24 on r1,
/// host[1] "<tag>b" 198.18.2.2/24 on r2; static routes and neighbours in the nodes and for
/// the gateways (no control plane answers ARP here). `fastpathd_ns`: fastpathd's
/// namespace (where the hosts' ports are). Call through ASSERT_NO_FATAL_FAILURE.
inline void twoNodesTwoHosts(ctrl::Client& client, Topology& topo, const std::string& fastpathd_ns,
                             const std::string& tag, HostInfo host[2]) {
  ASSERT_TRUE(client.createNode(NodeSpec{"r1", "local"}).ok());
  ASSERT_TRUE(client.createNode(NodeSpec{"r2", "local"}).ok());
  LinkSpec l;
  l.name = "l1";
  l.a.node = "r1";
  l.b.node = "r2";
  ASSERT_TRUE(client.createLink(l).ok());
  for (int i = 0; i < 2; ++i) {
    HostSpec h;
    h.name = tag + (i ? "b" : "a");
    h.node = i ? "r2" : "r1";
    h.addresses = {*IpPrefix::parse(i ? "198.18.2.2/32" : "198.18.1.2/32")};
    h.addresses[0].length = 24;
    h.gateways = {*IpAddress::parse(i ? "198.18.2.1" : "198.18.1.1")};
    auto made = client.createHost(h);
    ASSERT_TRUE(made.ok()) << made.error().message;
    host[i] = *made;
  }
  auto links = client.links();
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links->size(), 1u);
  const MacAddress r1_l1 = (*links)[0].a.mac, r2_l1 = (*links)[0].b.mac;
  auto ip = [](const char* s) { return *IpAddress::parse(s); };
  auto pfx = [](const char* s) { return *IpPrefix::parse(s); };
  auto portOf = [&](const std::string& node, const std::string& name) {
    auto ps = client.ports(node);
    if (ps)
      for (const auto& p : *ps)
        if (p.ifname == name) return p.id;
    ADD_FAILURE() << "no port " << name << " in node " << node;
    return PortId(0);
  };
  const PortId a_port = portOf("r1", host[0].port), b_port = portOf("r2", host[1].port);
  const PortId r1_link = portOf("r1", "l1"), r2_link = portOf("r2", "l1");
  ASSERT_TRUE(client.addNeighbour(Neighbour{ip("198.18.1.2"), a_port, host[0].mac}, "r1").ok());
  ASSERT_TRUE(client.addNeighbour(Neighbour{ip("198.18.0.2"), r1_link, r2_l1}, "r1").ok());
  ASSERT_TRUE(client.addNeighbour(Neighbour{ip("198.18.2.2"), b_port, host[1].mac}, "r2").ok());
  ASSERT_TRUE(client.addNeighbour(Neighbour{ip("198.18.0.1"), r2_link, r1_l1}, "r2").ok());
  RouteBatch b1, b2;
  b1.add = {Route{pfx("198.18.1.0/24"), {}, a_port, 0},
            Route{pfx("198.18.2.0/24"), ip("198.18.0.2"), r1_link, 0}};
  b2.add = {Route{pfx("198.18.2.0/24"), {}, b_port, 0},
            Route{pfx("198.18.1.0/24"), ip("198.18.0.1"), r2_link, 0}};
  ASSERT_TRUE(client.applyRoutes(b1, "r1").ok());
  ASSERT_TRUE(client.applyRoutes(b2, "r2").ok());
  for (int i = 0; i < 2; ++i) {
    const std::string gw = i ? "198.18.2.1" : "198.18.1.1";
    ASSERT_EQ(topo.exec(host[i].netns, "ip neigh replace " + gw + " lladdr " +
                                           topo.mac(fastpathd_ns, host[i].port) + " dev eth0"),
              0);
  }
}

}  // namespace fastpath::testing
