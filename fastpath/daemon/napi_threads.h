// SPDX-License-Identifier: GPL-2.0-only
// Which kernel threads run the threaded NAPI of the daemon's ports. Not a public header.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// How findNapiThreads() identified the threads.
enum class NapiLookupMethod {
  /// netdev generic netlink (NETDEV_CMD_NAPI_GET): exact, this namespace's ports only.
  kNetlink,
  /// Thread name "napi/<ifname>-<id>" (kernels before 6.8): names are global, so a
  /// same-named interface in another network namespace matches too.
  kThreadName,
};

/// "netlink" or "thread name", for logs.
const char* napiLookupMethodName(NapiLookupMethod method);

struct NapiThreadSet {
  NapiLookupMethod method = NapiLookupMethod::kNetlink;
  /// Sorted, no duplicates.
  std::vector<pid_t> pids;
};

/// The NAPI kthreads of the interfaces `ifnames` of the calling thread's network
/// namespace (threaded NAPI only; a port without threaded NAPI contributes none).
/// Interfaces missing from the namespace are skipped. Uses netdev netlink; falls back to
/// napiThreadsByName() only when the kernel lacks NETDEV_CMD_NAPI_GET. An error means the
/// netlink query failed for another reason (no fallback: a name match could pick up
/// another namespace's threads).
Result<NapiThreadSet> findNapiThreads(const std::vector<std::string>& ifnames);

/// Kthreads whose name starts with "napi/<ifname>-" (comm is cut at 15 characters), in
/// any network namespace: the fallback for kernels before 6.8. Sorted, no duplicates.
std::vector<pid_t> napiThreadsByName(const std::vector<std::string>& ifnames);

}  // namespace fastpath
