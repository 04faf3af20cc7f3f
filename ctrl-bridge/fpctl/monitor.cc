// SPDX-License-Identifier: GPL-2.0-only
// fpctl monitor: fastpathd's events as they arrive.
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

const char* kMonitorHelp =
    R"(Usage: fpctl [--node NAME] monitor [--count N] [--all-nodes] [--json]

  Subscribes to fastpathd's events (route miss, port up/down, neighbour needed, a radio
  medium's unicast not acknowledged after its retries) and prints them as they arrive;
  --count N exits after N events. Events are those of one node: the default node, or
  NAME with --node; --all-nodes prints every node's, each line starting with "node NAME". In JSON every event names its "node".
  "events-dropped N": N events were missed while fpctl was not reading.
  "medium-retry-limit dev PORT MAC": a frame PORT sent to MAC on a radio medium was
  dropped after the station's retries.
)";

}  // namespace

namespace {

const char* eventName(FastPathEvent::Kind k) {
  switch (k) {
    case FastPathEvent::Kind::kRouteMiss: return "route-miss";
    case FastPathEvent::Kind::kPortUp: return "port-up";
    case FastPathEvent::Kind::kPortDown: return "port-down";
    case FastPathEvent::Kind::kNeighbourNeeded: return "neighbour-needed";
    case FastPathEvent::Kind::kEventsDropped: return "events-dropped";
    case FastPathEvent::Kind::kMediumRetryLimit: return "medium-retry-limit";
  }
  return "unknown";
}

}  // namespace

int cmdMonitor(const Global& g) {
  if (g.help) return printHelp(g, kMonitorHelp);
  std::vector<std::string> a = g.args;
  std::string count_s;
  long count = takeFlag(a, "--count", &count_s) ? std::atol(count_s.c_str()) : -1;
  Subscription what;
  what.all_nodes = takeFlag(a, "--all-nodes");
  if (!a.empty()) return usage("monitor: unexpected argument '" + a[0] + "'", kMonitorHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  if (auto st = s.client().subscribe(what); !st) return fail(st.error(), true);
  for (long n = 0; (count < 0 || n < count) && !g_stop;) {
    auto e = s.client().nextEvent(200);
    if (!e) return fail(e.error(), true);
    if (!e.value()) continue;
    const auto& ev = *e.value();
    // A radio medium's failure names the receiver's MAC where other events name an address.
    const std::string address = ev.kind == FastPathEvent::Kind::kMediumRetryLimit
                                    ? ev.mac.toString()
                                    : ev.address.toString();
    if (ev.kind == FastPathEvent::Kind::kEventsDropped) {
      // fastpathd could not queue these for us while we were not reading.
      if (g.json)
        std::printf("{\"event\":\"events-dropped\",\"dropped\":%llu}\n",
                    static_cast<unsigned long long>(ev.dropped));
      else
        std::printf("events-dropped %llu\n", static_cast<unsigned long long>(ev.dropped));
    } else if (g.json) {
      JsonWriter w;
      w.beginObject()
          .key("event")
          .value(eventName(ev.kind))
          .key("node")
          .value(ev.node)
          .key("dev")
          .value(what.all_nodes ? s.portName(ev.node, ev.port) : s.portName(ev.port))
          .key("port")
          .value(ev.port)
          .key(ev.kind == FastPathEvent::Kind::kMediumRetryLimit ? "mac" : "address")
          .value(address)
          .endObject();
      std::printf("%s\n", w.str().c_str());
    } else if (what.all_nodes) {
      std::printf("node %s %s dev %s %s\n", ev.node.c_str(), eventName(ev.kind),
                  s.portName(ev.node, ev.port).c_str(), address.c_str());
    } else {
      std::printf("%s dev %s %s\n", eventName(ev.kind), s.portName(ev.port).c_str(),
                  address.c_str());
    }
    std::fflush(stdout);
    ++n;
  }
  return kExitOk;
}

}  // namespace fastpath::ctrl::fpctl
