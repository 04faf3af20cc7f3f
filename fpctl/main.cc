// SPDX-License-Identifier: GPL-2.0-only
// fpctl: command-line control of fastpathd over its control socket.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "json.h"
#include "route_spec.h"

namespace fastpath::ctrl::fpctl {
namespace {

// Exit codes (documented in docs/fpctl.md and --help).
constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;    // fastpathd refused the request (bad field, not found, ...)
constexpr int kExitUsage = 2;       // bad command line
constexpr int kExitConnect = 3;     // cannot reach fastpathd / connection lost / timeout
constexpr int kExitPermission = 4;  // not allowed to talk to fastpathd
constexpr int kExitVersion = 5;     // protocol version mismatch

const char* kMainHelp =
    R"(Usage: fpctl [OPTIONS] OBJECT COMMAND [ARGS]

Control fastpathd, the AF_XDP fast path of ns3-fastpath.

Objects and commands:
  route add PREFIX [via ADDR] dev IFNAME [metric N]   add (or replace) a route
  route replace PREFIX [via ADDR] dev IFNAME [metric N]  same as add
  route del PREFIX [--ignore-missing]                 delete a route
  route show                                          list routes
  route replace-all (--file FILE | --generate N [dev IFNAME] [via ADDR])
                                                      replace the whole table atomically
  neigh add ADDR lladdr MAC dev IFNAME                add (or update) a neighbour
  neigh del ADDR dev IFNAME                           delete a neighbour
  neigh show                                          list neighbours
  rules show                                          list control rules
  rules set RULE...                                   replace the control rules
  stats [--watch [SECONDS]] [--count N]               show counters
  ports                                               list ports
  monitor [--count N]                                 print events as they happen

Options:
  -s, --socket PATH   fastpathd's control socket (default /run/fastpathd/fastpathd.sock,
                      or $FASTPATHD_SOCKET)
  -j, --json          machine-readable output (one JSON document on stdout)
  -t, --timeout MS    reply timeout (default 60000)
  -h, --help          this help; `fpctl OBJECT --help` for one object
  -V, --version       print fpctl's and the protocol's version

Exit status:
  0  success
  1  fastpathd rejected the request (the message names the offending field)
  2  usage error (bad command line, unreadable route file)
  3  cannot connect to fastpathd, connection lost, or no reply in time
  4  permission denied (SO_PEERCRED check or socket permissions)
  5  protocol version mismatch between fpctl and fastpathd
)";

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
)";

const char* kNeighHelp =
    R"(Usage: fpctl neigh add ADDR lladdr MAC dev IFNAME
       fpctl neigh del ADDR dev IFNAME
       fpctl neigh show [--json]

  Neighbours resolve next hops to MAC addresses on a port (like `ip neigh`).
)";

const char* kRulesHelp =
    R"(Usage: fpctl rules show [--json]
       fpctl rules set RULE...

  Control rules decide which frames the XDP classifier sends to the control channel
  (ns-3) instead of forwarding them. `rules set` replaces the whole set. RULE is one of
    ethertype NUM     e.g. ethertype 0x0806 (ARP)
    proto NUM         IP protocol, e.g. proto 89 (OSPF)
    udp PORT | tcp PORT   e.g. udp 698 (OLSR), udp 520 (RIP)
    local ADDR        frames addressed to this node's address
  optionally followed by `pass` (hand to the host kernel) or `control` (default).
  Example: fpctl rules set ethertype 0x0806 udp 698 local 198.18.1.1
)";

const char* kStatsHelp =
    R"(Usage: fpctl stats [--watch [SECONDS]] [--count N] [--json]

  Prints every counter set of fastpathd (per port, per worker, per classifier verdict
  and drop reason, the control server). With --watch, repeats every SECONDS (default 1)
  and adds the per-second rate of each counter; --count N stops after N rounds.
  With --json and --watch, prints one JSON document per line.
)";

const char* kPortsHelp =
    R"(Usage: fpctl ports [--json]

  Lists fastpathd's ports: id, interface, MAC, MTU, state, queues, XDP and XSK modes.
)";

const char* kMonitorHelp =
    R"(Usage: fpctl monitor [--count N] [--json]

  Subscribes to fastpathd's events (route miss, port up/down, neighbour needed) and
  prints them as they arrive; --count N exits after N events.
)";

