// SPDX-License-Identifier: GPL-2.0-only
// fpctl bridge: list, show, add, del — fastpathd's learning bridges (ns-3's
// BridgeNetDevice) over segment ports, with their learned tables and counters.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fpctl.h"
#include "json.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kBridgeHelp =
    R"(Usage: fpctl bridge list [--json]
       fpctl bridge show NAME [--json]
       fpctl bridge add NAME NODE PORT [PORT...] [--ageing SECONDS]
       fpctl bridge del NAME

  A bridge is a learning bridge over segment ports of one node, as ns-3's BridgeNetDevice
  (BridgeHelper::Install(node, devices)): it joins their segments into one Ethernet
  domain. Every frame on a bridged segment reaches the bridge's port there; the bridge
  learns the frame's source MAC on that port and sends the frame on the port its
  destination was learned on, or on every other port (broadcast, multicast, unknown
  destination), where it enters that segment's medium like any sender's frame. A learned
  MAC is forgotten its ageing time after it was last seen (ns-3's ExpirationTime, 300 s by
  default). There is no spanning tree: do not close a loop of bridges.

  list   every bridge: its node, its ports (PORT@SEGMENT), learned MACs, frames heard
  show   one bridge: each port's segment, id, MAC and what it heard and sent; the
         counters (heard, forwarded to a learned port, flooded, to a bridge port's own
         MAC, copies not made, relayed by too many bridges at once, sources not learned
         because the table was full); the learned table (MAC, port, time left)
  add    creates a bridge on NODE over its segment ports PORT... (1 to 64, each on
         another segment, none in another bridge); from then on the node's own stack gets
         nothing through those ports. --ageing SECONDS (default 300)
  del    deletes a bridge (its segments and ports stay). Deleting a segment or node that
         has one of its ports deletes the bridge too.

  A bad argument is exit status 2 (nothing is sent). add and del need root, the socket's
  owner (fastpathd --socket-uid) or an allowed uid (exit status 4 otherwise); an unknown
  node, port or bridge, or a value fastpathd refuses, is exit status 1.
)";

void bridgeJson(JsonWriter& w, const BridgeInfo& b) {
  w.beginObject()
      .key("name")
      .value(b.name)
      .key("node")
      .value(b.node)
      .key("ageing_ns")
      .value(b.ageing_ns)
      .key("ports")
      .beginArray();
  for (const auto& p : b.ports)
    w.beginObject()
        .key("port")
        .value(p.port)
        .key("segment")
        .value(p.segment)
        .key("id")
        .value(p.id)
        .key("mac")
        .value(p.mac.toString())
        .key("rx_packets")
        .value(p.rx_packets)
        .key("tx_packets")
        .value(p.tx_packets)
        .endObject();
  w.endArray().key("learned").beginArray();
  for (const auto& l : b.learned)
    w.beginObject()
        .key("mac")
        .value(l.mac.toString())
        .key("port")
        .value(l.port < b.ports.size() ? b.ports[l.port].port : std::to_string(l.port))
        .key("expires_in_ns")
        .value(l.expires_in_ns)
        .endObject();
  w.endArray()
      .key("received")
      .value(b.received)
      .key("forwarded")
      .value(b.forwarded)
      .key("flooded")
      .value(b.flooded)
      .key("local_drops")
      .value(b.local)
      .key("no_frame_drops")
      .value(b.no_frame)
      .key("loop_drops")
      .value(b.loop_drops)
      .key("learn_full")
      .value(b.learn_full)
      .endObject();
}

std::string portsText(const BridgeInfo& b) {
  std::string out;
  for (const auto& p : b.ports) out += (out.empty() ? "" : " ") + p.port + "@" + p.segment;
  return out;
}

