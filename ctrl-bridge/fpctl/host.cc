// SPDX-License-Identifier: GPL-2.0-only
// fpctl host: list, add, del — hosts fastpathd makes (a network namespace joined by a veth
// pair to a node).
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kHostHelp =
    R"(Usage: fpctl host list [--json]
       fpctl host add NAME NODE ADDRESS/LEN... [--gw GATEWAY]... [--mtu N]
       fpctl host del NAME

  A host is a network namespace "fp-NAME" that fastpathd makes and joins to node NODE by
  a veth pair: "eth0" inside (the addresses, up, default routes via the gateways, lo up),
  the other end ("fh-NAME", or "fh" + a hash of a NAME over 12 characters) a port of the
  node. Real programs run in it:
    ip netns exec fp-NAME ping 198.18.2.1
  fastpathd removes it on `host del`, when its node is deleted, when it stops, and at
  its next start when it was killed.

  list   every host: namespace, node, port, eth0's MAC and addresses
  add    ADDRESS/LEN: an address of eth0 with its prefix length (IPv4 or IPv6; at
         least one); --gw: a default route via GATEWAY on eth0 (one IPv4, one IPv6 at
         most); --mtu: eth0's and the port's MTU (default 1500)
  del    deletes the host: its port, the veth pair and the namespace

  NAME: 1 to 31 characters of letters, digits, '_', '.' and '-'.
  add and del need root, the socket's owner (fastpathd --socket-uid) or an allowed uid.
)";

int list(const Global& g, Session& s) {
  auto hs = s.client().hosts();
  if (!hs) return fail(hs.error(), true);
  if (g.json) {
    JsonWriter w;
    w.beginArray();
    for (const auto& h : hs.value()) {
      w.beginObject()
          .key("name").value(h.spec.name)
          .key("netns").value(h.netns)
          .key("node").value(h.spec.node)
          .key("port").value(h.port)
          .key("port_id").value(h.port_id)
          .key("mac").value(h.mac.toString())
          .key("mtu").value(h.spec.mtu)
          .key("addresses").beginArray();
      for (const auto& a : h.spec.addresses)
        w.value(a.address.toString() + "/" + std::to_string(a.length));
      w.endArray().key("gateways").beginArray();
      for (const auto& gw : h.spec.gateways) w.value(gw.toString());
      w.endArray().endObject();
    }
    w.endArray();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  std::printf("%-14s %-16s %-16s %-16s %-18s %s\n", "NAME", "NETNS", "NODE", "PORT", "MAC",
              "ADDRESSES");
  for (const auto& h : hs.value()) {
    std::string addrs;
    for (const auto& a : h.spec.addresses)
      addrs += (addrs.empty() ? "" : " ") + a.address.toString() + "/" + std::to_string(a.length);
    std::printf("%-14s %-16s %-16s %-16s %-18s %s\n", h.spec.name.c_str(), h.netns.c_str(),
                h.spec.node.c_str(), (h.port + " (" + std::to_string(h.port_id) + ")").c_str(),
                h.mac.toString().c_str(), addrs.c_str());
  }
  return kExitOk;
}

}  // namespace

int cmdHost(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kHostHelp);
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "list" || cmd == "ls" || cmd == "show") {
    if (!a.empty()) return usage("host list: unexpected argument '" + a[0] + "'", kHostHelp);
    if (int rc = s.connect(false)) return rc;
    return list(g, s);
  }
  if (cmd == "add" || cmd == "create") {
    HostSpec spec;
    std::string v;
    while (takeFlag(a, "--gw", &v)) {
      auto ip = IpAddress::parse(v);
      if (!ip) return usage("host add: --gw " + v + ": " + ip.error().message, kHostHelp);
      spec.gateways.push_back(*ip);
    }
    if (takeFlag(a, "--mtu", &v)) {
      char* end = nullptr;
      const unsigned long m = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end || m < 68 || m > 65535)
        return usage("host add: --mtu " + v + " is not 68..65535", kHostHelp);
      spec.mtu = uint32_t(m);
    }
    if (a.size() < 3) return usage("host add: expected NAME NODE ADDRESS/LEN...", kHostHelp);
    spec.name = a[0];
    spec.node = a[1];
    if (std::string why = nameProblem(a[1]); !why.empty())
      return usage("host add: " + why, kHostHelp);
    for (size_t i = 2; i < a.size(); ++i) {
      const auto slash = a[i].find('/');
      if (slash == std::string::npos)
        return usage("host add: " + a[i] + ": write ADDRESS/LEN (e.g. 198.18.1.2/24)", kHostHelp);
      auto ip = IpAddress::parse(a[i].substr(0, slash));
      if (!ip) return usage("host add: " + a[i] + ": " + ip.error().message, kHostHelp);
      char* end = nullptr;
      const std::string len = a[i].substr(slash + 1);
      const unsigned long l = std::strtoul(len.c_str(), &end, 10);
      const unsigned long max = ip->family == Family::kIpv4 ? 32 : 128;
      if (len.empty() || *end || l == 0 || l > max)
        return usage("host add: " + a[i] + ": LEN is 1.." + std::to_string(max), kHostHelp);
      spec.addresses.push_back(IpPrefix{*ip, uint8_t(l)});
    }
    if (int rc = s.connect(false)) return rc;
    auto h = s.client().createHost(spec);
    if (!h) return fail(h.error(), true);
    return printOk(g, "host " + spec.name + " added: namespace " + h->netns + ", port " + h->port +
                          " of node " + spec.node + ", eth0 " + h->mac.toString());
  }
  if (cmd == "del" || cmd == "delete") {
    if (a.size() != 1) return usage("host del: expected exactly one NAME", kHostHelp);
    if (int rc = s.connect(false)) return rc;
    if (auto st = s.client().deleteHost(a[0]); !st) return fail(st.error(), true);
    return printOk(g, "host " + a[0] + " deleted");
  }
  return usage("host: unknown command '" + cmd + "'", kHostHelp);
}

}  // namespace fastpath::ctrl::fpctl
