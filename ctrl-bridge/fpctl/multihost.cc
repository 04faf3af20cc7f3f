// SPDX-License-Identifier: GPL-2.0-only
// fpctl multihost: show, declare, link add, link del — this fastpathd's part of a run over
// several hosts: its host name, the run's tag, its wires (measured) and the ends of the
// links whose other end is on another host.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastpath/wire_word.h"
#include "fpctl.h"
#include "json.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kMultiHostHelp =
    R"(Usage: fpctl multihost [show] [--json]
       fpctl multihost declare HOST --wire WIRE... [--tag TAG] [--wait MS]
       fpctl multihost link add NAME NODE PEER --vlan N [--end a|b] [--mtu N] [PARAMETER...]
       fpctl multihost link del NAME

  A run over several hosts: every host runs its own fastpathd; a link whose ends are on
  two hosts crosses a real interface between them (the wire), its frames tagged with the
  link's 802.1Q VLAN, or on a routed wire carried as VXLAN with the link's VNI. A topology
  file's `hosts:` declares it at start; these commands do the same over the control socket
  (an ns-3 script over several hosts does it itself).

  show     this host, the run's tag, each wire (peer host, interface, MTU, measured
           one-way latency and jitter) and each cross-host link end (node, port, VLAN,
           the emulation as configured and as applied: the wire's latency taken off)
  declare  HOST: this daemon's host name; --wire PEER=IFNAME: this host's interface to
           host PEER, an 802.1Q wire (one per peer, at least one); a routed wire:
           --wire PEER=IFNAME,encap=vxlan,underlay=A,peer_underlay=B[,port=P] with this
           host's IPv4 address on IFNAME, the peer's, and the UDP port (default 4789,
           the same on both hosts; the probes use P + 1); --tag: the run's tag (1 to 6 of a-z
           0-9, default "run": a crashed run's interfaces with it are removed); --wait: how
           long to wait for the peers' daemons to answer the probes (default 10000 ms)
  link add NAME NODE PEER: the end of link NAME in node NODE whose other end is on host
           PEER; --vlan: the link's VLAN, or VNI on a VXLAN wire (2..4094, the same on
           both hosts); --end: which
           end this is (a or b, default a; the other host gives the other); PARAMETER: the
           emulation of the frames this host sends (rate 10mbit delay 5ms ...; `fpctl link
           --help`). Refused: a peer without a wire, an MTU above the wire's, a delay
           below the wire's measured latency.
  link del deletes the end (its port and veth pair)

  declare and link need root, the socket's owner (fastpathd --socket-uid) or an allowed uid.
)";

// What was made is worth saying (the wire's measured latency, the link's port): printed
// also without --json, unlike the other commands' quiet success.
int said(const Global& g, const std::string& what) {
  if (g.json) return printOk(g, what);
  std::printf("%s\n", what.c_str());
  return kExitOk;
}

std::string us(uint64_t ns) { return std::to_string((ns + 500) / 1000) + "us"; }

