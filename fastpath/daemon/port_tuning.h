// SPDX-License-Identifier: GPL-2.0-only
// What fastpathd sets up on its own ports so that a plain `fastpathd --port ...` gets the
// tuned numbers: threaded NAPI, and the ports' NAPI threads on the workers' CPUs at a
// real-time priority the workers do not run above unless their rings overflow. Every
// original value is written to a state file before anything changes, restored when the
// daemon stops, and restored by the next start when a daemon died without stopping
// (SIGKILL). Not a public header.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastpath/result.h"

namespace fastpath {

struct PortTuningOptions {
  /// Interface ports of the daemon, in the calling thread's network namespace.
  std::vector<std::string> ifnames;
  /// CPUs of the workers (--cores); empty: the NAPI threads' affinity is left alone.
  std::vector<int> cpus;
  /// SCHED_FIFO priority for the ports' NAPI threads (napiRtPriority() of the config);
  /// 0: their scheduling is left alone.
  int napi_priority = 0;
  /// The daemon's control socket: one state file per daemon is keyed by it.
  std::string control_socket;
  /// Where state files live.
  std::string state_dir = "/run/fastpathd";
};

/// State file of a daemon with this control socket in the calling thread's network
/// namespace: <state_dir>/tuning-<netns inode>-<socket path, '/' -> '_'>.json (with
/// "~<pid>-<n>" before ".json" when that file belongs to another live daemon).
std::string portTuningStatePath(const PortTuningOptions& options);

/// Restores what a previous daemon recorded in `path` if that daemon is no longer running
/// (and removes the file). Returns true when it restored something. A file of a live
/// daemon is left alone.
bool restoreStalePortTuning(const std::string& path);

class PortTuning {
 public:
  /// Restores a stale state file of the same key first, then records the ports'
  /// threaded-NAPI flags in a new state file; changes nothing yet (see tune()). Errors
  /// only when the state file cannot be written.
  static Result<std::unique_ptr<PortTuning>> apply(const PortTuningOptions& options);
  /// Restores everything changed and removes the state file.
  ~PortTuning();
  PortTuning(const PortTuning&) = delete;
  PortTuning& operator=(const PortTuning&) = delete;

  /// Once the ports have NAPI instances (veth: only with XDP attached; the kernel refuses
  /// the flag before): enables threaded NAPI, then pins the ports' NAPI threads to the
  /// workers' CPUs (not without CPUs) and puts them at SCHED_FIFO napi_priority (not with
  /// 0), after recording their affinity and scheduling in the state file. The threads are
  /// found over netdev netlink only (a thread name can be another namespace's port).
  /// A setting the kernel refuses is logged and left as it was. Restore (the destructor)
  /// must run while the NAPI instances still exist, i.e. before XDP is detached.
  void tune();

 private:
  explicit PortTuning(PortTuningOptions options);
  struct PortState {
    std::string ifname;
    int ifindex = 0;
    std::string threaded;  ///< as read from sysfs; empty: not readable
    bool changed = false;
  };
  struct ThreadState {
    pid_t pid = 0;
    std::string comm;
    std::vector<int> cpus;  ///< affinity to restore; empty: not changed
    int policy = -1;        ///< scheduling to restore; -1: not changed
    int priority = 0;
    int nice = 0;
  };
  void tuneNapiThreads();
  /// The original values recorded so far: the state file's "ports" and "napi_threads".
  nlohmann::json recorded() const;
  Status writeState() const;
  void restore();

  PortTuningOptions options_;
  std::string path_;
  unsigned long long netns_ = 0;
  bool sysfs_ok_ = false;
  std::vector<PortState> ports_;
  std::vector<ThreadState> threads_;
};

}  // namespace fastpath
