// SPDX-License-Identifier: GPL-2.0-only
// fpctl: command-line control of fastpathd over its control socket. Global options and
// the dispatch to one file per object (fpctl.h).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fpctl.h"

namespace fastpath::ctrl::fpctl {
namespace {

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
  monitor [--count N] [--all-nodes]                   print events as they happen
  capture TARGET [a-to-b|b-to-a] [-w FILE|-] [-c N] [FILTER]
                                                      the frames of a link, segment or
                                                      port as pcap (tcpdump filter)
  node list                                           list fastpathd's nodes
  node show NAME                                      one node, with its ports
  node add NAME [--host HOST]                         create a node
  node del NAME                                       delete a node and its links
  node attach NAME IFNAME                             make an interface a port of a node
  node detach NAME IFNAME                             take the interface port back
  host list                                           list the hosts fastpathd made
  host add NAME NODE ADDRESS/LEN... [--gw IP] [--mtu N]
                                                      namespace fp-NAME joined to NODE
  host del NAME                                       delete a host
  multihost [show]                                    this host's part of a run over
                                                      several hosts: wires, cross-host links
  multihost declare HOST --wire PEER=IFNAME[,encap=vxlan,...]... [--tag TAG]
  multihost link add NAME NODE PEER --vlan N [--end a|b] [PARAMETER...]
  multihost link del NAME
  link list                                           list the links between nodes
  link show NAME                                      one link: ends, emulation per
                                                      direction, configured and measured
  link add NAME A-NODE[:PORT] B-NODE[:PORT] [--mtu N] [PARAMETER...]
                                                      create a link (a port in each node)
  link del NAME                                       delete a link
  link set NAME up|down                               bring a link up or down
  link set NAME [a-to-b|b-to-a] PARAMETER...          emulate: rate 10mbit delay 5ms
                                                      jitter 1ms loss 1% limit 100 ...
                                                      (`fpctl link --help` lists them)
  segment list                                        list the segments (shared media)
  segment show NAME                                   one segment: ports, medium, counters
  segment add NAME NODE[:PORT]... [--mtu N] [PARAMETER...]
                                                      create a segment (a port in each node)
  segment del NAME                                    delete a segment
  segment set NAME [PARAMETER...] [up|down]           emulate the medium, bring it up/down
  bridge list                                         list the learning bridges over segments
  bridge show NAME                                    one bridge: ports, counters, learned MACs
  bridge add NAME NODE PORT [PORT...] [--ageing S]    a learning bridge over NODE's segment ports
  bridge del NAME                                     delete a bridge
  medium list                                         list the radio media (ad hoc Wi-Fi)
  medium show NAME                                    one medium: pairs configured vs measured,
                                                      airtime, busy share, collisions, retries
  medium del NAME                                     delete a radio medium
  --node NODE segment set NAME up|down                that node's port of the segment alone

Options:
  -s, --socket PATH   fastpathd's control socket (default /run/fastpathd/fastpathd.sock,
                      or $FASTPATHD_SOCKET)
  --node NAME         the fastpathd node that route, neigh, rules, ports, stats and
                      monitor act on (default: the default node, "default")
  -j, --json          machine-readable output (one JSON document on stdout)
  -t, --timeout MS    reply timeout (default 60000)
  -h, --help          this help; `fpctl OBJECT --help` for one object
  -V, --version       print fpctl's and the protocol's version

Exit status:
  0  success
  1  fastpathd rejected the request (the message names the offending field), or
     the node or link named does not exist
  2  usage error (bad command line, malformed name, unreadable route file)
  3  cannot connect to fastpathd, connection lost, or no reply in time
  4  permission denied (SO_PEERCRED check or socket permissions; creating, deleting
     and changing nodes and links needs root, the socket's owner or an allowed uid)
  5  protocol version mismatch between fpctl and fastpathd
)";

}  // namespace
}  // namespace fastpath::ctrl::fpctl

int main(int argc, char** argv) {
  using namespace fastpath::ctrl::fpctl;
  using namespace fastpath::ctrl;
  Global g;
  if (const char* env = std::getenv("FASTPATHD_SOCKET"); env && *env) g.socket = env;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-s" || a == "--socket" || a == "-t" || a == "--timeout" || a == "--node") {
      if (i + 1 >= argc) return usage(a + " needs a value", kMainHelp);
      std::string v = argv[++i];
      if (a == "-s" || a == "--socket") {
        g.socket = v;
      } else if (a == "--node") {
        g.node = v;
      } else {
        g.timeout_ms = std::atoi(v.c_str());
        if (g.timeout_ms <= 0) return usage("--timeout: must be > 0 ms", kMainHelp);
      }
    } else if (a.rfind("--socket=", 0) == 0) {
      g.socket = a.substr(9);
    } else if (a.rfind("--node=", 0) == 0) {
      g.node = a.substr(7);
    } else if (a == "-j" || a == "--json") {
      g.json = true;
    } else if (a == "-h" || a == "--help" || a == "help") {
      g.help = true;
    } else if (a == "-V" || a == "--version") {
      std::printf("fpctl (ns3-fastpath) protocol fastpath.v1 %u.%u\n", kProtocolMajor,
                  kProtocolMinor);
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
  if (!g.node.empty())
    if (std::string why = nameProblem(g.node); !why.empty())
      return usage("--node: " + why, kMainHelp);
  std::string object = g.args[0];
  g.args.erase(g.args.begin());
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGPIPE, SIG_IGN);
  if (object == "route" || object == "r" || object == "ro") return cmdRoute(g);
  if (object == "neigh" || object == "neighbour" || object == "neighbor" || object == "n")
    return cmdNeigh(g);
  if (object == "rules" || object == "rule") return cmdRules(g);
  if (object == "stats" || object == "s") return cmdStats(g);
  if (object == "ports" || object == "port" || object == "p") return cmdPorts(g);
  if (object == "monitor") return cmdMonitor(g);
  if (object == "node" || object == "nodes") return cmdNode(g);
  if (object == "link" || object == "links") return cmdLink(g);
  if (object == "segment" || object == "segments") return cmdSegment(g);
  if (object == "bridge" || object == "bridges") return cmdBridge(g);
  if (object == "medium" || object == "media") return cmdMedium(g);
  if (object == "host" || object == "hosts") return cmdHost(g);
  if (object == "multihost" || object == "multi-host") return cmdMultiHost(g);
  if (object == "capture") return cmdCapture(g);
  return usage("unknown object '" + object + "'", kMainHelp);
}
