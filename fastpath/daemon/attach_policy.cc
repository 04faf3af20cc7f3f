// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/attach_policy.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>

namespace fastpath {

namespace {

bool hasWildcard(const std::string& p) { return p.find_first_of("*?[") != std::string::npos; }

}  // namespace

Status validateAttachablePattern(const std::string& p) {
  if (p.empty() || p.size() > 15)
    return makeError(-EINVAL, "--attachable \"" + p +
                                  "\": a pattern has 1 to 15 characters (an interface name, "
                                  "with * ? [...] wildcards)");
  for (char c : p)
    if (c == '/' || c == ':' || static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return makeError(-EINVAL, "--attachable \"" + p +
                                    "\": no '/', ':', white space or control characters in "
                                    "an interface name pattern");
  return {};
}

AttachPolicy::AttachPolicy(std::vector<std::string> patterns, std::vector<std::string> owned)
    : patterns_(std::move(patterns)), owned_(std::move(owned)) {}

bool AttachPolicy::matches(const std::string& ifname) const {
  return std::any_of(patterns_.begin(), patterns_.end(), [&](const std::string& p) {
    return ::fnmatch(p.c_str(), ifname.c_str(), 0) == 0;
  });
}

bool AttachPolicy::names(const std::string& ifname) const {
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [&](const std::string& p) { return !hasWildcard(p) && p == ifname; });
}

Status AttachPolicy::check(const InterfaceFacts& f, AttachRequester who) const {
  const std::string& n = f.ifname;
  // No one: these would not work, or would break something that is not fastpathd's.
  if (f.loopback)
    return makeError(-EINVAL, n + " is the loopback interface: it carries the namespace's "
                                  "own traffic and has no Ethernet address; a node's port "
                                  "is an Ethernet interface (veth, NIC)");
  if (f.bond_member)
    return makeError(-EBUSY, n + " is a member of bond " + (f.master.empty() ? "?" : f.master) +
                                 ": its frames belong to the bond; attach the bond itself, "
                                 "or take " + n + " out of it first");
  if (f.xdp_prog_id)
    return makeError(-EBUSY, n + " is served by another XDP program (id " +
                                 std::to_string(f.xdp_prog_id) +
                                 ", `bpftool prog show id " + std::to_string(f.xdp_prog_id) +
                                 "`); fastpathd takes only interfaces no other XDP program "
                                 "serves: remove it first (ip link set dev " + n + " xdp off)");
  // The machine's connectivity: root too, unless the admin named it.
  if (f.default_route && !names(n))
    return makeError(-EPERM, n + " carries the namespace's default route: attaching it takes "
                                 "the machine's own traffic away from the kernel; to allow "
                                 "it, start fastpathd with --attachable " + n +
                                 " (the name itself: a wildcard does not do)");
  if (who == AttachRequester::kRoot) return {};
  if (std::find(owned_.begin(), owned_.end(), n) != owned_.end() || matches(n)) return {};
  return makeError(-EPERM, n + " is not attachable by an operator: only interfaces fastpathd "
                               "created (hosts) or was given at start, and those fastpathd "
                               "--attachable PATTERN[,PATTERN...] names; root may attach it");
}

}  // namespace fastpath
