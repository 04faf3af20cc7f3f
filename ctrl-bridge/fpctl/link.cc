// SPDX-License-Identifier: GPL-2.0-only
// fpctl link: list, show, add, del, set — the links between fastpathd's nodes and the
// emulation of each of their directions (rate, delay, jitter, queue, loss, ...).
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastpath/link_params.h"
#include "fpctl.h"
#include "json.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kLinkHelp =
    R"(Usage: fpctl link list [--json]
       fpctl link show NAME [--json]
       fpctl link add NAME A-NODE[:PORT] B-NODE[:PORT] [--mtu N] [PARAMETER...]
       fpctl link del NAME
       fpctl link set NAME up|down
       fpctl --node NODE link set NAME up|down
       fpctl link set NAME [a-to-b|b-to-a] PARAMETER... [up|down]

  A link joins two nodes of fastpathd point to point: each end is a port of its node
  (`fpctl --node A-NODE ports` lists it with its link), usable in routes and
  neighbours like an interface port. Each direction (a-to-b: frames sent by the A end)
  may be emulated, with tc's words and units.

  list   every link: state, both ends (node:port and port id), and a short summary of
         the emulation (both directions, or "a-to-b ...; b-to-a ..." when they differ)
  show   one link: both ends' MAC and MTU, then a table per direction of what is
         configured (rate, delay, jitter, loss, queue limit) and what was measured since
         the link was created (frames sent, delivered, queue and loss drops, drop ratio,
         queue depth now, time in the queue p50/p99), and how late fastpathd's workers
         released emulated frames (p50/p99/max); the last line says since when the
         percentiles and maxima count (fastpathd's start or `fpctl stats --reset`)
  add    creates a link, up; PORT names the end's port inside its node (default: the
         link's name); MACs are generated; --mtu N sets both ends' MTU (68..65535,
         default 1500); PARAMETERs emulate both directions
  del    deletes a link and its two ports (routes and neighbours through them go too)
  set    up or down: a link that is down passes no frame (counted) and each node's
         subscribers get a port-down event for its end (`fpctl --node A-NODE monitor`);
         with --node NODE only that node's end: the node forwards nothing onto it
         or from it (counted), its node's subscribers get the event, the other end
         stays up (an ns-3 interface set down at one end of its channel);
         PARAMETERs change the emulation of both directions, or of a-to-b or b-to-a
         only: only the parameters named change (fpctl reads the link's current ones
         first); frames already in the link keep their times
         A link to another host (fpctl multihost): each host sets its own end, the
         direction it sends (both directions or its own; the other is refused, naming
         the host that sends it), and its end's port up or down

  PARAMETERs (tc's units; a bare time is in microseconds, as with tc):
    rate RATE          10mbit, 1gbit, 100kbit, 1mbps (bytes/s); unlimited: no rate limit
    overhead BYTES     added to each frame's length for the rate, -64 .. 1024 (24:
                       Ethernet's preamble, gap and FCS; -12: ns-3's PointToPointNetDevice,
                       whose 2-byte PPP header replaces the 14-byte Ethernet header)
    mpu BYTES          minimum frame length counted for the rate, before the overhead
                       (60: Ethernet pads its frames to 60 bytes before the FCS)
    delay TIME         5ms, 100us, 1s (at most 60s)
    jitter TIME        added to or taken from the delay, per frame
    distribution D     uniform (default), normal or paretonormal
    reorder | no-reorder  jitter may reorder frames (not by default)
    limit PACKETS      drop-tail queue in front of the rate, 1..1000000 (default 100)
    limit-bytes SIZE   and in bytes: 64kb, 1mb (default: none)
    loss P             1%, 0.5% or 0.01: Bernoulli loss
    gemodel P [R [1-H [1-K]]]  Gilbert-Elliott loss, as netem (replaces loss)
    duplicate P        probability a frame is sent twice
    corrupt P          probability one bit of a frame is flipped
    seed N             the random stream (default: derived from link and direction)
    aqm none|codel|cobalt|red  a queue discipline in front of the drop-tail queue, as a router's
                       ns-3 queue disc (limit is then its device queue's): frames wait in
                       it until the device queue has room, and it drops (or marks) them
    aqm-limit PACKETS  its limit in packets, or aqm-limit-bytes SIZE (default 1500000 bytes)
    target TIME        CoDel's target sojourn time (default 5ms)
    interval TIME      CoDel's interval (default 100ms)
    min-bytes SIZE     CoDel drops nothing while fewer bytes wait (default 1500)
    ecn | no-ecn       mark ECN-capable frames CE instead of dropping them (default no-ecn)
    ce-threshold TIME  with ecn: also mark frames that waited longer (default: never)
    blue-increment P, blue-decrement P, blue-threshold TIME
                       COBALT's BLUE drop probability steps (default 1/256, 1/4096) and
                       the sojourn that raises it (default 400ms)
    RED (aqm red: decides at enqueue; ns-3's RedQueueDisc attributes and defaults):
    red-min N, red-max N  MinTh, MaxTh in the aqm limit's unit (5, 15; both 0: automatic)
    red-qw W           QW, the average's weight (0.002; 0, -1, -2: from the link)
    red-linterm N      LInterm (50): the drop probability at red-max is 1/N
    red-gentle | red-no-gentle, red-wait | red-no-wait, red-hard-drop | red-no-hard-drop
                       Gentle, Wait, UseHardDrop (all on by default); red-ns1: Ns1Compat
    red-mean-size B    MeanPktSize (500 bytes)
    ared | adapt-max-p | feng  ARED, AdaptMaxP, FengAdaptive; nlred: NLRED
    red-interval T, red-target T, red-alpha A, red-beta B, red-top P, red-bottom P,
    red-last-set T, red-rtt T  ARED's Interval, TargetDelay, Alpha, Beta, Top, Bottom,
                       LastSet, Rtt (500ms, 5ms, 0.01, 0.9, 0.5, 0: automatic, 0, 100ms)
    feng-alpha A, feng-beta B  FengAlpha, FengBeta (3, 2)
    red-link-rate R, red-link-delay T  LinkBandwidth, LinkDelay of the automatic settings
                       (1500kbit, 20ms)

  NAME, node and port names: 1 to 31 characters of letters, digits, '_', '.' and '-'.
  A bad parameter is exit status 2 (nothing is sent). add, del and set need root, the
  socket's owner (fastpathd --socket-uid) or an allowed uid (exit status 4 otherwise);
  an unknown node or link, or a value fastpathd refuses, is exit status 1.
)";

std::string endText(const LinkInfo::End& e) {
  return e.node + ":" + e.port + " (port " + std::to_string(e.id) + (e.down ? ", down)" : ")");
}

std::string linkSummary(const LinkInfo& l) {
  if (l.a_to_b == l.b_to_a) return linkParamsSummary(l.a_to_b);
  return "a-to-b " + linkParamsSummary(l.a_to_b) + "; b-to-a " + linkParamsSummary(l.b_to_a);
}

/// fastpathd's "worker N" counter sets: how late the emulation released frames.
struct Lateness {
  uint64_t worker = 0;
  uint64_t p50_ns = 0, p99_ns = 0, max_ns = 0, late_frames = 0;
};

std::vector<Lateness> latenessFrom(const std::vector<CounterSet>& sets) {
  std::vector<Lateness> out;
  for (const auto& set : sets) {
    if (set.scope.rfind("worker ", 0) != 0) continue;
    Lateness l;
    l.worker = std::strtoull(set.scope.c_str() + 7, nullptr, 10);
    bool any = false;
    for (const auto& [name, v] : set.counters) {
      if (name == "emu_lateness_p50_ns") l.p50_ns = v, any = true;
      if (name == "emu_lateness_p99_ns") l.p99_ns = v, any = true;
      if (name == "emu_lateness_max_ns") l.max_ns = v, any = true;
      if (name == "emu_late_frames") l.late_frames = v, any = true;
    }
    if (any) out.push_back(l);
  }
  return out;
}

// ---- JSON ----

void endJson(JsonWriter& w, const LinkInfo::End& e) {
  w.beginObject()
      .key("node")
      .value(e.node)
      .key("port")
      .value(e.port)
      .key("id")
      .value(e.id)
      .key("mac")
      .value(e.mac.toString())
      .key("mtu")
      .value(e.mtu)
      .key("down")
      .value(e.down)
      .endObject();
}

/// `lateness` and `epoch` (link show): the workers' lateness and since when the histograms
/// count.
void linkJson(JsonWriter& w, const LinkInfo& l, const std::vector<Lateness>* lateness = nullptr,
              const StatsEpoch* epoch = nullptr) {
  w.beginObject().key("name").value(l.name).key("up").value(l.up).key("a");
  endJson(w, l.a);
  w.key("b");
  endJson(w, l.b);
  for (int d = 0; d < 2; ++d) {
    w.key(d == 0 ? "a_to_b" : "b_to_a").beginObject().key("configured");
    linkParamsJson(w, d == 0 ? l.a_to_b : l.b_to_a);
    w.key("measured");
    linkStatsJson(w, d == 0 ? l.a_to_b_stats : l.b_to_a_stats);
    w.endObject();
  }
  if (lateness) {
    w.key("emulation_lateness").beginArray();
    for (const auto& x : *lateness)
      w.beginObject()
          .key("worker")
          .value(x.worker)
          .key("p50_ns")
          .value(x.p50_ns)
          .key("p99_ns")
          .value(x.p99_ns)
          .key("max_ns")
          .value(x.max_ns)
          .key("late_frames")
          .value(x.late_frames)
          .endObject();
    w.endArray();
  }
  if (epoch) histogramsSinceJson(w, *epoch);
  w.endObject();
}

// ---- text ----

void row(const char* label, const std::string& ab, const std::string& ba) {
  std::printf("    %-15s %-24s %s\n", label, ab.c_str(), ba.c_str());
}

void showText(const LinkInfo& l, const std::vector<Lateness>& lateness) {
  std::printf("link %s %s\n", l.name.c_str(), l.up ? "up" : "down");
  for (const auto* e : {&l.a, &l.b})
    std::printf("  %s: node %s port %s id %u %s mtu %u%s\n", e == &l.a ? "a" : "b",
                e->node.c_str(), e->port.c_str(), e->id, e->mac.toString().c_str(), e->mtu,
                e->down ? " (end down)" : "");
  const LinkParams& pa = l.a_to_b;
  const LinkParams& pb = l.b_to_a;
  const LinkDirectionStats& sa = l.a_to_b_stats;
  const LinkDirectionStats& sb = l.b_to_a_stats;
  std::printf("\n    %-15s %-24s %s\n", "",
              ("a-to-b (" + l.a.node + " -> " + l.b.node + ")").c_str(),
              ("b-to-a (" + l.b.node + " -> " + l.a.node + ")").c_str());
  std::printf("  configured\n");
  row("rate", formatRate(pa.rate_bps), formatRate(pb.rate_bps));
  if (pa.overhead_bytes || pb.overhead_bytes)
    row("overhead", std::to_string(pa.overhead_bytes) + " B",
        std::to_string(pb.overhead_bytes) + " B");
  if (pa.mpu_bytes || pb.mpu_bytes)
    row("mpu", count(pa.mpu_bytes) + " B", count(pb.mpu_bytes) + " B");
  row("delay", formatTime(pa.delay_ns), formatTime(pb.delay_ns));
  row("jitter", jitterText(pa), jitterText(pb));
  row("loss", lossText(pa), lossText(pb));
  if (pa.duplicate > 0 || pb.duplicate > 0)
    row("duplicate", formatProbability(pa.duplicate), formatProbability(pb.duplicate));
  if (pa.corrupt > 0 || pb.corrupt > 0)
    row("corrupt", formatProbability(pa.corrupt), formatProbability(pb.corrupt));
  row("limit", limitText(pa), limitText(pb));
  if (pa.seed || pb.seed)
    row("seed", pa.seed ? count(pa.seed) : "-", pb.seed ? count(pb.seed) : "-");
  if (pa.aqm != LinkParams::Aqm::kNone || pb.aqm != LinkParams::Aqm::kNone)
    row("aqm", aqmText(pa), aqmText(pb));
  std::printf("  measured\n");
  row("sent", count(sa.tx_packets), count(sb.tx_packets));
  row("delivered", count(sa.delivered), count(sb.delivered));
  row("queue drops", count(sa.queue_drops), count(sb.queue_drops));
  row("loss drops", count(sa.loss_drops), count(sb.loss_drops));
  if (sa.link_down_drops || sb.link_down_drops)
    row("link-down drops", count(sa.link_down_drops), count(sb.link_down_drops));
  if (sa.full_drops || sb.full_drops) row("full drops", count(sa.full_drops), count(sb.full_drops));
  if (pa.aqm != LinkParams::Aqm::kNone || pb.aqm != LinkParams::Aqm::kNone) {
    row("aqm drops", count(sa.aqm_drops), count(sb.aqm_drops));
    row("aqm marks", count(sa.aqm_marks), count(sb.aqm_marks));
  }
  if (pa.aqm == LinkParams::Aqm::kRed || pb.aqm == LinkParams::Aqm::kRed) {
    // RED's forced ones (average over the forced threshold); the rest are unforced.
    row("forced drops", count(sa.aqm_forced_drops), count(sb.aqm_forced_drops));
    row("forced marks", count(sa.aqm_forced_marks), count(sb.aqm_forced_marks));
  }
  if (pa.aqm == LinkParams::Aqm::kFqCoDel || pb.aqm == LinkParams::Aqm::kFqCoDel)
    row("fq_codel queued", count(sa.fq_packets) + " packets, " + count(sa.fq_bytes) + " B",
        count(sb.fq_packets) + " packets, " + count(sb.fq_bytes) + " B");
  if (sa.duplicated || sb.duplicated) row("duplicated", count(sa.duplicated), count(sb.duplicated));
  if (sa.corrupted || sb.corrupted) row("corrupted", count(sa.corrupted), count(sb.corrupted));
  row("drop ratio", ratioText(sa), ratioText(sb));
  row("depth", count(sa.depth_packets) + " packets, " + count(sa.depth_bytes) + " B",
      count(sb.depth_packets) + " packets, " + count(sb.depth_bytes) + " B");
  row("in flight", count(sa.in_flight), count(sb.in_flight));
  row("sojourn p50", sojournText(sa, sa.sojourn_p50_ns), sojournText(sb, sb.sojourn_p50_ns));
  row("sojourn p99", sojournText(sa, sa.sojourn_p99_ns), sojournText(sb, sb.sojourn_p99_ns));
  // Per direction: how much later than their arrival time its frames were handed on.
  row("lateness p50", sojournText(sa, sa.lateness_p50_ns), sojournText(sb, sb.lateness_p50_ns));
  row("lateness p99", sojournText(sa, sa.lateness_p99_ns), sojournText(sb, sb.lateness_p99_ns));
  row("lateness max", sojournText(sa, sa.lateness_max_ns), sojournText(sb, sb.lateness_max_ns));
  if (!lateness.empty()) {
    // Per worker, over every link it emulates: how much later than their arrival time
    // frames were handed on.
    std::printf("  emulation lateness\n");
    for (const auto& x : lateness) {
      const std::string w = "worker " + count(x.worker);
      std::printf("    %-15s p50 %s  p99 %s  max %s  late frames %" PRIu64 "\n", w.c_str(),
                  shortTime(x.p50_ns).c_str(), shortTime(x.p99_ns).c_str(),
                  shortTime(x.max_ns).c_str(), x.late_frames);
    }
  }
}

// ---- commands ----

/// "r1" or "r1:eth-r2"; an empty port is the link's name (fastpathd's default too).
Result<LinkEndSpec> parseEnd(const std::string& text, const std::string& link, const char* which) {
  LinkEndSpec e;
  auto colon = text.find(':');
  e.node = text.substr(0, colon);
  e.port = colon == std::string::npos ? link : text.substr(colon + 1);
  if (std::string why = nameProblem(e.node); !why.empty())
    return makeError(-EINVAL, std::string("link add: ") + which + " node: " + why);
  if (std::string why = nameProblem(e.port); !why.empty())
    return makeError(-EINVAL, std::string("link add: ") + which + " port: " + why);
  return e;
}

int listOrShow(const Global& g, Session& s, const std::string& cmd,
               const std::vector<std::string>& a) {
  return listOrShowMedium<LinkInfo>(
      g, s, cmd, a,
      {"link", &Client::links, [](JsonWriter& w, const LinkInfo& l) { linkJson(w, l); },
       [] { std::printf("%-16s %-5s %-32s %-32s %s\n", "NAME", "STATE", "A", "B", "EMULATION"); },
       [](const LinkInfo& l) {
         std::printf("%-16s %-5s %-32s %-32s %s\n", l.name.c_str(), l.up ? "up" : "down",
                     endText(l.a).c_str(), endText(l.b).c_str(), linkSummary(l).c_str());
       },
       [](Session& s, const LinkInfo& l, JsonWriter* w) {
         // The workers' lateness is in the default node's counters (the connection's node).
         auto report = s.client().statsReport();
         if (!report) return fail(report.error(), true);
         const auto lateness = latenessFrom(report->sets);
         if (w) {
           linkJson(*w, l, &lateness, &report->epoch);
         } else {
           showText(l, lateness);
           printHistogramsSince(report->epoch, "  ");
         }
         return kExitOk;
       }});
}

int add(const Global& g, Session& s, std::vector<std::string> a) {
  std::string mtu_s;
  bool has_mtu = takeFlag(a, "--mtu", &mtu_s);
  if (a.size() < 3)
    return usage("link add: expected NAME A-NODE[:PORT] B-NODE[:PORT] [PARAMETER...]", kLinkHelp);
  if (std::string why = nameProblem(a[0]); !why.empty())
    return usage("link add: " + why, kLinkHelp);
  LinkSpec spec;
  spec.name = a[0];
  auto ea = parseEnd(a[1], spec.name, "A");
  if (!ea) return usage(ea.error().message, kLinkHelp);
  auto eb = parseEnd(a[2], spec.name, "B");
  if (!eb) return usage(eb.error().message, kLinkHelp);
  if (ea->node == eb->node)
    return usage("link add: both ends are in node " + ea->node + "; a link joins two nodes",
                 kLinkHelp);
  spec.a = *ea;
  spec.b = *eb;
  if (has_mtu) {
    uint32_t mtu = 0;
    if (int rc = parseMtu(mtu_s, kLinkHelp, &mtu)) return rc;
    spec.a.mtu = spec.b.mtu = mtu;
  }
  const std::vector<std::string> words(a.begin() + 3, a.end());
  if (auto st = applyLinkParamWords(words, &spec.a_to_b); !st)
    return badParameter("link add", st.error());
  spec.b_to_a = spec.a_to_b;
  if (int rc = s.connect(false)) return rc;
  if (auto st = s.client().createLink(spec); !st) return fail(st.error(), true);
  return printOk(g, "link " + spec.name + " added" +
                        (words.empty() ? "" : ": " + formatLinkParams(spec.a_to_b)));
}

int set(const Global& g, Session& s, std::vector<std::string> a) {
  if (a.empty()) return usage("link set: expected NAME", kLinkHelp);
  const std::string name = a[0];
  a.erase(a.begin());
  if (std::string why = nameProblem(name); !why.empty())
    return usage("link set: " + why, kLinkHelp);
  LinkDirection dir = LinkDirection::kBoth;
  if (!a.empty() && (a[0] == "a-to-b" || a[0] == "b-to-a")) {
    dir = a[0] == "a-to-b" ? LinkDirection::kAToB : LinkDirection::kBToA;
    a.erase(a.begin());
  }
  // up/down is the link's state; every other word is a parameter.
  std::string state;
  std::vector<std::string> words;
  if (int rc = splitSetWords("link", a, kLinkHelp, &state, &words)) return rc;
  if (int rc = checkParamWords("link set", words)) return rc;
  if (int rc = s.connect(false)) return rc;
  std::string result = "link " + name;
  if (!words.empty()) {
    // Only the named parameters change: start from what the link has now, per direction.
    auto ls = s.client().links();
    if (!ls) return fail(ls.error(), true);
    const LinkInfo* l = findNamed(ls.value(), name);
    LinkParams ab, ba;
    if (l) {
      ab = l->a_to_b;
      ba = l->b_to_a;
    } else {
      // A link to another host: this host's end, which sends one direction (its egress).
      auto m = s.client().multiHost();
      const CrossLinkInfo* x = nullptr;
      if (m)
        for (const auto& c : m->links)
          if (c.spec.name == name) x = &c;
      if (!x) return fail(noMedium("link", name), true);
      ab = ba = x->spec.egress;
    }
    for (LinkParams* p : {&ab, &ba})
      if (auto st = applyLinkParamWords(words, p); !st) return badParameter("link set", st.error());
    std::vector<std::pair<LinkDirection, const LinkParams*>> changes;
    if (dir == LinkDirection::kBoth && ab == ba)
      changes = {{LinkDirection::kBoth, &ab}};  // one request: both at once
    else if (dir == LinkDirection::kBoth)
      changes = {{LinkDirection::kAToB, &ab}, {LinkDirection::kBToA, &ba}};
    else
      changes = {{dir, dir == LinkDirection::kAToB ? &ab : &ba}};
    for (const auto& [d, p] : changes) {
      if (auto st = s.client().setLinkParams(name, d, *p); !st) return fail(st.error(), true);
      result += std::string(d == LinkDirection::kAToB   ? " a-to-b "
                            : d == LinkDirection::kBToA ? " b-to-a "
                                                        : " ") +
                formatLinkParams(*p);
    }
  }
  if (!state.empty()) {
    if (auto st = s.client().setLinkState(name, state == "up", g.node); !st)
      return fail(st.error(), true);
    result += (g.node.empty() ? " " : ": node " + g.node + "'s end ") + state;
  }
  return printOk(g, result);
}

}  // namespace

int cmdLink(const Global& g) {
  return runMediumCommand(g, {"link", kLinkHelp, listOrShow, add, set, &Client::deleteLink});
}

}  // namespace fastpath::ctrl::fpctl
