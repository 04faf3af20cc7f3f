// SPDX-License-Identifier: GPL-2.0-only
// Which interface of fastpathd's namespace a control-socket peer may attach to a node at
// run time. Attaching takes the interface's traffic away from the kernel: an operator
// (a non-root peer let in by --socket-uid/--socket-gid) is trusted with the interfaces
// fastpathd made or was given and those --attachable names, root with any but the one
// carrying the default route (the machine's own connectivity) unless --attachable names
// it. Some interfaces no one may attach, each for its reason: loopback, a bond's members,
// and an interface another XDP program serves. The decision (AttachPolicy) is pure; what
// the kernel says about an interface is read by readInterfaceFacts. Not a public header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// What the kernel says about an interface, as far as attaching it goes.
struct InterfaceFacts {
  std::string ifname;
  bool loopback = false;     ///< IFF_LOOPBACK
  bool bond_member = false;  ///< IFF_SLAVE, or enslaved to a master of kind bond
  std::string master;        ///< its master's name, when it has one
  uint32_t xdp_prog_id = 0;  ///< the XDP program attached to it (any mode); 0: none
  bool default_route = false;  ///< a default route (IPv4 or IPv6, main table) leaves by it
};

/// Reads the facts in the calling thread's network namespace (rtnetlink). ENODEV when
/// there is no such interface.
Result<InterfaceFacts> readInterfaceFacts(const std::string& ifname);

/// Who asks: root (uid 0), or an operator (any other peer allowed to change the topology).
enum class AttachRequester { kRoot, kOperator };

/// Checks one --attachable pattern: an interface name with shell wildcards (* ? [...]),
/// 1 to 15 characters, no '/', ':' or white space.
Status validateAttachablePattern(const std::string& pattern);

class AttachPolicy {
 public:
  /// `patterns`: --attachable; `owned`: the interfaces fastpathd created (hosts' veths) or
  /// was given at start (--port, topology file).
  AttachPolicy(std::vector<std::string> patterns, std::vector<std::string> owned);

  /// Empty when `who` may attach the interface; otherwise an error saying why, and which
  /// option would allow it where one would (EPERM), or the reason no one may (EINVAL,
  /// EBUSY).
  Status check(const InterfaceFacts& facts, AttachRequester who) const;

  /// A pattern matches the name (wildcards included).
  bool matches(const std::string& ifname) const;
  /// A pattern without wildcards is the name itself: what the default route's interface
  /// needs, so that "*" never gives it away by accident.
  bool names(const std::string& ifname) const;

 private:
  std::vector<std::string> patterns_;
  std::vector<std::string> owned_;
};

}  // namespace fastpath
