// SPDX-License-Identifier: GPL-2.0-only
// How fpctl shows a medium's (link direction's, segment's) emulation parameters and
// counters: words, table cells and JSON.
#include <cstdio>
#include <string>

#include "fastpath/link_params.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {

std::string lossText(const LinkParams& p) {
  if (p.gilbert_elliott)
    return "gemodel " + formatProbability(p.ge_p) + " " + formatProbability(p.ge_r) + " " +
           formatProbability(p.ge_loss_bad) + " " + formatProbability(p.ge_loss_good);
  return p.loss > 0 ? formatProbability(p.loss) : "-";
}

std::string jitterText(const LinkParams& p) {
  if (!p.jitter_ns) return "-";
  std::string s = formatTime(p.jitter_ns);
  if (p.jitter_dist != LinkParams::Jitter::kUniform)
    s += std::string(" ") + jitterDistributionName(p.jitter_dist);
  if (p.reorder) s += " reorder";
  return s;
}

std::string limitText(const LinkParams& p) {
  std::string s = std::to_string(p.limit_packets) + " packets";
  if (p.limit_bytes) s += ", " + std::to_string(p.limit_bytes) + " B";
  return s;
}

std::string linkParamsSummary(const LinkParams& p) {
  const std::string s = formatLinkParams(p, LinkParamsWords::kChanged);
  return s.empty() ? "-" : s;
}

std::string count(uint64_t v) { return std::to_string(v); }

std::string aqmText(const LinkParams& p) {
  if (p.aqm == LinkParams::Aqm::kNone) return "none";
  // Only the discipline's words of the one formatter: from "aqm codel" on.
  const std::string all = formatLinkParams(p);
  const size_t at = all.find("aqm ");
  return at == std::string::npos ? aqmName(p.aqm) : all.substr(at + 4);
}

uint64_t linkDrops(const LinkDirectionStats& s) {
  return s.queue_drops + s.loss_drops + s.full_drops + s.link_down_drops + s.aqm_drops +
         s.backoff_drops;
}

/// Frames dropped (queue, loss, emulation capacity, link down) per frame offered to the
/// direction (sent while it was up, tx_packets, and while it was down); negative when none
/// was.
double dropRatio(const LinkDirectionStats& s) {
  const uint64_t offered = s.tx_packets + s.link_down_drops;
  return offered ? double(linkDrops(s)) / double(offered) : -1;
}

