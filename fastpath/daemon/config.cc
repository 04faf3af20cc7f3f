// SPDX-License-Identifier: GPL-2.0-only
// The daemon's options: from the command line and a configuration file, into one Config
// (validateConfig, in config_validate.cc, checks it whole).
#include "daemon/config.h"

#include "daemon/attach_policy.h"
#include "fastpath/names.h"
#include "fastpath/link_params.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <utility>

namespace fastpath {
namespace {

struct OptionSpec {
  const char* name;
  bool takes_value;
  const char* help;
};

const OptionSpec kOptions[] = {
    {"config", true, "FILE      read options from FILE (one option per line, no dashes)"},
    {"port", true, "IFNAME      serve this interface (repeat; PortId = order given)"},
    {"topology", true,
     "FILE    nodes, their interfaces, the links between them, their routes and\n"
     "                   neighbours (YAML or JSON; --port interfaces are node default)"},
    {"queues", true, "N         queues per port, one worker per queue (default 1)"},
    {"cores", true, "LIST        CPU of each worker, e.g. 1 or 0,1 (default: not pinned)"},
    {"socket", true, "PATH       control socket (default /run/fastpathd/fastpathd.sock)"},
    {"socket-uid", true, "UID    peer uid allowed on the control socket besides root"},
    {"socket-gid", true, "GID    group owning the control socket (mode 0660)"},
    {"operator-connections", true,
     "N  connections an operator's process may hold (an ns-3 script: one per\n"
     "                   node it attaches, plus one); operators together 2N (default 256)"},
    {"attachable", true,
     "PATTERN[,PATTERN...]  interfaces operators may attach at run time besides\n"
     "                   the hosts' and those given at start (shell wildcards); a name\n"
     "                   also lets root attach the default route's (docs/operator-role.md)"},
    {"batch-size", true, "N      frames per ring operation (default 64, max ring size)"},
    {"ring-size", true, "N       entries of each RX/TX/fill/completion ring (default 4096)"},
    {"umem-frames", true, "N     frames per worker UMEM (default: computed)"},
    {"frame-size", true, "N      2048 or 4096 (default 4096)"},
    {"xsk-mode", true, "MODE     auto|copy|zerocopy (default auto: zero-copy if offered)"},
    {"xdp-mode", true, "MODE     auto|native: auto falls back to generic XDP (default auto)"},
    {"no-xsk-policy", true, "P   pass|drop frames of queues without a socket (default pass)"},
    {"punt", true, "POLICY       control|drop: exceptions to the control channel or counted drop"},
    {"punt-rate", true,
     "PPS    per port: punts/exceptions to the control channel per second;\n"
     "                   CONTROL frames are never limited; 0 = unlimited (default 10000)"},
    {"punt-burst", true, "N     per port: punts allowed at once above --punt-rate (default 256)"},
    {"busy-poll", false, "       SO_PREFER_BUSY_POLL on the sockets"},
    {"idle-poll-us", true, "N    sleep at most this long in poll() when idle; 0 = always spin (default 100000)"},
    {"idle-spin-us", true,
     "N    keep polling this long after the last frame before sleeping in poll()\n"
     "                   (default 0: sleep after two empty passes; the kernel wakes the worker)"},
    {"rx-budget-us", true,
     "N    under overload, frames lent for RX per port: what the worker forwards\n"
     "                   in N us at its measured rate (at least 2 batches); the excess is\n"
     "                   dropped at RX, counted (xsk_rx_dropped); below saturation 4x\n"
     "                   that, for bursts; 0 = fill rings kept full (default 500)"},
    {"rt-priority", true,
     "N|auto|0  workers SCHED_FIFO at N (1-99); auto: one above a real-time\n"
     "                   NAPI thread of a served port on a worker's CPU, SCHED_FIFO 1 above\n"
     "                   one under the normal policy, else SCHED_FIFO 1 while links or\n"
     "                   radio media are emulated (their timer wake-ups) (default auto)"},
    {"rt-mode", true,
     "MODE     adaptive|above: with --rt-priority auto, adaptive workers run just\n"
     "                   under that NAPI thread and go above it only while an RX ring is\n"
     "                   over 3/4 full; above: always above it (default adaptive)"},
    {"napi-priority", true,
     "keep|auto|N  the ports' NAPI threads (port tuning): N: SCHED_FIFO N; auto:\n"
     "                   with real-time workers SCHED_FIFO 2 (--rt-priority auto; the\n"
     "                   workers run under it) or the workers' N, else unchanged; keep:\n"
     "                   leave them as the kernel made them; restored at exit (default keep)"},
    {"rt-guard", true,
     "on|off   a real-time worker steps down to the normal policy (nice -10) before\n"
     "                   the real-time work on its CPU spends the kernel's budget\n"
     "                   (sched_rt_runtime_us), back once there is room, instead of being\n"
     "                   stopped by RT throttling for the rest of the period (default on)"},
    {"cpu-wake-latency-us", true,
     "N|off  hold a PM QoS request (/dev/cpu_dma_latency) that keeps every CPU\n"
     "                   out of idle states slower than N us to leave while fastpathd\n"
     "                   runs; 0: idle CPUs poll (no wake-up delay for frames and timers,\n"
     "                   at the cost of never entering a low-power idle state) (default off)"},
    {"stats-interval", true, "S  log a stats line every S seconds (default 0: never)"},
    {"no-mount-bpffs", false, "  do not mount bpffs at /sys/fs/bpf when it is missing"},
    {"no-tune", false,
     "         leave the ports' threaded NAPI and NAPI thread affinity alone (default:\n"
     "                   enable threaded NAPI, pin its threads to --cores, restore at exit)"},
    {"route", true, "SPEC       static route: PREFIX[,via=IP][,dev=IFNAME][,metric=N]"},
    {"neigh", true, "SPEC       static neighbour: IP,mac=MAC,dev=IFNAME"},
    {"host-name", true,
     "NAME   this daemon's host among the topology's 'hosts:' (default local:\n"
     "                   the topology runs on one host)"},
    {"run-tag", true,
     "TAG      tag of every object this run makes (1-6 of a-z 0-9; default run);\n"
     "                   a crashed run's objects with the same tag are removed at start"},
    {"wire-wait", true,
     "MS     how long to wait for each peer host's fastpathd on the wire (10000)"},
    {"log-level", true, "L      error|warn|info|debug (default info)"},
    {"verbose", false, "        same as --log-level debug"},
    {"help", false, "           this text"},
};

const OptionSpec* findOption(const std::string& name) {
  for (const auto& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

Error bad(const std::string& origin, const std::string& what) {
  return makeError(-EINVAL, origin + ": " + what);
}

Result<uint64_t> parseUint(const std::string& origin, const std::string& name, const std::string& v,
                           uint64_t max) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    return bad(origin, "--" + name + " expects a non-negative integer, got '" + v + "'");
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
  if (errno || x > max)
    return bad(origin,
               "--" + name + " value " + v + " is out of range (max " + std::to_string(max) + ")");
  return uint64_t(x);
}

/// "a,b=c d" -> tokens: splits on ',', '=' and spaces. Both `--route P,via=X,dev=Y` and the
/// file's iproute2-like `route P via X dev Y` land here.
std::vector<std::string> tokens(const std::string& spec) { return splitWords(spec, ",= \t"); }

Status parseRoute(const std::string& origin, const std::string& spec, Config* c) {
  auto t = tokens(spec);
  if (t.empty()) return bad(origin, "--route needs PREFIX[,via=IP][,dev=IFNAME][,metric=N]");
  auto prefix = IpPrefix::parse(t[0]);
  if (!prefix) return bad(origin, "--route '" + spec + "': " + prefix.error().message);
  RouteConfig r;
  r.prefix = *prefix;
  r.via.family = r.prefix.address.family;
  bool have_via = false;
  for (size_t i = 1; i < t.size(); i += 2) {
    if (i + 1 >= t.size())
      return bad(origin, "--route '" + spec + "': '" + t[i] + "' has no value");
    const std::string& k = t[i];
    const std::string& v = t[i + 1];
    if (k == "via") {
      auto ip = IpAddress::parse(v);
      if (!ip) return bad(origin, "--route '" + spec + "': via: " + ip.error().message);
      r.via = *ip;
      have_via = true;
    } else if (k == "dev") {
      r.dev = v;
    } else if (k == "metric") {
      auto m = parseUint(origin, "route metric", v, UINT32_MAX);
      if (!m) return m.error();
      r.metric = uint32_t(*m);
    } else {
      return bad(origin, "--route '" + spec + "': unknown key '" + k + "' (via, dev, metric)");
    }
  }
  if (have_via && r.via.family != r.prefix.address.family)
    return bad(origin, "--route '" + spec + "': next hop family differs from the prefix's");
  if (r.dev.empty()) return bad(origin, "--route '" + spec + "': dev=IFNAME is required");
  c->routes.push_back(r);
  return {};
}

Status parseNeigh(const std::string& origin, const std::string& spec, Config* c) {
  auto t = tokens(spec);
  if (t.empty()) return bad(origin, "--neigh needs IP,mac=MAC,dev=IFNAME");
  auto ip = IpAddress::parse(t[0]);
  if (!ip) return bad(origin, "--neigh '" + spec + "': " + ip.error().message);
  NeighbourConfig n;
  n.ip = *ip;
  bool have_mac = false;
  for (size_t i = 1; i < t.size(); i += 2) {
    if (i + 1 >= t.size())
      return bad(origin, "--neigh '" + spec + "': '" + t[i] + "' has no value");
    const std::string& k = t[i];
    const std::string& v = t[i + 1];
    if (k == "mac" || k == "lladdr") {
      auto m = MacAddress::parse(v);
      if (!m) return bad(origin, "--neigh '" + spec + "': mac: " + m.error().message);
      n.mac = *m;
      have_mac = true;
    } else if (k == "dev") {
      n.dev = v;
    } else {
      return bad(origin, "--neigh '" + spec + "': unknown key '" + k + "' (mac, dev)");
    }
  }
  if (!have_mac) return bad(origin, "--neigh '" + spec + "': mac=MAC is required");
  if (n.dev.empty()) return bad(origin, "--neigh '" + spec + "': dev=IFNAME is required");
  c->neighbours.push_back(n);
  return {};
}

Status applyOption(const std::string& origin, const std::string& name, const std::string& v,
                   Config* c) {
  auto num = [&](uint64_t max) { return parseUint(origin, name, v, max); };
  if (name == "port") {
    if (v.empty() || v.size() >= 16) return bad(origin, "--port expects an interface name");
    c->ports.push_back(v);
  } else if (name == "topology") {
    // Read and validated here, so that a bad file stops fastpathd before anything is touched.
    if (v.empty()) return bad(origin, "--topology expects a file name");
    auto t = parseTopologyFile(v);
    if (!t)
      return makeError(t.error().code, origin + ": --topology " + v + ":\n" + t.error().message);
    c->topology_file = v;
    c->topology = std::move(*t);
  } else if (name == "queues") {
    auto n = num(64);  // FP_MAX_QUEUES (classifier/bpf/fp_abi.h)
    if (!n) return n.error();
    c->queues = uint32_t(*n);
  } else if (name == "cores") {
    c->cores.clear();
    for (const auto& t : tokens(v)) {
      auto n = parseUint(origin, name, t, 4095);
      if (!n) return n.error();
      c->cores.push_back(int(*n));
    }
    if (c->cores.empty()) return bad(origin, "--cores expects a list such as 1 or 0,1");
  } else if (name == "socket") {
    if (v.empty() || v[0] != '/' || v.size() >= 108)
      return bad(origin, "--socket expects an absolute path shorter than 108 bytes");
    c->control_socket = v;
  } else if (name == "socket-uid") {
    auto n = num(UINT32_MAX - 1);
    if (!n) return n.error();
    c->control_uid = uid_t(*n);
  } else if (name == "attachable") {
    for (const auto& t : tokens(v)) {
      if (auto st = validateAttachablePattern(t); !st) return bad(origin, st.error().message);
      c->attachable.push_back(t);
    }
  } else if (name == "operator-connections") {
    auto n = num(1u << 16);
    if (!n) return n.error();
    if (*n == 0) return bad(origin, "--operator-connections expects 1 .. 65536");
    c->operator_connections = uint32_t(*n);
  } else if (name == "socket-gid") {
    auto n = num(UINT32_MAX - 1);
    if (!n) return n.error();
    c->control_gid = gid_t(*n);
    c->control_gid_set = true;
  } else if (name == "batch-size") {
    auto n = num(65536);
    if (!n) return n.error();
    c->batch_size = uint32_t(*n);
  } else if (name == "ring-size") {
    auto n = num(1u << 20);
    if (!n) return n.error();
    c->ring_size = uint32_t(*n);
  } else if (name == "umem-frames") {
    auto n = num(1u << 24);
    if (!n) return n.error();
    c->umem_frames = uint32_t(*n);
  } else if (name == "frame-size") {
    auto n = num(65536);
    if (!n) return n.error();
    c->frame_size = uint32_t(*n);
  } else if (name == "xsk-mode") {
    if (v == "auto")
      c->xsk_mode = XskMode::kAuto;
    else if (v == "copy")
      c->xsk_mode = XskMode::kCopy;
    else if (v == "zerocopy")
      c->xsk_mode = XskMode::kZeroCopy;
    else
      return bad(origin, "--xsk-mode must be auto, copy or zerocopy, not '" + v + "'");
  } else if (name == "xdp-mode") {
    if (v != "native" && v != "auto")
      return bad(origin, "--xdp-mode must be auto or native, not '" + v + "'");
    c->xdp_mode = v;
  } else if (name == "no-xsk-policy") {
    if (v != "pass" && v != "drop")
      return bad(origin, "--no-xsk-policy must be pass or drop, not '" + v + "'");
    c->no_xsk_drop = v == "drop";
  } else if (name == "punt") {
    if (v != "control" && v != "drop")
      return bad(origin, "--punt must be control or drop, not '" + v + "'");
    c->punt_to_control = v == "control";
  } else if (name == "punt-rate") {
    auto n = num(100000000);
    if (!n) return n.error();
    c->punt_rate = *n;
  } else if (name == "punt-burst") {
    auto n = num(1000000);
    if (!n) return n.error();
    c->punt_burst = uint32_t(*n);
  } else if (name == "busy-poll") {
    c->busy_poll = true;
  } else if (name == "idle-poll-us") {
    auto n = num(1000000);
    if (!n) return n.error();
    c->idle_poll_us = uint32_t(*n);
  } else if (name == "idle-spin-us") {
    auto n = num(1000000);
    if (!n) return n.error();
    c->idle_spin_us = uint32_t(*n);
  } else if (name == "rx-budget-us") {
    auto n = num(10000000);
    if (!n) return n.error();
    c->rx_budget_us = uint32_t(*n);
  } else if (name == "rt-priority") {
    if (v == "auto") {
      c->rt_priority = Config::kRtAuto;
      return {};
    }
    auto n = num(99);
    if (!n) return n.error();
    c->rt_priority = int(*n);
  } else if (name == "rt-mode") {
    if (v != "adaptive" && v != "above")
      return bad(origin, "--rt-mode must be adaptive or above, not '" + v + "'");
    c->rt_adaptive = v == "adaptive";
  } else if (name == "napi-priority") {
    if (v == "auto" || v == "keep") {
      c->napi_priority = v == "auto" ? Config::kNapiAuto : Config::kNapiKeep;
      return {};
    }
    auto n = num(99);
    if (!n || *n < 1)
      return bad(origin, "--napi-priority must be keep, auto or a SCHED_FIFO priority 1-99, "
                         "not '" + v + "'");
    c->napi_priority = int(*n);
  } else if (name == "rt-guard") {
    if (v != "on" && v != "off")
      return bad(origin, "--rt-guard must be on or off, not '" + v + "'");
    c->rt_guard = v == "on";
  } else if (name == "cpu-wake-latency-us") {
    if (v == "off") {
      c->cpu_wake_latency_us = Config::kNoWakeLatencyRequest;
      return {};
    }
    auto n = num(1000000);
    if (!n) return bad(origin, "--cpu-wake-latency-us must be off or 0-1000000, not '" + v + "'");
    c->cpu_wake_latency_us = int32_t(*n);
  } else if (name == "stats-interval") {
    auto n = num(86400);
    if (!n) return n.error();
    c->stats_interval_s = uint32_t(*n);
  } else if (name == "no-mount-bpffs") {
    c->mount_bpffs = false;
  } else if (name == "no-tune") {
    c->tune_ports = false;
  } else if (name == "route") {
    return parseRoute(origin, v, c);
  } else if (name == "neigh") {
    return parseNeigh(origin, v, c);
  } else if (name == "log-level") {
    if (v == "error")
      c->log_level = LogLevel::kError;
    else if (v == "warn")
      c->log_level = LogLevel::kWarn;
    else if (v == "info")
      c->log_level = LogLevel::kInfo;
    else if (v == "debug")
      c->log_level = LogLevel::kDebug;
    else
      return bad(origin, "--log-level must be error, warn, info or debug, not '" + v + "'");
  } else if (name == "host-name") {
    if (!validName(v)) return bad(origin, "--host-name: " + nameRule("host", v));
    c->host_name = v;
  } else if (name == "run-tag") {
    if (auto st = validateRunTag(v); !st) return bad(origin, "--run-tag: " + st.error().message);
    c->run_tag = v;
  } else if (name == "wire-wait") {
    auto n = num(600000);
    if (!n) return n.error();
    c->wire_wait_ms = uint32_t(*n);
  } else if (name == "verbose") {
    c->log_level = LogLevel::kDebug;
  } else {
    return bad(origin, "unknown option '" + name + "' (see --help)");
  }
  return {};
}

}  // namespace

uint32_t Config::effectiveUmemFrames() const {
  if (umem_frames) return umem_frames;
  // Every port's fill ring full plus every TX ring full, plus batches in flight, plus the
  // frames on their way over internal links (a batch per link direction and pass).
  size_t interfaces = ports.size();
  for (const auto& n : topology.nodes) interfaces += n.interfaces.size();
  const size_t links = std::min<size_t>(topology.links.size(), 64);
  // And one more port's worth for interfaces and hosts attached at run time (more share
  // the pool: each port's fill ring takes at most its share of it, see Worker::refill).
  return uint32_t((interfaces + 1) * ring_size * 2 + 4 * batch_size + links * 2 * batch_size);
}

int Config::napiRtPriority() const {
  if (!tune_ports || napi_priority == kNapiKeep) return 0;
  if (napi_priority != kNapiAuto) return napi_priority;
  // Workers that never sleep are never real-time (validateConfig), nor are they at 0.
  if (rt_priority == 0 || idle_poll_us == 0 || busy_poll) return 0;
  return rt_priority == kRtAuto ? kNapiAutoRtPriority : rt_priority;
}

Status parseConfigText(const std::string& text, const std::string& origin, Config* config) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    auto e = line.find_last_not_of(" \t\r");
    line = line.substr(b, e - b + 1);
    auto sp = line.find_first_of(" \t");
    std::string name = line.substr(0, sp);
    std::string value;
    if (sp != std::string::npos) value = line.substr(line.find_first_not_of(" \t", sp));
    std::string where = origin + ":" + std::to_string(lineno);
    const OptionSpec* o = findOption(name);
    if (!o || name == "config" || name == "help")
      return bad(where, "unknown directive '" + name + "'");
    if (o->takes_value && value.empty()) return bad(where, "'" + name + "' needs a value");
    if (!o->takes_value && !value.empty()) return bad(where, "'" + name + "' takes no value");
    auto st = applyOption(where, name, value, config);
    if (!st) return st;
  }
  return {};
}