struct Global {
  std::string socket = kDefaultSocketPath;
  bool json = false;
  bool help = false;
  int timeout_ms = 60000;
  std::size_t chunk = 100000;
  std::vector<std::string> args;  // positional and command-specific options
};

volatile std::sig_atomic_t g_stop = 0;

int exitFor(const Error& e, bool connected) {
  switch (-e.code) {
    case EACCES:
    case EPERM: return kExitPermission;
    case EPROTONOSUPPORT: return kExitVersion;
    case ECONNREFUSED:
    case ENOENT:
      return connected ? kExitRejected : kExitConnect;
    case EPIPE:
    case ECONNRESET:
    case ENOTCONN:
    case ETIMEDOUT:
    case ENAMETOOLONG: return kExitConnect;
    default: return kExitRejected;
  }
}

int fail(const Error& e, bool connected) {
  std::fprintf(stderr, "fpctl: %s\n", e.message.c_str());
  return exitFor(e, connected);
}

int usage(const std::string& msg, const char* help) {
  std::fprintf(stderr, "fpctl: %s\n\n%s", msg.c_str(), help);
  return kExitUsage;
}

/// Removes `--flag` (and its value when takes_value) from args; returns whether present.
bool takeFlag(std::vector<std::string>& args, const std::string& flag, std::string* value = nullptr,
              bool value_optional = false) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != flag) continue;
    if (value) {
      bool has = i + 1 < args.size() && (!value_optional || (!args[i + 1].empty() && args[i + 1][0] != '-'));
      if (has) {
        *value = args[i + 1];
        args.erase(args.begin() + i, args.begin() + i + 2);
        return true;
      }
      if (!value_optional) return false;
    }
    args.erase(args.begin() + i);
    return true;
  }
  return false;
}

class Session {
 public:
  explicit Session(const Global& g) : g_(g) {}

  int connect() {
    ClientOptions o;
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    o.node_name = host;
    o.client_name = "fpctl";
    o.reply_timeout_ms = g_.timeout_ms;
    o.routes_per_chunk = g_.chunk;
    auto c = Client::connect(g_.socket, o);
    if (!c) return fail(c.error(), false);
    client_ = std::move(c).value();
    return kExitOk;
  }

  Client& client() { return *client_; }

  PortLookup portLookup() {
    return [this](const std::string& name) -> Result<PortId> {
      if (!ports_loaded_) {
        auto ps = client_->ports();
        if (!ps) return ps.error();
        for (const auto& p : ps.value()) {
          names_[p.ifname] = p.id;
          ids_[p.id] = p.ifname;
        }
        ports_loaded_ = true;
      }
      auto it = names_.find(name);
      if (it != names_.end()) return it->second;
      char* end = nullptr;
      unsigned long id = std::strtoul(name.c_str(), &end, 10);
      if (!name.empty() && *end == '\0' && ids_.count(static_cast<PortId>(id)))
        return static_cast<PortId>(id);
      std::string known;
      for (const auto& [n, i] : names_) known += (known.empty() ? "" : ", ") + n;
      return makeError(-ENODEV, "no port '" + name + "' (fastpathd has: " +
                                    (known.empty() ? "none" : known) + ")");
    };
  }

  std::string portName(PortId id) {
    if (!ports_loaded_) (void)portLookup()("");
    auto it = ids_.find(id);
    return it == ids_.end() ? "port" + std::to_string(id) : it->second;
  }

 private:
  const Global& g_;
  std::unique_ptr<Client> client_;
  bool ports_loaded_ = false;
  std::map<std::string, PortId> names_;
  std::map<PortId, std::string> ids_;
};

int printOk(const Global& g, const std::string& what, double seconds = -1) {
  if (g.json) {
    JsonWriter w;
    w.beginObject().key("ok").value(true).key("result").value(what);
    if (seconds >= 0) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.6f", seconds);
      std::printf("%s,\"seconds\":%s}\n", w.str().c_str(), buf);
      return kExitOk;
    }
    w.endObject();
    std::printf("%s\n", w.str().c_str());
  } else if (seconds >= 0) {
    std::printf("%s in %.3f s\n", what.c_str(), seconds);
  }
  return kExitOk;
}

