// SPDX-License-Identifier: GPL-2.0-only
// fpctl segment: list, show, add, del, set — fastpathd's segments (shared media joining
// many nodes, as ns-3's CsmaChannel) and the emulation of their medium.
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "fastpath/link_params.h"
#include "fpctl.h"
#include "json.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kSegmentHelp =
    R"(Usage: fpctl segment list [--json]
       fpctl segment show NAME [--json]
       fpctl segment add NAME NODE[:PORT] [NODE[:PORT]...] [--mtu N] [PARAMETER...]
       fpctl segment del NAME
       fpctl segment set NAME up|down
       fpctl [--node NODE] segment set NAME up|down
       fpctl segment set NAME PARAMETER... [up|down]

  A segment is a shared medium joining nodes of fastpathd, as ns-3's CsmaChannel: each
  node gets a port with its own MAC (`fpctl --node NODE ports` lists it). A frame sent on
  a port reaches the port of its destination MAC; broadcast and multicast reach every
  other port; a unicast to a MAC no port has is dropped (counted). All ports share one
  medium: one rate, delay, queue and loss, the senders' frames one after the other.

  list   every segment: state, its ports (node:port), the medium's emulation
  show   one segment: each port's node, port, id, MAC and MTU with what it sent and
         received and its drops (unknown destination, no frame for a broadcast copy,
         receive queue full, sent while down), then the medium: configured parameters
         and what was measured (sent, delivered, drops, queue, time in the queue); the
         last line says since when the percentiles count (fastpathd's start or
         `fpctl stats --reset`)
  add    creates a segment, up, with a port in each NODE (1 to 64, each node once); PORT
         names the port inside its node (default: the segment's name); MACs are
         generated; --mtu N sets every port's MTU (68..65535, default 1500); PARAMETERs
         emulate the medium
  del    deletes a segment and its ports (routes and neighbours through them go too);
         frames in the medium are discarded (counted)
  set    up or down: a segment that is down passes no frame (counted) and each node's
         subscribers get a port-down event; with --node NODE only that node's port goes
         down or up (it neither sends nor receives, the other ports go on; a port passes
         frames when it and the segment are up); PARAMETERs change the medium's emulation
         (only those named: fpctl reads the current ones first)

  PARAMETERs are `fpctl link`'s (tc's words and units): rate 10mbit, overhead BYTES,
  delay 5ms, jitter, distribution, reorder, limit PACKETS, limit-bytes, loss 1%,
  gemodel, duplicate, corrupt, seed (`fpctl link --help` explains each).

  A bad argument is exit status 2 (nothing is sent). add, del and set need root, the
  socket's owner (fastpathd --socket-uid) or an allowed uid (exit status 4 otherwise);
  an unknown node or segment, or a value fastpathd refuses, is exit status 1.
)";

/// `epoch` (segment show): since when the histograms count.
void segmentJson(JsonWriter& w, const SegmentInfo& s, const StatsEpoch* epoch = nullptr) {
  w.beginObject().key("name").value(s.name).key("up").value(s.up).key("ports").beginArray();
  for (const auto& p : s.ports)
    w.beginObject()
        .key("node")
        .value(p.node)
        .key("port")
        .value(p.port)
        .key("id")
        .value(p.id)
        .key("mac")
        .value(p.mac.toString())
        .key("mtu")
        .value(p.mtu)
        .key("up")
        .value(p.up)
        .key("tx_packets")
        .value(p.tx_packets)
        .key("tx_bytes")
        .value(p.tx_bytes)
        .key("rx_packets")
        .value(p.rx_packets)
        .key("rx_bytes")
        .value(p.rx_bytes)
        .key("unknown_dst_drops")
        .value(p.unknown_dst_drops)
        .key("no_frame_drops")
        .value(p.no_frame_drops)
        .key("queue_full_drops")
        .value(p.queue_full_drops)
        .key("down_drops")
        .value(p.down_drops)
        .endObject();
  w.endArray().key("configured");
  linkParamsJson(w, s.params);
  w.key("measured");
  linkStatsJson(w, s.stats);
  if (epoch) histogramsSinceJson(w, *epoch);
  w.endObject();
}

std::string portsText(const SegmentInfo& s) {
  std::string out;
  for (const auto& p : s.ports) out += (out.empty() ? "" : " ") + p.node + ":" + p.port;
  return out;
}

void showText(const SegmentInfo& s) {
  std::printf("segment %s: %s, %zu port(s)\n", s.name.c_str(), s.up ? "up" : "down",
              s.ports.size());
  std::printf("  %-20s %-12s %-6s %-17s %-5s %-5s %10s %10s %8s %8s %8s %8s\n", "NODE", "PORT",
              "ID", "MAC", "MTU", "STATE", "TX", "RX", "UNKNOWN", "NOFRAME", "QFULL", "DOWN");
  for (const auto& p : s.ports)
    std::printf("  %-20s %-12s %-6u %-17s %-5u %-5s %10llu %10llu %8llu %8llu %8llu %8llu\n",
                p.node.c_str(), p.port.c_str(), unsigned(p.id), p.mac.toString().c_str(),
                unsigned(p.mtu), p.up ? "up" : "down", (unsigned long long)p.tx_packets,
                (unsigned long long)p.rx_packets, (unsigned long long)p.unknown_dst_drops,
                (unsigned long long)p.no_frame_drops, (unsigned long long)p.queue_full_drops,
                (unsigned long long)p.down_drops);
  std::printf("  medium, configured: %s\n", linkParamsSummary(s.params).c_str());
  std::printf("  medium, measured:   %s\n", linkStatsLine(s.stats).c_str());
}

