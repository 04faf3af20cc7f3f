// SPDX-License-Identifier: GPL-2.0-only
// fpctl stats: fastpathd's counters, once or --watch as rates.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

  Prints every counter set of fastpathd (per port, per worker, per classifier verdict
  and drop reason, the control server). With --watch, repeats every SECONDS (default 1)
  and adds the per-second rate of each counter; --count N stops after N rounds.
  With --json and --watch, prints one JSON document per line.

  With --node NAME (a global option: `fpctl --node r1 stats ...`), this acts on that
  fastpathd node; without, on the default node. An unknown node is exit status 1.
)";

}  // namespace

int cmdStats(const Global& g) {
  if (g.help) return printHelp(g, kStatsHelp);
  std::vector<std::string> a = g.args;
  std::string interval_s, count_s;
  bool watch = takeFlag(a, "--watch", &interval_s, /*value_optional=*/true) ||
               takeFlag(a, "-w", &interval_s, true);
  bool has_count = takeFlag(a, "--count", &count_s);
  if (!a.empty()) return usage("stats: unexpected argument '" + a[0] + "'", kStatsHelp);
  double interval = interval_s.empty() ? 1.0 : std::atof(interval_s.c_str());
  if (interval <= 0) return usage("--watch: interval must be > 0 seconds", kStatsHelp);
  long count = has_count ? std::atol(count_s.c_str()) : (watch ? -1 : 1);
  if (has_count && count <= 0) return usage("--count: must be > 0", kStatsHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  std::map<std::string, uint64_t> prev;
  for (long round = 0; (count < 0 || round < count) && !g_stop; ++round) {
    if (round > 0) std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    if (g_stop) break;
    auto st = s.client().stats();
    if (!st) return fail(st.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& set : st.value()) {
        w.beginObject().key("scope").value(set.scope).key("counters").beginObject();
        for (const auto& [name, v] : set.counters) w.key(name).value(v);
        w.endObject().endObject();
      }
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      if (watch && round > 0) std::printf("\n");
      for (const auto& set : st.value()) {
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
    }
    std::fflush(stdout);
  }
  return kExitOk;
}

}  // namespace fastpath::ctrl::fpctl
