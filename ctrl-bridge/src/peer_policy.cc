// SPDX-License-Identifier: GPL-2.0-only
#include "peer_policy.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace fastpath::ctrl {

namespace {

template <typename T>
bool contains(const std::vector<T>& v, T x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

Result<PeerCredentials> peerCredentials(int fd) {
  ucred cr{};
  socklen_t len = sizeof(cr);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
    return makeError(-errno, "SO_PEERCRED: " + errnoText(errno));
  PeerCredentials p;
  p.pid = cr.pid;
  p.uid = cr.uid;
  p.gid = cr.gid;
  // SO_PEERGROUPS (Linux 4.13): the groups the peer had when it connected. ERANGE tells
  // the size needed.
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t glen = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &glen) == 0) {
      groups.resize(glen / sizeof(gid_t));
      p.groups = std::move(groups);
      return p;
    }
    if (errno != ERANGE) return makeError(-errno, "SO_PEERGROUPS: " + errnoText(errno));
    groups.resize(glen / sizeof(gid_t) + 1);
  }
  return makeError(-ERANGE, "SO_PEERGROUPS: the peer's group list keeps growing");
}

bool PeerPolicy::isOperator(const PeerCredentials& p) const {
  return p.uid == 0 ||
         (opt_.socket_owner != static_cast<uid_t>(-1) && p.uid == opt_.socket_owner) ||
         contains(opt_.allowed_uids, p.uid);
}

bool PeerPolicy::mayChangeTopology(const PeerCredentials& p) const {
  return isOperator(p) || (opt_.allow_same_uid && p.uid == ::geteuid());
}

std::string PeerPolicy::refusal(const PeerCredentials& p) const {
  if (isOperator(p)) return {};
  if (opt_.allow_same_uid && p.uid == ::geteuid()) return {};
  if (contains(opt_.allowed_gids, p.gid)) return {};
  for (gid_t g : p.groups)
    if (contains(opt_.allowed_gids, g)) return {};
  std::string why = "uid " + std::to_string(p.uid) + " (groups " + std::to_string(p.gid);
  for (gid_t g : p.groups)
    if (g != p.gid) why += "," + std::to_string(g);
  why += ") is neither root, ";
  if (opt_.allow_same_uid) why += "the daemon's uid, ";
  why += "an allowed uid nor in an allowed group";
  if (!opt_.allowed_gids.empty()) {
    why += "; ask the admin to add you to group " + std::to_string(opt_.allowed_gids.front()) +
           " (log in again afterwards)";
  } else {
    why += "; ask the admin to start fastpathd with --socket-uid " + std::to_string(p.uid) +
           " or --socket-gid with a group of yours";
  }
  return why;
}

}  // namespace fastpath::ctrl