int listOrShow(const Global& g, Session& s, const std::string& cmd,
               const std::vector<std::string>& a) {
  return listOrShowMedium<SegmentInfo>(
      g, s, cmd, a,
      {"segment", &Client::segments,
       [](JsonWriter& w, const SegmentInfo& seg) { segmentJson(w, seg); },
       [] { std::printf("%-16s %-5s %-48s %s\n", "NAME", "STATE", "PORTS", "EMULATION"); },
       [](const SegmentInfo& seg) {
         std::printf("%-16s %-5s %-48s %s\n", seg.name.c_str(), seg.up ? "up" : "down",
                     portsText(seg).c_str(), linkParamsSummary(seg.params).c_str());
       },
       [](Session& s, const SegmentInfo& seg, JsonWriter* w) {
         auto report = s.client().statsReport();
         if (!report) return fail(report.error(), true);
         if (w) {
           segmentJson(*w, seg, &report->epoch);
         } else {
           showText(seg);
           printHistogramsSince(report->epoch, "  ");
         }
         return kExitOk;
       }});
}

int add(const Global& g, Session& s, std::vector<std::string> a) {
  std::string mtu_s;
  bool has_mtu = takeFlag(a, "--mtu", &mtu_s);
  if (a.size() < 2)
    return usage("segment add: expected NAME NODE[:PORT] [NODE[:PORT]...] [PARAMETER...]",
                 kSegmentHelp);
  if (std::string why = nameProblem(a[0]); !why.empty())
    return usage("segment add: " + why, kSegmentHelp);
  SegmentSpec spec;
  spec.name = a[0];
  uint32_t mtu = 1500;
  if (has_mtu) {
    if (int rc = parseMtu(mtu_s, kSegmentHelp, &mtu)) return rc;
  }
  // NODE[:PORT] words until the first parameter word.
  size_t i = 1;
  std::vector<std::string> words;
  for (; i < a.size(); ++i) {
    LinkParams probe;
    if (applyLinkParamWords({a[i]}, &probe) ||
        (i + 1 < a.size() && applyLinkParamWords({a[i], a[i + 1]}, &probe)))
      break;  // a parameter: the rest are parameters
    SegmentPortSpec p;
    auto colon = a[i].find(':');
    p.node = a[i].substr(0, colon);
    p.port = colon == std::string::npos ? spec.name : a[i].substr(colon + 1);
    p.mtu = mtu;
    if (std::string why = nameProblem(p.node); !why.empty())
      return usage("segment add: node '" + a[i] + "': " + why, kSegmentHelp);
    if (std::string why = nameProblem(p.port); !why.empty())
      return usage("segment add: port of '" + a[i] + "': " + why, kSegmentHelp);
    for (const auto& q : spec.ports)
      if (q.node == p.node)
        return usage("segment add: node " + p.node + " twice; a node has one port on a segment",
                     kSegmentHelp);
    spec.ports.push_back(p);
  }
  words.assign(a.begin() + long(i), a.end());
  if (spec.ports.empty()) return usage("segment add: expected at least one NODE", kSegmentHelp);
  if (auto st = applyLinkParamWords(words, &spec.params); !st)
    return badParameter("segment add", st.error());
  if (int rc = s.connect(false)) return rc;
  if (auto st = s.client().createSegment(spec); !st) return fail(st.error(), true);
  return printOk(g, "segment " + spec.name + " added with " + std::to_string(spec.ports.size()) +
                        " port(s)" +
                        (words.empty() ? "" : ": " + formatLinkParams(spec.params)));
}

int set(const Global& g, Session& s, std::vector<std::string> a) {
  if (a.empty()) return usage("segment set: expected NAME", kSegmentHelp);
  const std::string name = a[0];
  a.erase(a.begin());
  if (std::string why = nameProblem(name); !why.empty())
    return usage("segment set: " + why, kSegmentHelp);
  std::string state;
  std::vector<std::string> words;
  if (int rc = splitSetWords("segment", a, kSegmentHelp, &state, &words)) return rc;
  if (!g.node.empty() && !words.empty())
    return usage("segment set: --node takes one node's port up or down; parameters are the "
                 "whole medium's: give them without --node",
                 kSegmentHelp);
  if (int rc = checkParamWords("segment set", words)) return rc;
  if (int rc = s.connect(false)) return rc;
  std::string result = "segment " + name;
  if (!words.empty()) {
    auto segs = s.client().segments();
    if (!segs) return fail(segs.error(), true);
    const SegmentInfo* seg = findNamed(segs.value(), name);
    if (!seg) return fail(noMedium("segment", name), true);
    LinkParams p = seg->params;
    if (auto st = applyLinkParamWords(words, &p); !st)
      return badParameter("segment set", st.error());
    if (auto st = s.client().setSegmentParams(name, p); !st) return fail(st.error(), true);
    result += " " + formatLinkParams(p);
  }
  if (!state.empty()) {
    if (auto st = s.client().setSegmentState(name, state == "up", g.node); !st)
      return fail(st.error(), true);
    result += (g.node.empty() ? " " : ": node " + g.node + "'s port ") + state;
  }
  return printOk(g, result);
}

}  // namespace

int cmdSegment(const Global& g) {
  return runMediumCommand(
      g, {"segment", kSegmentHelp, listOrShow, add, set, &Client::deleteSegment});
}

}  // namespace fastpath::ctrl::fpctl
