// SPDX-License-Identifier: GPL-2.0-only
// fpctl link: list, show, add, del, set — the links between fastpathd's nodes.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {
namespace {

const char* kLinkHelp =
    R"(Usage: fpctl link list [--json]
       fpctl link show NAME [--json]
       fpctl link add NAME A-NODE[:PORT] B-NODE[:PORT] [--mtu N]
       fpctl link del NAME
       fpctl link set NAME up|down

  A link joins two nodes of fastpathd point to point: each end is a port of its node
  (`fpctl --node A-NODE ports` lists it with its link), usable in routes and
  neighbours like an interface port.

  list   every link: state and both ends (node:port and port id)
  show   one link with both ends' MAC and MTU
  add    creates a link, up; PORT names the end's port inside its node (default: the
         link's name); MACs are generated; --mtu N sets both ends' MTU (68..65535,
         default 1500)
  del    deletes a link and its two ports (routes and neighbours through them go too)
  set    up or down: a link that is down passes no frame (counted) and each node's
         subscribers get a port-down event for its end (`fpctl --node A-NODE monitor`)

  NAME, node and port names: 1 to 31 characters of letters, digits, '_', '.' and '-'.
  add, del and set need root, the socket's owner (fastpathd --socket-uid) or an allowed
  uid (exit status 4 otherwise); an unknown node or link is exit status 1.
)";

std::string endText(const LinkInfo::End& e) {
  return e.node + ":" + e.port + " (port " + std::to_string(e.id) + ")";
}

void endJson(JsonWriter& w, const LinkInfo::End& e) {
  w.beginObject()
      .key("node")
      .value(e.node)
      .key("port")
      .value(e.port)
      .key("id")
      .value(e.id)
      .key("mac")
      .value(e.mac.toString())
      .key("mtu")
      .value(e.mtu)
      .endObject();
}

void linkJson(JsonWriter& w, const LinkInfo& l) {
  w.beginObject().key("name").value(l.name).key("up").value(l.up).key("a");
  endJson(w, l.a);
  w.key("b");
  endJson(w, l.b);
  w.endObject();
}

/// "r1" or "r1:eth-r2"; an empty port is the link's name (fastpathd's default too).
Result<LinkEndSpec> parseEnd(const std::string& text, const std::string& link, const char* which) {
  LinkEndSpec e;
  auto colon = text.find(':');
  e.node = text.substr(0, colon);
  e.port = colon == std::string::npos ? link : text.substr(colon + 1);
  if (std::string why = nameProblem(e.node); !why.empty())
    return makeError(-EINVAL, std::string("link add: ") + which + " node: " + why);
  if (std::string why = nameProblem(e.port); !why.empty())
    return makeError(-EINVAL, std::string("link add: ") + which + " port: " + why);
  return e;
}

}  // namespace

int cmdLink(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kLinkHelp);
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "list" || cmd == "ls" || cmd == "show") {
    if (cmd != "show" && !a.empty())
      return usage("link list: unexpected argument '" + a[0] + "'", kLinkHelp);
    if (cmd == "show" && a.size() != 1)
      return usage("link show: expected exactly one NAME", kLinkHelp);
    if (int rc = s.connect(false)) return rc;
    auto ls = s.client().links();
    if (!ls) return fail(ls.error(), true);
    if (cmd == "show") {
      const LinkInfo* found = nullptr;
      for (const auto& l : ls.value())
        if (l.name == a[0]) found = &l;
      if (!found)
        return fail(makeError(-ENOENT, "no link '" + a[0] + "' (`fpctl link list` lists them)"),
                    true);
      if (g.json) {
        JsonWriter w;
        linkJson(w, *found);
        std::printf("%s\n", w.str().c_str());
      } else {
        std::printf("link %s %s\n", found->name.c_str(), found->up ? "up" : "down");
        for (const auto* e : {&found->a, &found->b})
          std::printf("  %s: node %s port %s id %u %s mtu %u\n", e == &found->a ? "a" : "b",
                      e->node.c_str(), e->port.c_str(), e->id, e->mac.toString().c_str(), e->mtu);
      }
      return kExitOk;
    }
    if (g.json) {
      JsonWriter w;
      w.beginArray();
      for (const auto& l : ls.value()) linkJson(w, l);
      w.endArray();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("%-16s %-5s %-32s %s\n", "NAME", "STATE", "A", "B");
      for (const auto& l : ls.value())
        std::printf("%-16s %-5s %-32s %s\n", l.name.c_str(), l.up ? "up" : "down",
                    endText(l.a).c_str(), endText(l.b).c_str());
    }
    return kExitOk;
  }
  if (cmd == "add" || cmd == "create") {
    std::string mtu_s;
    bool has_mtu = takeFlag(a, "--mtu", &mtu_s);
    if (a.size() != 3)
      return usage("link add: expected NAME A-NODE[:PORT] B-NODE[:PORT]", kLinkHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("link add: " + why, kLinkHelp);
    LinkSpec spec;
    spec.name = a[0];
    auto ea = parseEnd(a[1], spec.name, "A");
    if (!ea) return usage(ea.error().message, kLinkHelp);
    auto eb = parseEnd(a[2], spec.name, "B");
    if (!eb) return usage(eb.error().message, kLinkHelp);
    if (ea->node == eb->node)
      return usage("link add: both ends are in node " + ea->node + "; a link joins two nodes",
                   kLinkHelp);
    spec.a = *ea;
    spec.b = *eb;
    if (has_mtu) {
      char* end = nullptr;
      unsigned long mtu = std::strtoul(mtu_s.c_str(), &end, 10);
      if (mtu_s.empty() || *end || mtu < 68 || mtu > 65535)
        return usage("--mtu: '" + mtu_s + "' is not an MTU (68..65535)", kLinkHelp);
      spec.a.mtu = spec.b.mtu = static_cast<uint32_t>(mtu);
    }
    if (int rc = s.connect(false)) return rc;
    if (auto st = s.client().createLink(spec); !st) return fail(st.error(), true);
    return printOk(g, "link " + spec.name + " added");
  }
  if (cmd == "del" || cmd == "delete") {
    if (a.size() != 1) return usage("link del: expected exactly one NAME", kLinkHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("link del: " + why, kLinkHelp);
    if (int rc = s.connect(false)) return rc;
    if (auto st = s.client().deleteLink(a[0]); !st) return fail(st.error(), true);
    return printOk(g, "link " + a[0] + " deleted");
  }
  if (cmd == "set") {
    if (a.size() != 2 || (a[1] != "up" && a[1] != "down"))
      return usage("link set: expected NAME up|down", kLinkHelp);
    if (std::string why = nameProblem(a[0]); !why.empty())
      return usage("link set: " + why, kLinkHelp);
    if (int rc = s.connect(false)) return rc;
    if (auto st = s.client().setLinkState(a[0], a[1] == "up"); !st) return fail(st.error(), true);
    return printOk(g, "link " + a[0] + " " + a[1]);
  }
  return usage("link: unknown command '" + cmd + "'", kLinkHelp);
}

}  // namespace fastpath::ctrl::fpctl
