// SPDX-License-Identifier: GPL-2.0-only
// fpctl rules: show and set the classifier's control rules.
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

  With --node NAME (a global option: `fpctl --node r1 rules ...`), this acts on that
  fastpathd node; without, on the default node. An unknown node is exit status 1.
)";

}  // namespace

int cmdRules(const Global& g) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, kRulesHelp);
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
          case ControlRule::Kind::kEtherType:
            w.key("kind")
                .value("ethertype")
                .key("ethertype")
                .value(static_cast<uint32_t>(r.ethertype));
            break;
          case ControlRule::Kind::kIpProto:
            w.key("kind").value("proto").key("proto").value(static_cast<uint32_t>(r.ip_proto));
            break;
          case ControlRule::Kind::kL4Port:
            w.key("kind")
                .value(r.ip_proto == 6 ? "tcp" : "udp")
                .key("port")
                .value(static_cast<uint32_t>(r.port));
            break;
          case ControlRule::Kind::kLocalAddress:
            w.key("kind").value("local").key("address").value(r.address.toString());
            break;
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

}  // namespace fastpath::ctrl::fpctl
