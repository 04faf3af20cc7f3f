// SPDX-License-Identifier: GPL-2.0-only
// fpctl stats: fastpathd's counters, once or --watch as rates.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kStatsHelp =
    R"(Usage: fpctl stats [--watch [SECONDS]] [--count N] [--json]
       fpctl stats --reset [--watch [SECONDS]] [--count N] [--json]

  Prints every counter set of fastpathd (per port, per worker, per classifier verdict
  and drop reason, the control server). With --watch, repeats every SECONDS (default 1)
  and adds the per-second rate of each counter; --count N stops after N rounds.
  With --json and --watch, prints one JSON document per line; its last set, scope
  "histograms", says since when the histograms count (since_unix_ns, resets).

  The histograms and maxima (every *_p50_ns, *_p99_ns, *_max_ns: the workers' lateness,
  rx_wait, emu_wake_late, stall_max_ns, and those of every link, segment and medium)
  count since fastpathd started or since the last --reset, as the "since" line says;
  every other counter counts from the start and is never reset.
  --reset zeroes them in every worker without stopping it (each does so at its next
  pass; the command returns once all did) and prints when; with --watch or --count,
  the counters are printed afterwards as without it. Operators only (as creating
  links: root, the socket's owner, an allowed uid).

  With --node NAME (a global option: `fpctl --node r1 stats ...`), this acts on that
  fastpathd node; without, on the default node. An unknown node is exit status 1.
)";

// "2026-11-29 00:51:02.123 UTC": when the histograms started counting.
std::string formatUnixTime(uint64_t unix_ns) {
  const time_t secs = time_t(unix_ns / 1000000000ull);
  tm t{};
  gmtime_r(&secs, &t);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03u UTC", t.tm_year + 1900,
                t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                unsigned(unix_ns / 1000000ull % 1000));
  return buf;
}

}  // namespace

void printHistogramsSince(const StatsEpoch& epoch, const char* indent) {
  if (!epoch.since_unix_ns) return;
  const std::string since =
      epoch.resets ? "reset " + std::to_string(epoch.resets) + " time(s)"
                   : std::string("fastpathd started, never reset");
  std::printf("%shistograms and maxima since %s (%s); counters since fastpathd started\n",
              indent, formatUnixTime(epoch.since_unix_ns).c_str(), since.c_str());
}

void histogramsSinceJson(JsonWriter& w, const StatsEpoch& epoch) {
  if (!epoch.since_unix_ns) return;
  w.key("histograms")
      .beginObject()
      .key("since_unix_ns")
      .value(epoch.since_unix_ns)
      .key("resets")
      .value(epoch.resets)
      .endObject();
}

int cmdStats(const Global& g) {
  if (g.help) return printHelp(g, kStatsHelp);
  std::vector<std::string> a = g.args;
  std::string interval_s, count_s;
  bool watch = takeFlag(a, "--watch", &interval_s, /*value_optional=*/true) ||
               takeFlag(a, "-w", &interval_s, true);
  bool has_count = takeFlag(a, "--count", &count_s);
  const bool reset = takeFlag(a, "--reset");
  if (!a.empty()) return usage("stats: unexpected argument '" + a[0] + "'", kStatsHelp);
  double interval = interval_s.empty() ? 1.0 : std::atof(interval_s.c_str());
  if (interval <= 0) return usage("--watch: interval must be > 0 seconds", kStatsHelp);
  long count = has_count ? std::atol(count_s.c_str()) : (watch ? -1 : 1);
  if (has_count && count <= 0) return usage("--count: must be > 0", kStatsHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  if (reset) {
    auto e = s.client().resetStats();
    if (!e) return fail(e.error(), true);
    if (g.json && !watch && !has_count) {
      JsonWriter w;
      w.beginObject()
          .key("since_unix_ns")
          .value(e->since_unix_ns)
          .key("resets")
          .value(e->resets)
          .key("workers")
          .value(uint64_t(e->workers))
          .endObject();
      std::printf("%s\n", w.str().c_str());
    } else if (!g.json) {
      std::printf("histograms and maxima reset at %s in %u worker(s); counters keep counting\n",
                  formatUnixTime(e->since_unix_ns).c_str(), e->workers);
    }
    if (!watch && !has_count) return kExitOk;
  }
  std::map<std::string, uint64_t> prev;
  for (long round = 0; (count < 0 || round < count) && !g_stop; ++round) {
    if (round > 0) std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    if (g_stop) break;
    auto report = s.client().statsReport();
    if (!report) return fail(report.error(), true);
    const std::vector<CounterSet>& sets = report->sets;
    const StatsEpoch& epoch = report->epoch;
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& set : sets) {
        w.beginObject().key("scope").value(set.scope).key("counters").beginObject();
        for (const auto& [name, v] : set.counters) w.key(name).value(v);
        w.endObject().endObject();
      }
      // A set like the others, so that readers of the array keep working.
      if (epoch.since_unix_ns)
        w.beginObject()
            .key("scope")
            .value("histograms")
            .key("counters")
            .beginObject()
            .key("since_unix_ns")
            .value(epoch.since_unix_ns)
            .key("resets")
            .value(epoch.resets)
            .endObject()
            .endObject();
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      if (watch && round > 0) std::printf("\n");
      for (const auto& set : sets) {
        std::printf("%s:\n", set.scope.c_str());
        for (const auto& [name, v] : set.counters) {
          std::string key = set.scope + "/" + name;
          if (watch && round > 0 && prev.count(key)) {
            double rate = static_cast<double>(v - prev[key]) / interval;
            std::printf("  %-28s %20llu  %12.0f/s\n", name.c_str(),
                        static_cast<unsigned long long>(v), rate);
          } else {
            std::printf("  %-28s %20llu\n", name.c_str(), static_cast<unsigned long long>(v));
          }
          prev[key] = v;
        }
      }
      printHistogramsSince(epoch, "");
    }
    std::fflush(stdout);
  }
  return kExitOk;
}

}  // namespace fastpath::ctrl::fpctl
