// SPDX-License-Identifier: GPL-2.0-only
// fpctl neigh: add, del, show.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kNeighHelp =
    R"(Usage: fpctl neigh add ADDR lladdr MAC dev IFNAME
       fpctl neigh del ADDR dev IFNAME
       fpctl neigh show [--json]

  Neighbours resolve next hops to MAC addresses on a port (like `ip neigh`).

  With --node NAME (a global option: `fpctl --node r1 neigh ...`), this acts on that
  fastpathd node; without, on the default node. An unknown node is exit status 1.
)";

// Parses `ADDR [lladdr MAC] dev IFNAME` after connecting (the port name is fastpathd's);
// the syntax is checked before, so a typo is a usage error even without a daemon.
Result<Neighbour> neighbourArgs(const std::vector<std::string>& a, Session& s) {
  if (auto pre = parseNeighbour(a, [](const std::string&) -> Result<PortId> { return PortId{0}; });
      !pre)
    return makeError(-EINVAL, pre.error().message);
  if (int rc = s.connect()) return makeError(rc, "");
  return parseNeighbour(a, s.portLookup());
}

// The exit code for neighbourArgs()'s error.
int neighbourArgsError(const Error& e) {
  if (e.code > 0) return e.code;  // connect() printed why
  return e.code == -ENODEV ? fail(e, true) : usage(e.message, kNeighHelp);
}

}  // namespace

int cmdNeigh(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kNeighHelp);
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "add" || cmd == "replace") {
    if (a.empty()) return usage("neigh add: missing ADDR", kNeighHelp);
    auto n = neighbourArgs(a, s);
    if (!n) return neighbourArgsError(n.error());
    if (n->mac.isZero()) return usage("neigh add: missing 'lladdr MAC'", kNeighHelp);
    if (auto st = s.client().addNeighbour(n.value()); !st) return fail(st.error(), true);
    return printOk(g, "neighbour " + n->ip.toString() + " added");
  }
  if (cmd == "del" || cmd == "delete") {
    if (a.empty()) return usage("neigh del: missing ADDR", kNeighHelp);
    auto n = neighbourArgs(a, s);
    if (!n) return neighbourArgsError(n.error());
    if (auto st = s.client().deleteNeighbour(n->ip, n->port); !st) return fail(st.error(), true);
    return printOk(g, "neighbour " + n->ip.toString() + " deleted");
  }
  if (cmd == "show" || cmd == "list" || cmd == "ls") {
    if (int rc = s.connect()) return rc;
    auto ns = s.client().neighbours();
    if (!ns) return fail(ns.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& n : ns.value())
        w.beginObject()
            .key("address")
            .value(n.ip.toString())
            .key("lladdr")
            .value(n.mac.toString())
            .key("dev")
            .value(s.portName(n.port))
            .key("port")
            .value(n.port)
            .endObject();
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      for (const auto& n : ns.value())
        std::printf("%s dev %s lladdr %s\n", n.ip.toString().c_str(), s.portName(n.port).c_str(),
                    n.mac.toString().c_str());
    }
    return kExitOk;
  }
  return usage("neigh: unknown command '" + cmd + "'", kNeighHelp);
}

}  // namespace fastpath::ctrl::fpctl
