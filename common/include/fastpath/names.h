// SPDX-License-Identifier: GPL-2.0-only
// The names fastpathd, fpctl and the topology file take: one rule for node, link,
// segment, port and host names, and the kernel's rule for interface names. Every entry
// point (topology file, control socket, fpctl, the daemon itself) calls these functions,
// so that a name one of them accepts is accepted by all.
#pragma once

#include <cstddef>
#include <string>

namespace fastpath {

/// The longest node, link, segment, port or host name.
inline constexpr std::size_t kMaxNameLength = 31;
/// The longest interface name the kernel takes: IFNAMSIZ (16) less the terminating NUL.
inline constexpr std::size_t kMaxIfnameLength = 15;
/// A host's end of its veth pair in fastpathd's namespace is "fh-" + the host's name up to
/// this length (3 + 12 = kMaxIfnameLength); a longer host name gets "fh" + a hash of it.
/// It is not a limit on host names: those are kMaxNameLength like every other name (the
/// namespace, "fp-" + name, is a file name, and eth0 inside is fixed).
inline constexpr std::size_t kMaxHostNameInVeth = kMaxIfnameLength - 3;

/// A node, link, segment, port or host name: 1 to kMaxNameLength characters of
/// A-Z a-z 0-9 '_' '.' '-'.
bool validName(const std::string& name);
/// Why `name` is refused as the name of a `what` ("node", "link", "segment", "port",
/// "host"): "WHAT name 'NAME' is not valid: use 1 to 31 letters, digits, '_', '.', '-'".
std::string nameRule(const std::string& what, const std::string& name);

/// What the kernel takes as an interface name (dev_valid_name): 1 to kMaxIfnameLength
/// characters, not "." or "..", without '/', ':' or white space.
bool validIfname(const std::string& name);
/// Why `name` is refused as an interface name: "interface name 'NAME' is not valid: use 1
/// to 15 characters without '/', ':' or spaces".
std::string ifnameRule(const std::string& name);

}  // namespace fastpath