int show(const Global& g, Session& s) {
  auto m = s.client().multiHost();
  if (!m) return fail(m.error(), true);
  const MultiHostInfo& i = *m;
  if (g.json) {
    JsonWriter w;
    w.beginObject().key("host").value(i.host).key("run_tag").value(i.run_tag);
    w.key("clock").beginObject()
        .key("known").value(i.clock_known)
        .key("offset_ns").value(int64_t(i.clock_offset_ns))
        .key("source").value(i.clock_source)
        .endObject();
    w.key("wires").beginArray();
    for (const auto& x : i.wires) {
      w.beginObject()
          .key("peer_host").value(x.peer_host)
          .key("ifname").value(x.ifname)
          .key("mtu").value(x.mtu)
          .key("latency_ns").value(x.latency_ns)
          .key("latency_min_ns").value(x.latency_min_ns)
          .key("jitter_ns").value(x.jitter_ns)
          .key("probes").value(x.probes)
          .key("encap").value(std::string(x.vxlan ? "vxlan" : "vlan"));
      if (x.vxlan)
        w.key("underlay").value(x.vxlan->underlay.toString())
            .key("peer_underlay").value(x.vxlan->peer_underlay.toString())
            .key("port").value(uint32_t(x.vxlan->port));
      w.endObject();
    }
    w.endArray().key("links").beginArray();
    for (const auto& l : i.links) {
      w.beginObject()
          .key("name").value(l.spec.name)
          .key("node").value(l.spec.node)
          .key("port").value(l.port)
          .key("port_id").value(l.port_id)
          .key("mac").value(l.spec.mac.toString())
          .key("peer_mac").value(l.spec.peer_mac.toString())
          .key("mtu").value(l.spec.mtu)
          .key("vlan").value(l.spec.vlan)
          .key("peer_host").value(l.spec.peer_host)
          .key("wire").value(l.wire)
          .key("from_topology").value(l.from_topology)
          .key("up").value(l.up)
          .key("egress");
      linkParamsJson(w, l.spec.egress);
      w.key("applied");
      linkParamsJson(w, l.applied);
      w.endObject();
    }
    w.endArray().endObject();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  if (i.host.empty()) {
    std::printf("no run over several hosts (declare one: fpctl multihost declare)\n");
    return kExitOk;
  }
  char clock[96];
  if (i.clock_known)
    std::snprintf(clock, sizeof(clock), "%+.0f us (%s)", double(i.clock_offset_ns) / 1e3,
                  i.clock_source.c_str());
  else
    std::snprintf(clock, sizeof(clock), "unknown (%s)",
                  i.clock_source.empty() ? "not reported" : i.clock_source.c_str());
  std::printf("host %s, run tag %s, clock offset %s\n\n", i.host.c_str(), i.run_tag.c_str(),
              clock);
  std::printf("%-12s %-16s %-6s %-10s %-10s %-10s %-7s %s\n", "PEER", "WIRE", "MTU", "LATENCY",
              "MIN", "JITTER", "PROBES", "ENCAP");
  for (const auto& x : i.wires) {
    const std::string encap =
        x.vxlan ? "vxlan " + x.vxlan->underlay.toString() + " -> " +
                      x.vxlan->peer_underlay.toString() + " port " + std::to_string(x.vxlan->port)
                : "802.1q";
    std::printf("%-12s %-16s %-6u %-10s %-10s %-10s %-7llu %s\n", x.peer_host.c_str(),
                x.ifname.c_str(), x.mtu, us(x.latency_ns).c_str(), us(x.latency_min_ns).c_str(),
                us(x.jitter_ns).c_str(), (unsigned long long)x.probes, encap.c_str());
  }
  std::printf("\n%-16s %-16s %-16s %-5s %-12s %-6s %s\n", "LINK", "NODE", "PORT", "VLAN", "PEER",
              "MTU", "EMULATION (CONFIGURED -> APPLIED)");
  for (const auto& l : i.links)
    std::printf("%-16s %-16s %-16s %-5u %-12s %-6u %s -> %s%s%s\n", l.spec.name.c_str(),
                l.spec.node.c_str(), (l.port + " (" + std::to_string(l.port_id) + ")").c_str(),
                l.spec.vlan, l.spec.peer_host.c_str(), l.spec.mtu,
                linkParamsSummary(l.spec.egress).c_str(), linkParamsSummary(l.applied).c_str(),
                l.from_topology ? " (topology file)" : "", l.up ? "" : ", port down");
  return kExitOk;
}

int number(const std::string& flag, const std::string& v, unsigned long max, unsigned long* out) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(v.c_str(), &end, 10);
  if (v.empty() || *end || n > max)
    return usage("multihost: " + flag + " " + v + " is not 0.." + std::to_string(max),
                 kMultiHostHelp);
  *out = n;
  return 0;
}