Result<Config> parseCommandLine(int argc, char** argv, bool* help) {
  Config c;
  if (help) *help = false;
  // --config first, so flags override the file whatever their order.
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string file;
    if (a == "--config" && i + 1 < argc)
      file = argv[++i];
    else if (a.rfind("--config=", 0) == 0)
      file = a.substr(9);
    else
      continue;
    std::ifstream f(file);
    if (!f) return makeError(-ENOENT, "--config " + file + ": cannot open the file");
    std::stringstream ss;
    ss << f.rdbuf();
    auto st = parseConfigText(ss.str(), file, &c);
    if (!st) return st.error();
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0)
      return makeError(-EINVAL, "unexpected argument '" + a + "' (options start with --)");
    std::string name = a.substr(2);
    std::string value;
    bool inline_value = false;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const OptionSpec* o = findOption(name);
    if (!o) return makeError(-EINVAL, "unknown option --" + name + " (see --help)");
    if (o->takes_value && !inline_value) {
      if (i + 1 >= argc) return makeError(-EINVAL, "--" + name + " needs a value");
      value = argv[++i];
    } else if (!o->takes_value && inline_value) {
      return makeError(-EINVAL, "--" + name + " takes no value");
    }
    if (name == "config") continue;
    if (name == "help") {
      if (help) *help = true;
      continue;
    }
    auto st = applyOption("command line", name, value, &c);
    if (!st) return st.error();
  }
  if (auto st = applyHostPlan(&c); !st) return st.error();
  return c;
}

