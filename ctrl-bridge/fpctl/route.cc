// SPDX-License-Identifier: GPL-2.0-only
// fpctl route: add, del, show, replace-all (from a file or generated).
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

const char* kRouteHelp =
    R"(Usage: fpctl route add PREFIX [via ADDR] dev IFNAME [metric N]
       fpctl route replace PREFIX [via ADDR] dev IFNAME [metric N]
       fpctl route del PREFIX [--ignore-missing]
       fpctl route show [--json]
       fpctl route replace-all --file FILE [--generate N dev IFNAME [via ADDR]] [--chunk N]

  PREFIX   IPv4 or IPv6 prefix, e.g. 198.18.2.0/24 or 2001:2:0:1::/64. Host bits must
           be zero (198.18.2.1/24 is rejected; fpctl suggests 198.18.2.0/24).
  via      gateway (same family); omitted = destination on-link on IFNAME
  dev      egress port, by name (see `fpctl ports`) or numeric port id
  metric   informational, 0..4294967295

  add/replace are the same operation: a route with the same prefix is replaced.
  del fails with exit status 1 if the route does not exist, unless --ignore-missing.
  replace-all sends the whole table as one transaction (split into chunks of --chunk
  routes, default 100000): fastpathd applies all of it or none of it.
    --file FILE    one route per line, same syntax as `route add` ('#' comments)
    --generate N   N synthetic /24 routes 11.0.0.0/24, 11.0.1.0/24, ... (for tests and
                   benchmarks) through `dev IFNAME` [via ADDR]; combined with --file if both
  The time the transaction took is printed (and given in --json as "seconds").

  With --node NAME (a global option: `fpctl --node r1 route ...`), this acts on that
  fastpathd node; without, on the default node. An unknown node is exit status 1.
)";

}  // namespace

int cmdRoute(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kRouteHelp);
  std::string cmd = a[0];
  a.erase(a.begin());
  Global gc = g;
  Session s(gc);
  if (cmd == "add" || cmd == "replace" || cmd == "change") {
    if (a.empty()) return usage("route " + cmd + ": missing PREFIX", kRouteHelp);
    // Check the syntax before connecting (ports are resolved by fastpathd afterwards).
    if (auto pre = parseRoute(a, [](const std::string&) -> Result<PortId> { return PortId{0}; });
        !pre)
      return usage(pre.error().message, kRouteHelp);
    if (int rc = s.connect()) return rc;
    auto r = parseRoute(a, s.portLookup());
    if (!r)
      return r.error().code == -ENODEV ? fail(r.error(), true)
                                       : usage(r.error().message, kRouteHelp);
    if (auto st = s.client().addRoute(r.value()); !st) return fail(st.error(), true);
    return printOk(g, "route " + r->prefix.toString() + " added");
  }
  if (cmd == "del" || cmd == "delete") {
    bool ignore = takeFlag(a, "--ignore-missing");
    if (a.size() != 1) return usage("route del: expected exactly one PREFIX", kRouteHelp);
    auto p = IpPrefix::parse(a[0]);
    if (!p) return usage(p.error().message, kRouteHelp);
    if (int rc = s.connect()) return rc;
    if (auto st = s.client().deleteRoute(p.value(), ignore); !st) return fail(st.error(), true);
    return printOk(g, "route " + p->toString() + " deleted");
  }
  if (cmd == "show" || cmd == "list" || cmd == "ls") {
    if (!a.empty()) return usage("route show: unexpected argument '" + a[0] + "'", kRouteHelp);
    if (int rc = s.connect()) return rc;
    auto rs = s.client().routes();
    if (!rs) return fail(rs.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& r : rs.value()) {
        w.beginObject().key("prefix").value(r.prefix.toString()).key("via");
        if (r.next_hop.isUnspecified())
          w.null();
        else
          w.value(r.next_hop.toString());
        w.key("dev")
            .value(s.portName(r.port))
            .key("port")
            .value(r.port)
            .key("metric")
            .value(r.metric)
            .endObject();
      }
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      for (const auto& r : rs.value()) {
        std::printf("%s", r.prefix.toString().c_str());
        if (!r.next_hop.isUnspecified()) std::printf(" via %s", r.next_hop.toString().c_str());
        std::printf(" dev %s", s.portName(r.port).c_str());
        if (r.metric) std::printf(" metric %u", r.metric);
        std::printf("\n");
      }
    }
    return kExitOk;
  }
  if (cmd == "replace-all" || cmd == "flush-replace") {
    std::string file, gen, chunk;
    bool has_file = takeFlag(a, "--file", &file);
    bool has_gen = takeFlag(a, "--generate", &gen);
    bool has_chunk = takeFlag(a, "--chunk", &chunk);
    if (!has_file && !has_gen)
      return usage("route replace-all: give --file FILE and/or --generate N", kRouteHelp);
    std::string dev, via;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == "dev" && i + 1 < a.size())
        dev = a[++i];
      else if (a[i] == "via" && i + 1 < a.size())
        via = a[++i];
      else
        return usage("route replace-all: unexpected argument '" + a[i] + "'", kRouteHelp);
    }
    if (has_gen && dev.empty())
      return usage("route replace-all --generate needs dev IFNAME", kRouteHelp);
    char* end = nullptr;
    unsigned long long count = has_gen ? std::strtoull(gen.c_str(), &end, 10) : 0;
    if (has_gen && (gen.empty() || *end))
      return usage("--generate: '" + gen + "' is not a count", kRouteHelp);
    unsigned long long per = has_chunk ? std::strtoull(chunk.c_str(), &end, 10) : 100000;
    if (has_chunk && (chunk.empty() || *end || per == 0))
      return usage("--chunk: '" + chunk + "' is not a positive count", kRouteHelp);
    gc.chunk = static_cast<std::size_t>(per);
    if (int rc = s.connect()) return rc;
    std::vector<Route> table;
    if (has_file) {
      auto rs = readRouteFile(file, s.portLookup());
      if (!rs)
        return rs.error().code == -ENODEV ? fail(rs.error(), true)
                                          : usage(rs.error().message, kRouteHelp);
      table = std::move(rs).value();
    }
    if (has_gen) {
      auto port = s.portLookup()(dev);
      if (!port) return fail(port.error(), true);
      IpAddress gw;
      if (!via.empty()) {
        auto v = IpAddress::parse(via);
        if (!v || v->family != Family::kIpv4)
          return usage("via " + via + ": not an IPv4 address", kRouteHelp);
        gw = v.value();
      }
      auto rs = generateRoutes(count, port.value(), gw);
      if (!rs) return usage(rs.error().message, kRouteHelp);
      table.insert(table.end(), rs->begin(), rs->end());
    }
    RouteBatch b;
    b.replace_all = true;
    b.add = std::move(table);
    std::size_t n = b.add.size();
    auto t0 = std::chrono::steady_clock::now();
    Status st = s.client().applyRoutes(b);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st) return fail(st.error(), true);
    return printOk(g, "replaced the table with " + std::to_string(n) + " routes", secs);
  }
  return usage("route: unknown command '" + cmd + "'", kRouteHelp);
}

}  // namespace fastpath::ctrl::fpctl
