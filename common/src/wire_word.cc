// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/wire_word.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "fastpath/names.h"

namespace fastpath {
namespace {

constexpr const char* kForm =
    "write PEER=INTERFACE (802.1Q) or PEER=INTERFACE,encap=vxlan,underlay=A,peer_underlay=B"
    "[,port=P] (VXLAN)";

Error bad(const std::string& word, const std::string& why) {
  return makeError(-EINVAL, "'" + word + "' is no wire" + (why.empty() ? "" : " (" + why + ")") +
                                ": " + kForm);
}

}  // namespace

Result<WireWord> parseWireWord(const std::string& word) {
  WireWord w;
  const auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return bad(word, "");
  w.peer = word.substr(0, eq);
  if (!validName(w.peer)) return makeError(-EINVAL, nameRule("peer host", w.peer));
  std::string rest = word.substr(eq + 1);
  const auto comma = rest.find(',');
  w.ifname = rest.substr(0, comma);
  if (!validIfname(w.ifname)) return makeError(-EINVAL, ifnameRule(w.ifname));
  if (comma == std::string::npos) return w;
  std::string encap;
  std::set<std::string> seen;
  WireVxlan v;
  bool have_underlay = false, have_peer = false;
  size_t at = comma + 1;
  for (;;) {
    const auto next = rest.find(',', at);
    const std::string kv = rest.substr(at, next == std::string::npos ? std::string::npos : next - at);
    const auto e = kv.find('=');
    if (e == std::string::npos || e == 0 || e + 1 == kv.size())
      return bad(word, "'" + kv + "' is no KEY=VALUE");
    const std::string key = kv.substr(0, e), value = kv.substr(e + 1);
    if (!seen.insert(key).second) return bad(word, key + " given twice");
    if (key == "encap") {
      if (value != "vxlan" && value != "vlan")
        return bad(word, "encap " + value + " is neither vlan (802.1Q) nor vxlan");
      encap = value;
    } else if (key == "underlay" || key == "peer_underlay") {
      auto a = IpAddress::parse(value);
      if (!a || !validUnderlayAddress(*a))
        return bad(word, key + " " + value + " is no unicast IPv4 address");
      (key == "underlay" ? v.underlay : v.peer_underlay) = *a;
      (key == "underlay" ? have_underlay : have_peer) = true;
    } else if (key == "port") {
      char* end = nullptr;
      const unsigned long p = std::strtoul(value.c_str(), &end, 10);
      if (*end || p == 0 || p > kMaxVxlanPort)
        return bad(word, "port " + value + " is outside 1.." + std::to_string(kMaxVxlanPort) +
                             " (the wire's probes use port + 1)");
      v.port = uint16_t(p);
    } else {
      return bad(word, "unknown key " + key + " (encap, underlay, peer_underlay, port)");
    }
    if (next == std::string::npos) break;
    at = next + 1;
  }
  if (encap != "vxlan") {
    if (seen.size() > 1 || encap.empty())
      return bad(word, "underlay, peer_underlay and port are for encap=vxlan");
    return w;
  }
  if (!have_underlay || !have_peer)
    return bad(word, std::string("VXLAN needs ") + (have_underlay ? "peer_underlay" : "underlay") +
                         " (this host's IPv4 address on " + w.ifname + ", and the peer's)");
  if (v.underlay == v.peer_underlay)
    return bad(word, "underlay and peer_underlay are both " + v.underlay.toString() +
                         ": each host has its own");
  w.vxlan = v;
  return w;
}

std::string formatWireWord(const WireWord& w) {
  std::string s = w.peer + "=" + w.ifname;
  if (w.vxlan)
    s += ",encap=vxlan,underlay=" + w.vxlan->underlay.toString() + ",peer_underlay=" +
         w.vxlan->peer_underlay.toString() + ",port=" + std::to_string(w.vxlan->port);
  return s;
}

}  // namespace fastpath