int declare(const Global& g, Session& s, std::vector<std::string> a) {
  MultiHostDeclaration d;
  std::string v;
  while (takeFlag(a, "--wire", &v)) {
    auto w = parseWireWord(v);
    if (!w) return usage("multihost declare: --wire: " + w.error().message, kMultiHostHelp);
    d.wires.push_back({w->peer, w->ifname});
    if (w->vxlan) d.vxlan[w->ifname] = *w->vxlan;
  }
  if (takeFlag(a, "--tag", &v)) d.run_tag = v;
  if (takeFlag(a, "--wait", &v)) {
    unsigned long n = 0;
    if (int rc = number("--wait", v, 600000, &n)) return rc;
    d.wait_ms = uint32_t(n);
  }
  if (a.size() != 1) return usage("multihost declare: expected exactly one HOST", kMultiHostHelp);
  d.host = a[0];
  if (d.wires.empty())
    return usage("multihost declare: give at least one --wire PEER=IFNAME", kMultiHostHelp);
  if (int rc = s.connect(false)) return rc;
  auto m = s.client().declareMultiHost(d);
  if (!m) return fail(m.error(), true);
  std::string wires;
  for (const auto& w : m->wires)
    wires += (wires.empty() ? "" : ", ") + w.ifname + " to " + w.peer_host +
             (w.vxlan ? " (VXLAN " + w.vxlan->underlay.toString() + " -> " +
                            w.vxlan->peer_underlay.toString() + ", latency "
                      : " (latency ") +
             us(w.latency_ns) + ", jitter " + us(w.jitter_ns) + ")";
  return said(g, "host " + m->host + " declared, run tag " + m->run_tag + ": " + wires);
}

int linkAdd(const Global& g, Session& s, std::vector<std::string> a) {
  CrossLinkSpec spec;
  std::string v;
  unsigned long n = 0;
  if (!takeFlag(a, "--vlan", &v))
    return usage("multihost link add: --vlan N is required (the same on both hosts)",
                 kMultiHostHelp);
  if (int rc = number("--vlan", v, 4094, &n)) return rc;
  spec.vlan = uint16_t(n);
  if (takeFlag(a, "--end", &v)) {
    if (v != "a" && v != "b") return usage("multihost link add: --end is a or b", kMultiHostHelp);
    spec.end = v[0];
  }
  if (takeFlag(a, "--mtu", &v))
    if (int rc = parseMtu(v, kMultiHostHelp, &spec.mtu)) return rc;
  if (a.size() < 3)
    return usage("multihost link add: expected NAME NODE PEER [PARAMETER...]", kMultiHostHelp);
  spec.name = a[0];
  spec.node = a[1];
  spec.peer_host = a[2];
  for (const auto& name : {spec.name, spec.node, spec.peer_host})
    if (std::string why = nameProblem(name); !why.empty())
      return usage("multihost link add: " + why, kMultiHostHelp);
  const std::vector<std::string> words(a.begin() + 3, a.end());
  if (auto st = applyLinkParamWords(words, &spec.egress); !st)
    return badParameter("multihost link add", st.error());
  if (int rc = s.connect(false)) return rc;
  auto l = s.client().createCrossLink(spec);
  if (!l) return fail(l.error(), true);
  return said(g, "cross-host link " + spec.name + " added: port " + l->port + " of node " +
                        spec.node + ", VLAN " + std::to_string(spec.vlan) + " on wire " +
                        l->wire + " to host " + spec.peer_host + ", egress " +
                        linkParamsSummary(l->applied));
}

}  // namespace

int cmdMultiHost(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help) return printHelp(g, kMultiHostHelp);
  std::string cmd = a.empty() ? "show" : a[0];
  if (!a.empty()) a.erase(a.begin());
  Session s(g);
  if (cmd == "show" || cmd == "list" || cmd == "ls") {
    if (!a.empty()) return usage("multihost show: unexpected argument '" + a[0] + "'", kMultiHostHelp);
    if (int rc = s.connect(false)) return rc;
    return show(g, s);
  }
  if (cmd == "declare") return declare(g, s, a);
  if (cmd == "link" && !a.empty()) {
    const std::string sub = a[0];
    a.erase(a.begin());
    if (sub == "add" || sub == "create") return linkAdd(g, s, a);
    if (sub == "del" || sub == "delete") {
      if (a.size() != 1) return usage("multihost link del: expected exactly one NAME", kMultiHostHelp);
      if (int rc = s.connect(false)) return rc;
      if (auto st = s.client().deleteCrossLink(a[0]); !st) return fail(st.error(), true);
      return printOk(g, "cross-host link " + a[0] + " deleted");
    }
  }
  return usage("multihost: unknown command '" + cmd + "'", kMultiHostHelp);
}

}  // namespace fastpath::ctrl::fpctl
