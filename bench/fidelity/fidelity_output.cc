// SPDX-License-Identifier: GPL-2.0-only
#include "fidelity_output.h"

#include <cmath>
#include <cstdio>

namespace fastpath::fidelity {

namespace {

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (uint8_t(c) < 0x20) continue;
    o += c;
  }
  return o;
}

}  // namespace

JsonObject& JsonObject::num(const std::string& k, double v) {
  char b[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15)
    std::snprintf(b, sizeof(b), "%.0f", v);
  else
    std::snprintf(b, sizeof(b), "%.9g", std::isfinite(v) ? v : 0.0);
  return raw(k, b);
}

JsonObject& JsonObject::str(const std::string& k, const std::string& v) {
  return raw(k, "\"" + jsonEscape(v) + "\"");
}

JsonObject& JsonObject::raw(const std::string& k, const std::string& v) {
  s_ += (s_.empty() ? "{" : ", ") + ("\"" + jsonEscape(k) + "\": ") + v;
  return *this;
}

JsonObject directionJson(const LinkDirectionStats& a, const LinkDirectionStats& b) {
  JsonObject o;
  o.num("tx_packets", double(b.tx_packets - a.tx_packets))
      .num("tx_bytes", double(b.tx_bytes - a.tx_bytes))
      .num("enqueued", double(b.enqueued - a.enqueued))
      .num("delivered", double(b.delivered - a.delivered))
      .num("queue_drops", double(b.queue_drops - a.queue_drops))
      .num("loss_drops", double(b.loss_drops - a.loss_drops))
      .num("full_drops", double(b.full_drops - a.full_drops))
      .num("link_down_drops", double(b.link_down_drops - a.link_down_drops))
      .num("in_flight_end", double(b.in_flight))
      .num("depth_packets_end", double(b.depth_packets))
      .num("sojourn_p50_ns", double(b.sojourn_p50_ns))
      .num("sojourn_p99_ns", double(b.sojourn_p99_ns))
      .num("sojourn_max_ns", double(b.sojourn_max_ns));
  return o;
}

std::string countersJson(const std::vector<CounterSet>& sets, bool nonzero_only) {
  JsonObject o;
  for (const auto& cs : sets) {
    JsonObject c;
    for (const auto& [k, v] : cs.counters)
      if (!nonzero_only || v) c.num(k, double(v));
    o.raw(cs.scope, c.done());
  }
  return o.done();
}

bool writeFrames(const std::string& path, const std::vector<Record>& recs, uint64_t t0) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "seq,flow,len,send_ns,recv_ns\n");
  for (const Record& r : recs)
    std::fprintf(f, "%llu,%u,%u,%lld,%lld\n", (unsigned long long)r.seq, unsigned(r.flow), r.len,
                 (long long)(r.send_ns - t0), (long long)(r.recv_ns - t0));
  return std::fclose(f) == 0;
}

}  // namespace fastpath::fidelity