// ------------------------------------------------------------------ route

int cmdRoute(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) {
    std::fputs(kRouteHelp, g.help ? stdout : stderr);
    return g.help ? kExitOk : kExitUsage;
  }
  std::string cmd = a[0];
  a.erase(a.begin());
  Global gc = g;
  Session s(gc);
  if (cmd == "add" || cmd == "replace" || cmd == "change") {
    if (a.empty()) return usage("route " + cmd + ": missing PREFIX", kRouteHelp);
    // Check the syntax before connecting (ports are resolved by fastpathd afterwards).
    if (auto pre = parseRoute(a, [](const std::string&) -> Result<PortId> { return PortId{0}; }); !pre)
      return usage(pre.error().message, kRouteHelp);
    if (int rc = s.connect()) return rc;
    auto r = parseRoute(a, s.portLookup());
    if (!r) return r.error().code == -ENODEV ? fail(r.error(), true) : usage(r.error().message, kRouteHelp);
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
        if (r.next_hop.isUnspecified()) w.null(); else w.value(r.next_hop.toString());
        w.key("dev").value(s.portName(r.port)).key("port").value(r.port)
            .key("metric").value(r.metric).endObject();
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
      if (a[i] == "dev" && i + 1 < a.size()) dev = a[++i];
      else if (a[i] == "via" && i + 1 < a.size()) via = a[++i];
      else return usage("route replace-all: unexpected argument '" + a[i] + "'", kRouteHelp);
    }
    if (has_gen && dev.empty()) return usage("route replace-all --generate needs dev IFNAME", kRouteHelp);
    char* end = nullptr;
    unsigned long long count = has_gen ? std::strtoull(gen.c_str(), &end, 10) : 0;
    if (has_gen && (gen.empty() || *end)) return usage("--generate: '" + gen + "' is not a count", kRouteHelp);
    unsigned long long per = has_chunk ? std::strtoull(chunk.c_str(), &end, 10) : 100000;
    if (has_chunk && (chunk.empty() || *end || per == 0)) return usage("--chunk: '" + chunk + "' is not a positive count", kRouteHelp);
    gc.chunk = static_cast<std::size_t>(per);
    if (int rc = s.connect()) return rc;
    std::vector<Route> table;
    if (has_file) {
      auto rs = readRouteFile(file, s.portLookup());
      if (!rs) return rs.error().code == -ENODEV ? fail(rs.error(), true) : usage(rs.error().message, kRouteHelp);
      table = std::move(rs).value();
    }
    if (has_gen) {
      auto port = s.portLookup()(dev);
      if (!port) return fail(port.error(), true);
      IpAddress gw;
      if (!via.empty()) {
        auto v = IpAddress::parse(via);
        if (!v || v->family != Family::kIpv4) return usage("via " + via + ": not an IPv4 address", kRouteHelp);
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

// ------------------------------------------------------------------ neigh

int cmdNeigh(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) {
    std::fputs(kNeighHelp, g.help ? stdout : stderr);
    return g.help ? kExitOk : kExitUsage;
  }
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "add" || cmd == "replace") {
    if (a.empty()) return usage("neigh add: missing ADDR", kNeighHelp);
    if (auto pre = parseNeighbour(a, [](const std::string&) -> Result<PortId> { return PortId{0}; }); !pre)
      return usage(pre.error().message, kNeighHelp);
    if (int rc = s.connect()) return rc;
    auto n = parseNeighbour(a, s.portLookup());
    if (!n) return n.error().code == -ENODEV ? fail(n.error(), true) : usage(n.error().message, kNeighHelp);
    if (n->mac.isZero()) return usage("neigh add: missing 'lladdr MAC'", kNeighHelp);
    if (auto st = s.client().addNeighbour(n.value()); !st) return fail(st.error(), true);
    return printOk(g, "neighbour " + n->ip.toString() + " added");
  }
  if (cmd == "del" || cmd == "delete") {
    if (a.empty()) return usage("neigh del: missing ADDR", kNeighHelp);
    if (auto pre = parseNeighbour(a, [](const std::string&) -> Result<PortId> { return PortId{0}; }); !pre)
      return usage(pre.error().message, kNeighHelp);
    if (int rc = s.connect()) return rc;
    auto n = parseNeighbour(a, s.portLookup());
    if (!n) return n.error().code == -ENODEV ? fail(n.error(), true) : usage(n.error().message, kNeighHelp);
    if (auto st = s.client().deleteNeighbour(n->ip, n->port); !st) return fail(st.error(), true);
    return printOk(g, "neighbour " + n->ip.toString() + " deleted");
  }
  if (cmd == "show" || cmd == "list" || cmd == "ls") {
    if (int rc = s.connect()) return rc;
    auto ns = s.client().neighbours();
    if (!ns) return fail(ns.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& n : ns.value())
        w.beginObject().key("address").value(n.ip.toString()).key("lladdr").value(n.mac.toString())
            .key("dev").value(s.portName(n.port)).key("port").value(n.port).endObject();
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      for (const auto& n : ns.value())
        std::printf("%s dev %s lladdr %s\n", n.ip.toString().c_str(), s.portName(n.port).c_str(),
                    n.mac.toString().c_str());
    }
    return kExitOk;
  }
  return usage("neigh: unknown command '" + cmd + "'", kNeighHelp);
}

