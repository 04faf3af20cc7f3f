// SPDX-License-Identifier: GPL-2.0-only
// Hosts fastpathd makes on request: a network namespace "fp-<name>" (mounted at
// /run/netns/fp-<name> as `ip netns add` does, in fastpathd's mount namespace: `ip netns
// exec` of a shell finds it when fastpathd runs in that shell's mount namespace, i.e. not
// under `ip netns exec` but e.g. `nsenter --net=...`) joined by a veth pair to fastpathd's
// namespace: "eth0" inside
// (addresses, MTU, up, default routes, lo up), a short generated name outside that the
// Daemon attaches to a node as an interface port. All over rtnetlink; the daemon's own
// namespace is never entered or changed. Every host is recorded in a state file under
// /run/fastpathd before it is made, so a killed fastpathd's hosts are removed by the next
// start. Not a public header.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/result.h"

namespace fastpath {

/// What is made for one host (and recorded).
struct HostRecord {
  std::string name;
  std::string netns;  ///< "fp-" + name
  std::string veth;   ///< fastpathd's end, in fastpathd's namespace
};

/// Checks a host name: names.h's rule (the namespace is "fp-" + name).
Status validateHostName(const std::string& name);
/// fastpathd's end of a host's veth pair: "fh-NAME", or "fh" + a 48-bit hash of the name
/// when that would exceed an interface name's 15 characters.
std::string hostVethName(const std::string& name);

/// Creates the namespace, the veth pair and the inside configuration of `spec`; `veth` is
/// the name of fastpathd's end (up, MTU set). On error nothing is left. Returns eth0's MAC.
Result<MacAddress> makeHost(const HostSpec& spec, const std::string& veth);
/// Deletes fastpathd's end of the veth (the pair goes with it) and the namespace's mount.
/// Each part that does not exist any more is skipped; errors are logged, never fatal.
void unmakeHost(const HostRecord& record);

/// State file of the daemon's hosts: <dir>/hosts-<netns inode>-<socket, '/' -> '_'>.json,
/// {"pid": P, "hosts": [{"name", "netns", "veth"}...]}.
class HostState {
 public:
  HostState(const std::string& control_socket, const std::string& dir = "/run/fastpathd");
  const std::string& path() const { return path_; }
  /// Removes the hosts a previous daemon (dead: its pid gone or another program) recorded
  /// at this path, and the file. Returns how many were removed. A live daemon's file is
  /// left alone (false in `*live`).
  size_t removeStale(bool* live = nullptr);
  /// Writes the file for these hosts (an empty list removes it).
  Status write(const std::vector<HostRecord>& hosts) const;

 private:
  std::string path_;
};

}  // namespace fastpath