void showText(const BridgeInfo& b) {
  std::printf("bridge %s on node %s: %zu port(s), ageing %.0f s\n", b.name.c_str(),
              b.node.c_str(), b.ports.size(), double(b.ageing_ns) / 1e9);
  std::printf("  %-12s %-20s %-6s %-17s %10s %10s\n", "PORT", "SEGMENT", "ID", "MAC", "HEARD",
              "SENT");
  for (const auto& p : b.ports)
    std::printf("  %-12s %-20s %-6u %-17s %10llu %10llu\n", p.port.c_str(), p.segment.c_str(),
                unsigned(p.id), p.mac.toString().c_str(), (unsigned long long)p.rx_packets,
                (unsigned long long)p.tx_packets);
  std::printf("  heard %llu, forwarded %llu, flooded %llu; dropped: own MAC %llu, no frame "
              "%llu, loop %llu; not learned (table full) %llu\n",
              (unsigned long long)b.received, (unsigned long long)b.forwarded,
              (unsigned long long)b.flooded, (unsigned long long)b.local,
              (unsigned long long)b.no_frame, (unsigned long long)b.loop_drops,
              (unsigned long long)b.learn_full);
  std::printf("  learned: %zu\n", b.learned.size());
  if (!b.learned.empty()) std::printf("  %-17s %-12s %s\n", "MAC", "PORT", "EXPIRES IN");
  for (const auto& l : b.learned)
    std::printf("  %-17s %-12s %.1f s\n", l.mac.toString().c_str(),
                l.port < b.ports.size() ? b.ports[l.port].port.c_str() : "?",
                double(l.expires_in_ns) / 1e9);
}

int listOrShow(const Global& g, Session& s, const std::string& cmd,
               const std::vector<std::string>& a) {
  return listOrShowMedium<BridgeInfo>(
      g, s, cmd, a,
      {"bridge", &Client::bridges, bridgeJson,
       [] {
         std::printf("%-16s %-16s %-48s %8s %10s\n", "NAME", "NODE", "PORTS", "LEARNED", "HEARD");
       },
       [](const BridgeInfo& b) {
         std::printf("%-16s %-16s %-48s %8zu %10llu\n", b.name.c_str(), b.node.c_str(),
                     portsText(b).c_str(), b.learned.size(), (unsigned long long)b.received);
       },
       [](Session&, const BridgeInfo& b, JsonWriter* w) {
         if (w)
           bridgeJson(*w, b);
         else
           showText(b);
         return kExitOk;
       }});
}

int add(const Global& g, Session& s, std::vector<std::string> a) {
  std::string ageing_s;
  const bool has_ageing = takeFlag(a, "--ageing", &ageing_s);
  if (a.size() < 3) return usage("bridge add: expected NAME NODE PORT [PORT...]", kBridgeHelp);
  BridgeSpec spec;
  spec.name = a[0];
  spec.node = a[1];
  if (std::string why = nameProblem(spec.name); !why.empty())
    return usage("bridge add: " + why, kBridgeHelp);
  if (std::string why = nameProblem(spec.node); !why.empty())
    return usage("bridge add: node '" + spec.node + "': " + why, kBridgeHelp);
  for (size_t i = 2; i < a.size(); ++i) {
    if (std::string why = nameProblem(a[i]); !why.empty())
      return usage("bridge add: port '" + a[i] + "': " + why, kBridgeHelp);
    spec.ports.push_back(a[i]);
  }
  if (has_ageing) {
    char* end = nullptr;
    const double sec = std::strtod(ageing_s.c_str(), &end);
    if (ageing_s.empty() || *end || !(sec > 0) || sec > 1e6)
      return usage("bridge add: --ageing '" + ageing_s +
                       "': a number of seconds above 0 (at most 1000000)",
                   kBridgeHelp);
    spec.ageing_ns = uint64_t(sec * 1e9);
  }
  if (int rc = s.connect(false)) return rc;
  if (auto st = s.client().createBridge(spec); !st) return fail(st.error(), true);
  return printOk(g, "bridge " + spec.name + " added on node " + spec.node + " with " +
                        std::to_string(spec.ports.size()) + " port(s)");
}

int set(const Global&, Session&, std::vector<std::string>) {
  return usage("bridge: no set command; delete the bridge and add it again", kBridgeHelp);
}

}  // namespace

int cmdBridge(const Global& g) {
  return runMediumCommand(g, {"bridge", kBridgeHelp, listOrShow, add, set, &Client::deleteBridge});
}

}  // namespace fastpath::ctrl::fpctl
