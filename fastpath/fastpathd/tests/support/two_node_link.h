// SPDX-License-Identifier: GPL-2.0-only
// The daemon configuration of S -- [n1 =link= n2] -- D, which the link emulation tests and
// the link fidelity benchmark both drive: two nodes in one fastpathd, n1 on interface fp0
// (towards S), n2 on fp1 (towards D), one internal link between them; n1 routes D's network
// over the link, n2 delivers it to D on fp1. Static neighbours only (no ARP at R). The caller
// adds what its run needs (cores, priorities, ring sizes, log level).
#pragma once

#include <string>

#include "daemon/config.h"

namespace fastpath::testing {

struct TwoNodeLink {
  std::string link = "l1";
  MacAddress a_mac;  ///< n1's end of the link
  MacAddress b_mac;  ///< n2's end of the link
  IpAddress via;     ///< n1's next hop on the link (n2's end)
  IpPrefix dst;      ///< D's network
  IpAddress d_ip;    ///< D's address on fp1's veth
  MacAddress d_mac;
  std::string control_socket;
};

inline Config twoNodeLinkConfig(const TwoNodeLink& t) {
  Config c;
  c.topology.nodes.resize(2);
  auto& n1 = c.topology.nodes[0];
  auto& n2 = c.topology.nodes[1];
  n1.spec.name = "n1";
  n1.interfaces = {"fp0"};
  n2.spec.name = "n2";
  n2.interfaces = {"fp1"};
  RouteConfig over_link;
  over_link.prefix = t.dst;
  over_link.via = t.via;
  over_link.dev = t.link;
  n1.routes = {over_link};
  n1.neighbours = {NeighbourConfig{t.via, t.b_mac, t.link}};
  RouteConfig to_d;
  to_d.prefix = t.dst;
  to_d.dev = "fp1";
  n2.routes = {to_d};
  n2.neighbours = {NeighbourConfig{t.d_ip, t.d_mac, "fp1"}};
  c.topology.links.resize(1);
  LinkSpec& l = c.topology.links[0].spec;
  l.name = t.link;
  l.a = LinkEndSpec{"n1", t.link, t.a_mac, 1500};
  l.b = LinkEndSpec{"n2", t.link, t.b_mac, 1500};
  c.control_socket = t.control_socket;
  return c;
}

}  // namespace fastpath::testing