std::string ratioText(const LinkDirectionStats& s) {
  const double r = dropRatio(s);
  if (r < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f%%", r * 100);
  return b;
}

/// A measured time, three significant digits: "41.7ms", "3.07us", "850ns".
std::string shortTime(uint64_t ns) {
  static const struct {
    double scale;
    const char* unit;
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
  char b[32];
  for (const auto& u : units) {
    // 999,600 ns is "1ms", not "1e+03us": a value that rounds up to 1000 takes the unit above.
    if (double(ns) >= u.scale * 0.9995) {
      std::snprintf(b, sizeof b, "%.3g%s", double(ns) / u.scale, u.unit);
      return b;
    }
  }
  return std::to_string(ns) + "ns";
}

std::string sojournText(const LinkDirectionStats& s, uint64_t ns) {
  return s.enqueued || ns ? shortTime(ns) : "-";
}

void linkParamsJson(JsonWriter& w, const LinkParams& p) {
  w.beginObject()
      .key("rate_bps")
      .value(p.rate_bps)
      .key("overhead_bytes")
      .value(int64_t(p.overhead_bytes))
      .key("mpu_bytes")
      .value(p.mpu_bytes)
      .key("delay_ns")
      .value(p.delay_ns)
      .key("jitter_ns")
      .value(p.jitter_ns)
      .key("distribution")
      .value(jitterDistributionName(p.jitter_dist))
      .key("reorder")
      .value(p.reorder)
      .key("limit_packets")
      .value(p.limit_packets)
      .key("limit_bytes")
      .value(p.limit_bytes)
      .key("loss")
      .value(p.gilbert_elliott ? 0.0 : p.loss)
      .key("gemodel");
  if (p.gilbert_elliott)
    w.beginObject()
        .key("p")
        .value(p.ge_p)
        .key("r")
        .value(p.ge_r)
        .key("loss_bad")
        .value(p.ge_loss_bad)
        .key("loss_good")
        .value(p.ge_loss_good)
        .endObject();
  else
    w.null();
  w.key("duplicate")
      .value(p.duplicate)
      .key("corrupt")
      .value(p.corrupt)
      .key("seed")
      .value(p.seed)
      .key("text")
      .value(formatLinkParams(p))
      .key("aqm")
      .value(aqmText(p))
      .endObject();
}

void linkStatsJson(JsonWriter& w, const LinkDirectionStats& s) {
  w.beginObject()
      .key("tx_packets")
      .value(s.tx_packets)
      .key("tx_bytes")
      .value(s.tx_bytes)
      .key("enqueued")
      .value(s.enqueued)
      .key("delivered")
      .value(s.delivered)
      .key("queue_drops")
      .value(s.queue_drops)
      .key("loss_drops")
      .value(s.loss_drops)
      .key("full_drops")
      .value(s.full_drops)
      .key("aqm_drops")
      .value(s.aqm_drops)
      .key("aqm_marks")
      .value(s.aqm_marks)
      .key("aqm_forced_drops")
      .value(s.aqm_forced_drops)
      .key("aqm_forced_marks")
      .value(s.aqm_forced_marks)
      .key("aqm_drop_bytes")
      .value(s.aqm_drop_bytes)
      .key("aqm_forced_drop_bytes")
      .value(s.aqm_forced_drop_bytes)
      .key("backoff_drops")
      .value(s.backoff_drops)
      .key("fq_packets")
      .value(s.fq_packets)
      .key("fq_bytes")
      .value(s.fq_bytes)
      .key("link_down_drops")
      .value(s.link_down_drops)
      .key("duplicated")
      .value(s.duplicated)
      .key("corrupted")
      .value(s.corrupted)
      .key("depth_packets")
      .value(s.depth_packets)
      .key("depth_bytes")
      .value(s.depth_bytes)
      .key("in_flight")
      .value(s.in_flight)
      .key("sojourn_p50_ns")
      .value(s.sojourn_p50_ns)
      .key("sojourn_p99_ns")
      .value(s.sojourn_p99_ns)
      .key("sojourn_max_ns")
      .value(s.sojourn_max_ns)
      .key("lateness_p50_ns")
      .value(s.lateness_p50_ns)
      .key("lateness_p99_ns")
      .value(s.lateness_p99_ns)
      .key("lateness_max_ns")
      .value(s.lateness_max_ns)
      .key("drop_ratio");
  if (dropRatio(s) < 0)
    w.null();
  else
    w.value(dropRatio(s));
  w.endObject();
}

std::string linkStatsLine(const LinkDirectionStats& s) {
  return "sent " + count(s.tx_packets) + ", delivered " + count(s.delivered) + ", dropped " +
         count(linkDrops(s)) + " (" + ratioText(s) + "; queue " + count(s.queue_drops) + ", loss " +
         count(s.loss_drops) + ", capacity " + count(s.full_drops) + ", down " +
         count(s.link_down_drops) +
         (s.aqm_drops || s.aqm_marks
              ? ", aqm " + count(s.aqm_drops) + ", marked " + count(s.aqm_marks)
              : std::string()) +
         (s.backoff_drops ? ", backoff " + count(s.backoff_drops) : std::string()) +
         "), queued " + count(s.depth_packets) + ", in flight " +
         count(s.in_flight) + ", time in queue p50 " + sojournText(s, s.sojourn_p50_ns) +
         " p99 " + sojournText(s, s.sojourn_p99_ns);
}

}  // namespace fastpath::ctrl::fpctl