Status applyHostPlan(Config* c) {
  auto plan = planForHost(c->topology, c->host_name, c->run_tag);
  if (!plan)
    return makeError(plan.error().code, (c->topology_file.empty() ? "topology" : c->topology_file) +
                                            ": " + plan.error().message);
  c->topology = std::move(plan->local);
  c->cross_links = std::move(plan->cross);
  return {};
}

std::string usageText() {
  std::string s =
      "Usage: fastpathd --port IFNAME [--port IFNAME...] [options]\n"
      "       fastpathd --topology FILE [--port IFNAME...] [options]\n"
      "AF_XDP forwarder of ns3-fastpath. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_BPF).\n\n"
      "Options (each also valid in --config FILE as 'name value', without dashes):\n";
  for (const auto& o : kOptions) s += std::string("  --") + o.name + " " + o.help + "\n";
  s += "\nExample:\n  fastpathd --port fp0 --port fp1 --cores 1 \\\n"
       "    --route 198.18.2.0/24,via=198.18.1.2,dev=fp1 --neigh "
       "198.18.1.2,mac=02:00:00:00:01:02,dev=fp1\n"
       "  fastpathd --topology /etc/fastpathd/topology.yaml   # syntax: docs/reference/topology.md\n";
  return s;
}

}  // namespace fastpath
