// SPDX-License-Identifier: GPL-2.0-only
// fpctl's shared pieces (fpctl.h): error reporting, flag parsing, the connection.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {

volatile std::sig_atomic_t g_stop = 0;

int exitFor(const Error& e, bool connected) {
  switch (-e.code) {
    case EACCES:
    case EPERM: return kExitPermission;
    case EPROTONOSUPPORT: return kExitVersion;
    case ECONNREFUSED:
    case ENOENT: return connected ? kExitRejected : kExitConnect;
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

int printHelp(const Global& g, const char* help) {
  std::fputs(help, g.help ? stdout : stderr);
  return g.help ? kExitOk : kExitUsage;
}

int usage(const std::string& msg, const char* help) {
  std::fprintf(stderr, "fpctl: %s\n\n%s", msg.c_str(), help);
  return kExitUsage;
}

bool takeFlag(std::vector<std::string>& args, const std::string& flag, std::string* value,
              bool value_optional) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != flag) continue;
    if (value) {
      bool has = i + 1 < args.size() &&
                 (!value_optional || (!args[i + 1].empty() && args[i + 1][0] != '-'));
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

int printOk(const Global& g, const std::string& what, double seconds) {
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

std::string nameProblem(const std::string& name) {
  if (name.empty()) return "empty name";
  if (name.size() > 31) return "'" + name + "' is longer than 31 characters";
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '.' && c != '-')
      return "'" + name + "' has characters other than letters, digits, '_', '.' and '-'";
  return {};
}

int Session::connect(bool bind_node) {
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
  // Bound after connecting, so that an unknown node is told apart from a missing socket.
  if (bind_node && !g_.node.empty())
    if (auto st = client_->bind(g_.node); !st) return fail(st.error(), true);
  return kExitOk;
}

PortLookup Session::portLookup() {
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
    return makeError(-ENODEV, "no port '" + name +
                                  "' (fastpathd has: " + (known.empty() ? "none" : known) + ")");
  };
}

std::string Session::portName(PortId id) {
  if (!ports_loaded_) (void)portLookup()("");
  auto it = ids_.find(id);
  return it == ids_.end() ? "port" + std::to_string(id) : it->second;
}

std::string Session::portName(const std::string& node, PortId id) {
  auto n = node_ports_.find(node);
  if (n == node_ports_.end()) {
    n = node_ports_.emplace(node, std::map<PortId, std::string>{}).first;
    if (auto ps = client_->ports(node))
      for (const auto& p : ps.value()) n->second[p.id] = p.ifname;
  }
  auto it = n->second.find(id);
  return it == n->second.end() ? "port" + std::to_string(id) : it->second;
}

int deleteNamed(const Global& g, Session& s, const std::string& kind,
                const std::vector<std::string>& a, const char* help,
                Status (Client::*del)(const std::string&)) {
  if (a.size() != 1) return usage(kind + " del: expected exactly one NAME", help);
  if (std::string why = nameProblem(a[0]); !why.empty())
    return usage(kind + " del: " + why, help);
  if (int rc = s.connect(false)) return rc;
  if (auto st = (s.client().*del)(a[0]); !st) return fail(st.error(), true);
  return printOk(g, kind + " " + a[0] + " deleted");
}

}  // namespace fastpath::ctrl::fpctl