// ------------------------------------------------------------------ rules

int cmdRules(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) {
    std::fputs(kRulesHelp, g.help ? stdout : stderr);
    return g.help ? kExitOk : kExitUsage;
  }
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "show" || cmd == "list") {
    if (int rc = s.connect()) return rc;
    auto rs = s.client().controlRules();
    if (!rs) return fail(rs.error(), true);
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& r : rs.value()) {
        w.beginObject();
        switch (r.kind) {
          case ControlRule::Kind::kEtherType: w.key("kind").value("ethertype").key("ethertype").value(static_cast<uint32_t>(r.ethertype)); break;
          case ControlRule::Kind::kIpProto: w.key("kind").value("proto").key("proto").value(static_cast<uint32_t>(r.ip_proto)); break;
          case ControlRule::Kind::kL4Port: w.key("kind").value(r.ip_proto == 6 ? "tcp" : "udp").key("port").value(static_cast<uint32_t>(r.port)); break;
          case ControlRule::Kind::kLocalAddress: w.key("kind").value("local").key("address").value(r.address.toString()); break;
        }
        w.key("action").value(r.pass_to_kernel ? "pass" : "control").endObject();
      }
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      for (const auto& r : rs.value()) std::printf("%s\n", ruleToString(r).c_str());
    }
    return kExitOk;
  }
  if (cmd == "set") {
    auto rules = parseRules(a);
    if (!rules) return usage(rules.error().message, kRulesHelp);
    if (int rc = s.connect()) return rc;
    if (auto st = s.client().setControlRules(rules.value()); !st) return fail(st.error(), true);
    return printOk(g, std::to_string(rules->size()) + " control rules set");
  }
  return usage("rules: unknown command '" + cmd + "'", kRulesHelp);
}

// ------------------------------------------------------------------ stats, ports, monitor

