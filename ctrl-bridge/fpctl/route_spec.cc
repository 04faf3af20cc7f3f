// SPDX-License-Identifier: GPL-2.0-only
#include "route_spec.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fastpath::ctrl::fpctl {

namespace {

Result<uint64_t> parseNumber(const std::string& what, const std::string& text, uint64_t max) {
  if (text.empty()) return makeError(-EINVAL, what + ": missing value");
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno || *end != '\0' || text[0] == '-' || v > max)
    return makeError(-EINVAL,
                     what + ": '" + text + "' is not a number in 0.." + std::to_string(max));
  return static_cast<uint64_t>(v);
}

}  // namespace

Result<Route> parseRoute(const std::vector<std::string>& args, const PortLookup& ports) {
  if (args.empty()) return makeError(-EINVAL, "missing PREFIX (e.g. 198.18.2.0/24)");
  auto prefix = IpPrefix::parse(args[0]);
  if (!prefix) return prefix.error();
  Route r;
  r.prefix = prefix.value();
  r.next_hop.family = r.prefix.address.family;
  bool have_port = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& k = args[i];
    if (i + 1 >= args.size()) return makeError(-EINVAL, "'" + k + "' needs a value");
    const std::string& v = args[++i];
    if (k == "via") {
      auto a = IpAddress::parse(v);
      if (!a) return a.error();
      if (a->family != r.prefix.address.family)
        return makeError(-EINVAL, "via " + v + ": not the address family of " + args[0]);
      r.next_hop = a.value();
    } else if (k == "dev" || k == "port") {
      auto p = ports(v);
      if (!p) return p.error();
      r.port = p.value();
      have_port = true;
    } else if (k == "metric") {
      auto m = parseNumber("metric", v, UINT32_MAX);
      if (!m) return m.error();
      r.metric = static_cast<uint32_t>(m.value());
    } else {
      return makeError(-EINVAL, "unknown route keyword '" + k + "' (expected via, dev, metric)");
    }
  }
  if (!have_port) return makeError(-EINVAL, "route " + args[0] + ": missing 'dev IFNAME'");
  return r;
}

Result<std::vector<Route>> readRouteFile(const std::string& path, const PortLookup& ports) {
  std::ifstream in(path);
  if (!in) return makeError(-ENOENT, "cannot open route file '" + path + "'");
  std::vector<Route> out;
  std::string line;
  std::size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream ss(line);
    std::vector<std::string> words;
    for (std::string w; ss >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (words[0] == "route" && words.size() > 1 && words[1] == "add")
      words.erase(words.begin(), words.begin() + 2);
    auto r = parseRoute(words, ports);
    if (!r)
      return makeError(r.error().code,
                       path + ":" + std::to_string(lineno) + ": " + r.error().message);
    out.push_back(r.value());
  }
  return out;
}

Result<std::vector<Route>> generateRoutes(std::size_t count, PortId port, const IpAddress& via) {
  constexpr uint32_t kBase = 0x0b000000;  // 11.0.0.0
  if (count > (0xdf000000u - kBase) >> 8)
    return makeError(
        -EINVAL, "--generate: at most " + std::to_string((0xdf000000u - kBase) >> 8) + " routes");
  std::vector<Route> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    Route& r = out[i];
    r.prefix.address = IpAddress::v4(htonl(kBase + (static_cast<uint32_t>(i) << 8)));
    r.prefix.length = 24;
    r.next_hop = via;
    r.next_hop.family = Family::kIpv4;
    r.port = port;
  }
  return out;
}

Result<Neighbour> parseNeighbour(const std::vector<std::string>& args, const PortLookup& ports) {
  if (args.empty()) return makeError(-EINVAL, "missing ADDR");
  auto a = IpAddress::parse(args[0]);
  if (!a) return a.error();
  Neighbour n;
  n.ip = a.value();
  bool have_mac = false, have_port = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& k = args[i];
    if (i + 1 >= args.size()) return makeError(-EINVAL, "'" + k + "' needs a value");
    const std::string& v = args[++i];
    if (k == "lladdr") {
      auto m = MacAddress::parse(v);
      if (!m) return m.error();
      n.mac = m.value();
      have_mac = true;
    } else if (k == "dev" || k == "port") {
      auto p = ports(v);
      if (!p) return p.error();
      n.port = p.value();
      have_port = true;
    } else {
      return makeError(-EINVAL, "unknown neighbour keyword '" + k + "' (expected lladdr, dev)");
    }
  }
  if (!have_port) return makeError(-EINVAL, "neighbour " + args[0] + ": missing 'dev IFNAME'");
  (void)have_mac;
  return n;
}

Result<std::vector<ControlRule>> parseRules(const std::vector<std::string>& args) {
  std::vector<ControlRule> out;
  for (std::size_t i = 0; i < args.size();) {
    const std::string& k = args[i];
    if (i + 1 >= args.size()) return makeError(-EINVAL, "rule '" + k + "' needs a value");
    const std::string& v = args[i + 1];
    i += 2;
    ControlRule r;
    if (k == "ethertype") {
      auto n = parseNumber("ethertype", v, 0xffff);
      if (!n) return n.error();
      r.kind = ControlRule::Kind::kEtherType;
      r.ethertype = static_cast<uint16_t>(n.value());
    } else if (k == "proto") {
      auto n = parseNumber("proto", v, 255);
      if (!n) return n.error();
      r.kind = ControlRule::Kind::kIpProto;
      r.ip_proto = static_cast<uint8_t>(n.value());
    } else if (k == "udp" || k == "tcp") {
      auto n = parseNumber(k, v, 65535);
      if (!n) return n.error();
      r.kind = ControlRule::Kind::kL4Port;
      r.ip_proto = k == "udp" ? 17 : 6;
      r.port = static_cast<uint16_t>(n.value());
    } else if (k == "local") {
      auto a = IpAddress::parse(v);
      if (!a) return a.error();
      r.kind = ControlRule::Kind::kLocalAddress;
      r.address = a.value();
    } else {
      return makeError(-EINVAL,
                       "unknown rule '" + k + "' (expected ethertype, proto, udp, tcp, local)");
    }
    if (i < args.size() && (args[i] == "pass" || args[i] == "control")) {
      r.pass_to_kernel = args[i] == "pass";
      ++i;
    }
    out.push_back(r);
  }
  return out;
}

std::string ruleToString(const ControlRule& r) {
  char buf[64];
  std::string s;
  switch (r.kind) {
    case ControlRule::Kind::kEtherType:
      std::snprintf(buf, sizeof(buf), "ethertype 0x%04x", r.ethertype);
      s = buf;
      break;
    case ControlRule::Kind::kIpProto: s = "proto " + std::to_string(r.ip_proto); break;
    case ControlRule::Kind::kL4Port:
      s = std::string(r.ip_proto == 6 ? "tcp " : "udp ") + std::to_string(r.port);
      break;
    case ControlRule::Kind::kLocalAddress: s = "local " + r.address.toString(); break;
  }
  return s + (r.pass_to_kernel ? " pass" : " control");
}

}  // namespace fastpath::ctrl::fpctl
