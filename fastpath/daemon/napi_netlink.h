// SPDX-License-Identifier: GPL-2.0-only
// The kernel's NAPI instances of one interface, read over the netdev generic netlink
// family (NETDEV_CMD_NAPI_GET). Not a public header.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// One NAPI instance as the kernel reports it.
struct NapiInstance {
  int ifindex = 0;
  uint32_t napi_id = 0;
  /// The NAPI kthread's pid (init pid namespace) for threaded NAPI, 0 otherwise.
  pid_t pid = 0;
};

/// NAPI instances of interface `ifindex` in the calling thread's network namespace: the
/// netlink socket is opened here and sees only that namespace's interfaces, so the answer
/// is exact even when other namespaces have an interface of the same name.
/// Errors: -ENOENT when the kernel has no "netdev" family (before Linux 6.5),
/// -EOPNOTSUPP when it lacks NETDEV_CMD_NAPI_GET (before 6.8); other negative errnos when
/// the socket or the request failed.
Result<std::vector<NapiInstance>> netlinkNapiInstances(int ifindex);

}  // namespace fastpath