int cmdStats(const Global& g) {
  if (g.help) {
    std::fputs(kStatsHelp, stdout);
    return kExitOk;
  }
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
            std::printf("  %-28s %20llu  %12.0f/s\n", name.c_str(), static_cast<unsigned long long>(v), rate);
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

int cmdPorts(const Global& g) {
  if (g.help) {
    std::fputs(kPortsHelp, stdout);
    return kExitOk;
  }
  if (!g.args.empty() && g.args[0] != "show" && g.args[0] != "list")
    return usage("ports: unexpected argument '" + g.args[0] + "'", kPortsHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  auto ps = s.client().ports();
  if (!ps) return fail(ps.error(), true);
  if (g.json) {
    JsonWriter w;
    w.beginArray();
    for (const auto& p : ps.value())
      w.beginObject().key("id").value(p.id).key("ifname").value(p.ifname).key("ifindex").value(p.ifindex)
          .key("mac").value(p.mac.toString()).key("mtu").value(p.mtu).key("up").value(p.up)
          .key("queues").value(p.queues).key("xdp_mode").value(p.xdp_mode)
          .key("xsk_mode").value(p.xsk_mode).endObject();
    w.endArray();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("%-4s %-16s %-8s %-17s %-6s %-5s %-6s %-8s %s\n", "ID", "IFNAME", "IFINDEX", "MAC", "MTU",
                "STATE", "QUEUES", "XDP", "XSK");
    for (const auto& p : ps.value())
      std::printf("%-4u %-16s %-8d %-17s %-6u %-5s %-6u %-8s %s\n", p.id, p.ifname.c_str(), p.ifindex,
                  p.mac.toString().c_str(), p.mtu, p.up ? "up" : "down", p.queues, p.xdp_mode.c_str(),
                  p.xsk_mode.c_str());
  }
  return kExitOk;
}

const char* eventName(FastPathEvent::Kind k) {
  switch (k) {
    case FastPathEvent::Kind::kRouteMiss: return "route-miss";
    case FastPathEvent::Kind::kPortUp: return "port-up";
    case FastPathEvent::Kind::kPortDown: return "port-down";
    case FastPathEvent::Kind::kNeighbourNeeded: return "neighbour-needed";
  }
  return "unknown";
}

int cmdMonitor(const Global& g) {
  if (g.help) {
    std::fputs(kMonitorHelp, stdout);
    return kExitOk;
  }
  std::vector<std::string> a = g.args;
  std::string count_s;
  long count = takeFlag(a, "--count", &count_s) ? std::atol(count_s.c_str()) : -1;
  if (!a.empty()) return usage("monitor: unexpected argument '" + a[0] + "'", kMonitorHelp);
  Session s(g);
  if (int rc = s.connect()) return rc;
  if (auto st = s.client().subscribe(); !st) return fail(st.error(), true);
  for (long n = 0; (count < 0 || n < count) && !g_stop;) {
    auto e = s.client().nextEvent(200);
    if (!e) return fail(e.error(), true);
    if (!e.value()) continue;
    const auto& ev = *e.value();
    if (g.json) {
      JsonWriter w;
      w.beginObject().key("event").value(eventName(ev.kind)).key("dev").value(s.portName(ev.port))
          .key("port").value(ev.port).key("address").value(ev.address.toString()).endObject();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("%s dev %s %s\n", eventName(ev.kind), s.portName(ev.port).c_str(),
                  ev.address.toString().c_str());
    }
    std::fflush(stdout);
    ++n;
  }
  return kExitOk;
}

}  // namespace
}  // namespace fastpath::ctrl::fpctl

int main(int argc, char** argv) {
  using namespace fastpath::ctrl::fpctl;
  using namespace fastpath::ctrl;
  Global g;
  if (const char* env = std::getenv("FASTPATHD_SOCKET"); env && *env) g.socket = env;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-s" || a == "--socket" || a == "-t" || a == "--timeout") {
      if (i + 1 >= argc) return usage(a + " needs a value", kMainHelp);
      std::string v = argv[++i];
      if (a == "-s" || a == "--socket") {
        g.socket = v;
      } else {
        g.timeout_ms = std::atoi(v.c_str());
        if (g.timeout_ms <= 0) return usage("--timeout: must be > 0 ms", kMainHelp);
      }
    } else if (a.rfind("--socket=", 0) == 0) {
      g.socket = a.substr(9);
    } else if (a == "-j" || a == "--json") {
      g.json = true;
    } else if (a == "-h" || a == "--help" || a == "help") {
      g.help = true;
    } else if (a == "-V" || a == "--version") {
      std::printf("fpctl (ns3-fastpath) protocol fastpath.v1 %u.%u\n", kProtocolMajor, kProtocolMinor);
      return kExitOk;
    } else {
      g.args.push_back(a);
    }
  }
  if (g.args.empty()) {
    if (g.help) {
      std::fputs(kMainHelp, stdout);
      return kExitOk;
    }
    return usage("missing OBJECT", kMainHelp);
  }
  std::string object = g.args[0];
  g.args.erase(g.args.begin());
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGPIPE, SIG_IGN);
  if (object == "route" || object == "r" || object == "ro") return cmdRoute(g);
  if (object == "neigh" || object == "neighbour" || object == "neighbor" || object == "n") return cmdNeigh(g);
  if (object == "rules" || object == "rule") return cmdRules(g);
  if (object == "stats" || object == "s") return cmdStats(g);
  if (object == "ports" || object == "port" || object == "p") return cmdPorts(g);
  if (object == "monitor") return cmdMonitor(g);
  return usage("unknown object '" + object + "'", kMainHelp);
}
