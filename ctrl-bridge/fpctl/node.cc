// SPDX-License-Identifier: GPL-2.0-only
// fpctl node: list, show, add, del — fastpathd's nodes (forwarding contexts).
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kNodeHelp =
    R"(Usage: fpctl node list [--json]
       fpctl node show NAME [--json]
       fpctl node add NAME [--host HOST]
       fpctl node del NAME
       fpctl node attach NAME IFNAME
       fpctl node detach NAME IFNAME

  A node is one forwarding context of fastpathd: its own routes, neighbours, ports,
  control rules, control channels, route leases and counters. Every fastpathd has the
  node "default" (its --port interfaces); links (`fpctl link`) join nodes. The other
  objects act on one node: `fpctl --node NAME route show`.

  list   every node: id, host, worker, number of ports, routes and neighbours
  show   one node with its ports (interface ports, and link ports with their link)
  add    creates an empty node; --host names the machine that runs it (default local)
  del    deletes a node with its links, its hosts (`fpctl host`) and the interfaces
         attached to it at run time; the default node, and a node with interface ports
         from fastpathd's start (--port, topology file), cannot be deleted
  attach makes interface IFNAME of fastpathd's network namespace a port of node NAME
         while fastpathd runs: classifier attached, AF_XDP sockets, tuning; the node's
         clients get a port up event (`fpctl --node NAME ports` shows the port)
  detach takes the interface port back: routes and neighbours through it go, frames
         queued for it are dropped (counted), settings restored, XDP detached; its final
         counters are in fastpathd's log

  NAME: 1 to 31 characters of letters, digits, '_', '.' and '-'.
  add, del, attach and detach need root, the socket's owner (fastpathd --socket-uid) or an allowed uid
  (exit status 4 otherwise); an unknown node is exit status 1.
)";

void nodeJson(JsonWriter& w, const NodeInfo& n) {
  w.key("name")
      .value(n.name)
      .key("host")
      .value(n.host)
      .key("id")
      .value(n.id)
      .key("worker")
      .value(n.worker)
      .key("routes")
      .value(static_cast<uint64_t>(n.routes))
      .key("neighbours")
      .value(static_cast<uint64_t>(n.neighbours));
}

int list(const Global& g, Session& s) {
  auto ns = s.client().nodes();
  if (!ns) return fail(ns.error(), true);
  if (g.json) {
    JsonWriter w;
    w.beginArray();
    for (const auto& n : ns.value()) {
      w.beginObject();
      nodeJson(w, n);
      w.key("ports").beginArray();
      for (PortId p : n.ports) w.value(p);
      w.endArray().endObject();
    }
    w.endArray();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  std::printf("%-16s %-5s %-16s %-6s %-6s %-8s %s\n", "NAME", "ID", "HOST", "WORKER", "PORTS",
              "ROUTES", "NEIGHBOURS");
  for (const auto& n : ns.value())
    std::printf("%-16s %-5u %-16s %-6u %-6zu %-8zu %zu\n", n.name.c_str(), n.id, n.host.c_str(),
                n.worker, n.ports.size(), n.routes, n.neighbours);
  return kExitOk;
}

int show(const Global& g, Session& s, const std::string& name) {
  auto ns = s.client().nodes();
  if (!ns) return fail(ns.error(), true);
  const NodeInfo* found = nullptr;
  std::string known;
  for (const auto& n : ns.value()) {
    if (n.name == name) found = &n;
    known += (known.empty() ? "" : ", ") + n.name;
  }
  if (!found)
    return fail(makeError(-ENOENT, "no node '" + name + "' (fastpathd has: " + known + ")"), true);
  auto ps = s.client().ports(found->name);
  if (!ps) return fail(ps.error(), true);
  if (g.json) {
    JsonWriter w;
    w.beginObject();
    nodeJson(w, *found);
    w.key("ports").beginArray();
    for (const auto& p : ps.value()) portJson(w, p, PortJsonFields::kNodeShow);
    w.endArray().endObject();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  std::printf("node %s id %u host %s worker %u\n", found->name.c_str(), found->id,
              found->host.c_str(), found->worker);
  std::printf("  routes %zu neighbours %zu\n", found->routes, found->neighbours);
  for (const auto& p : ps.value()) {
    std::printf("  port %u %s %s mtu %u %s", p.id, p.ifname.c_str(), p.mac.toString().c_str(),
                p.mtu, p.up ? "up" : "down");
    if (!p.link.empty()) std::printf(" link %s", p.link.c_str());
    std::printf("\n");
  }
  return kExitOk;
}

}  // namespace

int cmdNode(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kNodeHelp);
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "list" || cmd == "ls") {
    if (!a.empty()) return usage("node list: unexpected argument '" + a[0] + "'", kNodeHelp);
    if (int rc = s.connect(false)) return rc;
    return list(g, s);
  }
  if (cmd == "show") {
    if (a.size() != 1) return usage("node show: expected exactly one NAME", kNodeHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("node show: " + why, kNodeHelp);
    if (int rc = s.connect(false)) return rc;
    return show(g, s, a[0]);
  }
  if (cmd == "add" || cmd == "create") {
    std::string host;
    bool has_host = takeFlag(a, "--host", &host);
    if (a.size() != 1) return usage("node add: expected exactly one NAME", kNodeHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("node add: " + why, kNodeHelp);
    if (has_host && host.empty()) return usage("node add: --host needs a value", kNodeHelp);
    if (int rc = s.connect(false)) return rc;
    NodeSpec spec;
    spec.name = a[0];
    if (has_host) spec.host = host;
    if (auto st = s.client().createNode(spec); !st) return fail(st.error(), true);
    return printOk(g, "node " + spec.name + " added");
  }
  if (cmd == "del" || cmd == "delete")
    return deleteNamed(g, s, "node", a, kNodeHelp, &Client::deleteNode);
  if (cmd == "attach" || cmd == "detach") {
    if (a.size() != 2) return usage("node " + cmd + ": expected NAME IFNAME", kNodeHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("node " + cmd + ": " + why, kNodeHelp);
    if (a[1].empty() || a[1].size() > 15)
      return usage("node " + cmd + ": IFNAME has 1 to 15 characters", kNodeHelp);
    if (int rc = s.connect(false)) return rc;
    if (cmd == "detach") {
      if (auto st = s.client().detachInterface(a[0], a[1]); !st) return fail(st.error(), true);
      return printOk(g, "interface " + a[1] + " detached from node " + a[0]);
    }
    auto p = s.client().attachInterface(a[0], a[1]);
    if (!p) return fail(p.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginObject()
          .key("node").value(a[0])
          .key("ifname").value(p->ifname)
          .key("id").value(p->id)
          .key("mac").value(p->mac.toString())
          .key("mtu").value(p->mtu)
          .key("up").value(p->up)
          .key("xdp_mode").value(p->xdp_mode)
          .key("xsk_mode").value(p->xsk_mode)
          .endObject();
      std::printf("%s\n", w.str().c_str());
      return kExitOk;
    }
    std::printf("interface %s attached to node %s: port %u, %s, mtu %u, %s, XDP %s, AF_XDP %s\n",
                p->ifname.c_str(), a[0].c_str(), p->id, p->mac.toString().c_str(), p->mtu,
                p->up ? "up" : "down", p->xdp_mode.c_str(), p->xsk_mode.c_str());
    return kExitOk;
  }
  return usage("node: unknown command '" + cmd + "'", kNodeHelp);
}

}  // namespace fastpath::ctrl::fpctl
