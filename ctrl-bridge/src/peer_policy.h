// SPDX-License-Identifier: GPL-2.0-only
// Who may talk on the control socket: the peer's credentials as the kernel reports them
// (SO_PEERCRED, and SO_PEERGROUPS for its supplementary groups) against the server's
// options. Internal to ctrl-bridge.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "fastpath/ctrl/server.h"
#include "fastpath/result.h"

namespace fastpath::ctrl {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;              ///< primary group
  std::vector<gid_t> groups;  ///< supplementary groups
};

/// The credentials of the process at the other end of a connected Unix socket.
Result<PeerCredentials> peerCredentials(int fd);

class PeerPolicy {
 public:
  explicit PeerPolicy(const ServerOptions& options) : opt_(options) {}
  /// Root, the socket's owner and allowed_uids: they are never limited per uid and have
  /// reserved_clients connections beyond max_clients, so that no one can lock them out.
  bool isOperator(const PeerCredentials& p) const;
  /// Who may create, delete and change nodes and links: an operator, or a peer with the
  /// daemon's own uid (allow_same_uid), which could do anything to the daemon anyway.
  bool mayChangeTopology(const PeerCredentials& p) const;
  /// Empty when the peer may talk; otherwise why not, and what to do about it.
  std::string refusal(const PeerCredentials& p) const;

 private:
  const ServerOptions& opt_;
};

}  // namespace fastpath::ctrl
