// SPDX-License-Identifier: GPL-2.0-only
// What fpctl's media (link, segment) share: their command words, the parameter words
// read before anything is sent, --mtu, and `set NAME up|down|PARAMETER...`.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastpath/link_params.h"
#include "link_format.h"

namespace fastpath::ctrl::fpctl {

Error noMedium(const std::string& kind, const std::string& name) {
  return makeError(-ENOENT,
                   "no " + kind + " '" + name + "' (`fpctl " + kind + " list` lists them)");
}

int badParameter(const std::string& what, const Error& e) {
  std::fprintf(stderr, "fpctl: %s: %s (parameters: `fpctl link --help`)\n", what.c_str(),
               e.message.c_str());
  return kExitUsage;
}

int checkParamWords(const std::string& what, const std::vector<std::string>& words) {
  if (words.empty()) return kExitOk;
  LinkParams probe;
  if (auto st = applyLinkParamWords(words, &probe); !st) return badParameter(what, st.error());
  return kExitOk;
}

int parseMtu(const std::string& text, const char* help, uint32_t* mtu) {
  char* end = nullptr;
  unsigned long m = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end || m < 68 || m > 65535)
    return usage("--mtu: '" + text + "' is not an MTU (68..65535)", help);
  *mtu = static_cast<uint32_t>(m);
  return kExitOk;
}

int splitSetWords(const std::string& kind, const std::vector<std::string>& a, const char* help,
                  std::string* state, std::vector<std::string>* words) {
  for (const auto& w : a) {
    if (w == "up" || w == "down") {
      if (!state->empty()) return usage(kind + " set: up or down, once", help);
      *state = w;
    } else {
      words->push_back(w);
    }
  }
  if (state->empty() && words->empty())
    return usage(kind + " set: expected up, down or parameters (rate 10mbit delay 5ms ...)",
                 help);
  return kExitOk;
}

int runMediumCommand(const Global& g, const MediumCommands& c) {
  std::vector<std::string> a = g.args;
  if (g.help || a.empty()) return printHelp(g, c.help);
  std::string cmd = a[0];
  a.erase(a.begin());
  Session s(g);
  if (cmd == "list" || cmd == "ls" || cmd == "show") {
    if (cmd != "show" && !a.empty())
      return usage(std::string(c.kind) + " list: unexpected argument '" + a[0] + "'", c.help);
    if (cmd == "show" && a.size() != 1)
      return usage(std::string(c.kind) + " show: expected exactly one NAME", c.help);
    return c.list_or_show(g, s, cmd, a);
  }
  if (cmd == "add" || cmd == "create") return c.add(g, s, a);
  if (cmd == "del" || cmd == "delete") return deleteNamed(g, s, c.kind, a, c.help, c.del);
  if (cmd == "set") return c.set(g, s, a);
  return usage(std::string(c.kind) + ": unknown command '" + cmd + "'", c.help);
}

}  // namespace fastpath::ctrl::fpctl
