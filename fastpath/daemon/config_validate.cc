// SPDX-License-Identifier: GPL-2.0-only
// The daemon's whole configuration checked before any interface is touched: every problem is
// collected and reported at once (flags that contradict each other, ports named twice or
// missing, resources out of range, routes and neighbours on ports that do not exist).
#include "daemon/config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fastpath/names.h"

namespace fastpath {
namespace {

bool isPowerOfTwo(uint32_t x) { return x && !(x & (x - 1)); }

}  // namespace

Status validateConfig(const Config& c) {
  std::vector<std::string> problems;
  const Topology& topo = c.topology;
  bool have_topology = !c.topology_file.empty() || !topo.nodes.empty() || !topo.links.empty() ||
                       !topo.segments.empty() || !topo.media.empty();
  // A topology file may hold no port at all: the nodes and links of a scenario can come
  // later over the control socket (the ns-3 helpers create them).
  if (c.ports.empty() && c.topology_file.empty() && topo.links.empty() && topo.segments.empty() &&
      topo.media.empty() &&
      std::all_of(topo.nodes.begin(), topo.nodes.end(),
                  [](const TopologyNode& n) { return n.interfaces.empty(); }))
    problems.push_back(
        "no port given: add --port IFNAME or --topology FILE (a topology file may be empty "
        "of ports and links: nodes and links can be created over the control socket)");
  std::set<std::string> seen;
  for (const auto& p : c.ports)
    if (!seen.insert(p).second) problems.push_back("port " + p + " is given twice");
  // The default node's ports: --port, and its interfaces and link ports in the topology.
  std::set<std::string> ports(c.ports.begin(), c.ports.end());
  if (have_topology) {
    std::string origin = c.topology_file.empty() ? "topology" : c.topology_file;
    auto where = [&](int line) { return origin + (line > 0 ? ":" + std::to_string(line) : ""); };
    auto st = validateTopology(topo, origin);
    if (!st) {
      std::istringstream lines(st.error().message);
      for (std::string l; std::getline(lines, l);) problems.push_back(l);
    }
    size_t interfaces = c.ports.size();
    for (const auto& n : topo.nodes) {
      interfaces += n.interfaces.size();
      for (const auto& ifname : n.interfaces) {
        if (seen.count(ifname))
          problems.push_back("port " + ifname + " is given with --port (node " + kDefaultNodeName +
                             ") and as an interface of node " + n.spec.name + " (" + where(n.line) +
                             "): an interface belongs to one node, name it once");
        if (n.spec.name == kDefaultNodeName) ports.insert(ifname);
      }
    }
    if (interfaces > kMaxInterfacePorts)
      problems.push_back(std::to_string(interfaces) + " interfaces with --port and --topology: " +
                         "a fastpathd serves at most " + std::to_string(kMaxInterfacePorts));
    for (const auto& l : topo.links)
      for (const LinkEndSpec* e : {&l.spec.a, &l.spec.b}) {
        if (e->node != kDefaultNodeName) continue;
        if (seen.count(e->port))
          problems.push_back("port " + e->port + " is a --port and the name of link " +
                             l.spec.name + "'s port in node " + kDefaultNodeName + " (" +
                             where(l.line) + "): give the link end another 'port:'");
        ports.insert(e->port);
      }
  }
  if (c.queues == 0) problems.push_back("--queues must be at least 1");
  if (!c.cores.empty() && c.cores.size() != c.queues)
    problems.push_back("--cores lists " + std::to_string(c.cores.size()) +
                       " CPU(s) but there are " + std::to_string(c.queues) +
                       " worker(s) (one per queue): give one CPU each");
  std::set<int> cores(c.cores.begin(), c.cores.end());
  if (cores.size() != c.cores.size()) problems.push_back("--cores lists a CPU twice");
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu : c.cores)
    if (ncpu > 0 && cpu >= ncpu)
      problems.push_back("--cores: CPU " + std::to_string(cpu) +
                         " does not exist (this machine has " + std::to_string(ncpu) + ")");
  if (!isPowerOfTwo(c.ring_size) || c.ring_size < 64)
    problems.push_back("--ring-size must be a power of two >= 64");
  if (c.batch_size == 0 || c.batch_size > c.ring_size)
    problems.push_back("--batch-size must be between 1 and --ring-size (" +
                       std::to_string(c.ring_size) + ")");
  if (c.frame_size != 2048 && c.frame_size != 4096)
    problems.push_back("--frame-size must be 2048 or 4096");
  uint64_t need = uint64_t(c.ports.size()) * c.ring_size + c.batch_size;
  if (c.umem_frames && c.umem_frames < need)
    problems.push_back("--umem-frames " + std::to_string(c.umem_frames) +
                       " cannot keep every fill ring full: need at least " + std::to_string(need));
  if (c.punt_rate && c.punt_burst == 0)
    problems.push_back("--punt-burst must be at least 1 when --punt-rate limits punts");
  if (c.punt_rate && c.punt_rate < c.queues)
    problems.push_back("--punt-rate " + std::to_string(c.punt_rate) +
                       " is below one frame/s per worker (" + std::to_string(c.queues) +
                       " workers share it): raise it, or 0 for unlimited");
  if (c.busy_poll && c.idle_poll_us != Config::kDefaultIdlePollUs && c.idle_poll_us != 0)
    problems.push_back("--busy-poll and --idle-poll-us contradict each other: busy polling spins");
  if (c.rt_priority > 0 && (c.idle_poll_us == 0 || c.busy_poll))
    problems.push_back(
        "--rt-priority needs workers that sleep when idle: it contradicts "
        "--busy-poll and --idle-poll-us 0 (a spinning real-time thread starves the CPU)");
  if (!c.tune_ports && c.napi_priority > 0)
    problems.push_back("--napi-priority " + std::to_string(c.napi_priority) +
                       " is a port tuning, and --no-tune leaves the ports alone: drop one");
  if (c.xsk_mode == XskMode::kZeroCopy && c.xdp_mode != "native")
    problems.push_back("--xsk-mode zerocopy needs --xdp-mode native (generic XDP always copies)");
  if (c.stats_interval_s && c.log_level < LogLevel::kInfo)
    problems.push_back("--stats-interval prints at level info but --log-level hides it");
  if (c.control_socket.empty() || c.control_socket[0] != '/')
    problems.push_back("--socket must be an absolute path");
  const std::string not_port = have_topology
                                   ? " is not a --port (nor a port of node default in the topology)"
                                   : " is not a --port";
  std::set<std::string> prefixes;
  for (const auto& r : c.routes) {
    std::string name = "route " + r.prefix.toString();
    if (!ports.count(r.dev)) problems.push_back(name + ": dev " + r.dev + not_port);
    if (r.prefix.hostBitsSet())
      problems.push_back(name + ": host bits set (use " + r.prefix.normalised().toString() + ")");
    if (!prefixes.insert(r.prefix.toString()).second) problems.push_back(name + " is given twice");
  }
  std::map<std::string, std::string> neighs;  // ip%dev -> mac
  for (const auto& n : c.neighbours) {
    std::string name = "neighbour " + n.ip.toString();
    if (!ports.count(n.dev)) problems.push_back(name + ": dev " + n.dev + not_port);
    if (n.mac.isZero()) problems.push_back(name + ": MAC 00:00:00:00:00:00 is not valid");
    if (n.mac.bytes[0] & 1)
      problems.push_back(name + ": MAC " + n.mac.toString() + " is multicast");
    // The same neighbour repeated (one --neigh per route using it) is fine; two MACs are not.
    auto [it, fresh] = neighs.emplace(n.ip.toString() + "%" + n.dev, n.mac.toString());
    if (!fresh && it->second != n.mac.toString())
      problems.push_back(name + " on " + n.dev + " is given with two MACs (" + it->second + ", " +
                         n.mac.toString() + ")");
  }
  if (problems.empty()) return {};
  std::string msg = "invalid configuration:";
  for (const auto& p : problems) msg += "\n  - " + p;
  return makeError(-EINVAL, msg);
}

}  // namespace fastpath
