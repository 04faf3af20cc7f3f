// SPDX-License-Identifier: GPL-2.0-only
// Helpers shared by the daemon's source files (not a public header).
#pragma once

#include <string>

#include "fastpath/control_backend.h"
#include "fastpath/names.h"  // validName, nameRule: the daemon's files use them
#include "fastpath/result.h"

namespace fastpath {

/// MAC, MTU, ifindex, up flag and queue count of an interface in the current netns.
Result<PortInfo> readPortInfo(const std::string& ifname, PortId id);
/// bpffs at /sys/fs/bpf (mounted when missing and allowed): libxdp needs it to attach.
Status checkBpffs(bool mount_if_missing);

}  // namespace fastpath

#include <sched.h>
#include <sys/types.h>

#include <vector>

namespace fastpath {

/// A kernel NAPI thread ("napi/<ifname>-<id>") of one of the named interfaces.
struct PortNapiThread {
  pid_t pid = 0;
  std::string comm;
  bool realtime = false;  ///< SCHED_FIFO/SCHED_RR
  int priority = 0;       ///< its real-time priority; 0 under a normal policy
  cpu_set_t cpus;
};

/// Threaded-NAPI kthreads of the ports `ifnames` of the calling thread's network namespace,
/// whatever their scheduling policy. Found over netdev netlink (exact); by thread name only
/// on kernels before 6.8, where a same-named interface of another namespace matches too
/// (logged). Logs the method, or the failure, when it changes.
std::vector<PortNapiThread> findPortNapiThreads(const std::vector<std::string>& ifnames);

/// Those of findPortNapiThreads() that run SCHED_FIFO/SCHED_RR.
std::vector<PortNapiThread> findRtNapiThreads(const std::vector<std::string>& ifnames);

}  // namespace fastpath
