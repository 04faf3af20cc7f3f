// SPDX-License-Identifier: GPL-2.0-only
// fpctl ports: fastpathd's ports.
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

const char* kPortsHelp =
    R"(Usage: fpctl [--node NAME] ports [--json]

  Lists the ports of one fastpathd node (the default node, or NAME with --node): id,
  interface, MAC, MTU, state, queues, XDP and XSK modes, and for the ports of links
  between nodes the link's name (LINK; `fpctl link list`). JSON also gives each
  port's "node" and "link" (null for interface ports).
)";

}  // namespace

void portJson(JsonWriter& w, const PortInfo& p, PortJsonFields fields) {
  const bool all = fields == PortJsonFields::kAll;
  w.beginObject().key("id").value(p.id).key("ifname").value(p.ifname);
  if (all) w.key("ifindex").value(p.ifindex);
  w.key("mac").value(p.mac.toString()).key("mtu").value(p.mtu).key("up").value(p.up);
  if (all)
    w.key("queues")
        .value(p.queues)
        .key("xdp_mode")
        .value(p.xdp_mode)
        .key("xsk_mode")
        .value(p.xsk_mode)
        .key("node")
        .value(p.node);
  w.key("link");
  if (p.link.empty())
    w.null();
  else
    w.value(p.link);
  w.endObject();
}

int cmdPorts(const Global& g) {
  if (g.help) return printHelp(g, kPortsHelp);
  if (!g.args.empty() && g.args[0] != "show" && g.args[0] != "list")
    return usage("ports: unexpected argument '" + g.args[0] + "'", kPortsHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  auto ps = s.client().ports();
  if (!ps) return fail(ps.error(), true);
  if (g.json) {
    JsonWriter w;
    w.beginArray();
    for (const auto& p : ps.value()) portJson(w, p, PortJsonFields::kAll);
    w.endArray();
    std::printf("%s\n", w.str().c_str());
  } else {
    // The LINK column only where links exist: a one-node fastpathd prints what it always did.
    bool links = false;
    for (const auto& p : ps.value()) links |= !p.link.empty();
    std::printf("%-4s %-16s %-8s %-17s %-6s %-5s %-6s %-8s %s%s\n", "ID", "IFNAME", "IFINDEX",
                "MAC", "MTU", "STATE", "QUEUES", "XDP", links ? "XSK      " : "XSK",
                links ? "LINK" : "");
    for (const auto& p : ps.value()) {
      std::printf("%-4u %-16s %-8d %-17s %-6u %-5s %-6u %-8s ", p.id, p.ifname.c_str(), p.ifindex,
                  p.mac.toString().c_str(), p.mtu, p.up ? "up" : "down", p.queues,
                  p.xdp_mode.c_str());
      if (!p.link.empty())
        std::printf("%-8s %s\n", p.xsk_mode.c_str(), p.link.c_str());
      else
        std::printf("%s\n", p.xsk_mode.c_str());
    }
  }
  return kExitOk;
}

}  // namespace fastpath::ctrl::fpctl
