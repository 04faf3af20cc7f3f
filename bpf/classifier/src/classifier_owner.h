// SPDX-License-Identifier: GPL-2.0-only
// Who owns the classifier on an interface: an owner file per (network namespace,
// interface) holding the pid, so a restart can remove what a crashed run left attached.
#pragma once

#include <sys/types.h>

#include <string>

#include "fastpath/result.h"

namespace fastpath {

class OwnerFile {
 public:
  OwnerFile(const std::string& run_dir, const std::string& ifname);
  const std::string& path() const { return path_; }
  /// The recorded owner's pid, 0 if there is no (readable) file.
  pid_t readPid() const;
  /// Records this process as the owner (creates run_dir if needed).
  Status write() const;

 private:
  std::string dir_;
  std::string path_;
};

/// True if a process with this pid exists.
bool processAlive(pid_t pid);

/// Inspects the XDP programs on ifindex. Our xdp_fp_classify whose owner is dead (or
/// unrecorded) is detached with one log line; a live owner, or a foreign program attached
/// without the libxdp dispatcher, is an error. Other programs in a dispatcher are left
/// alone (they coexist).
Status cleanStaleAttachment(int ifindex, const std::string& ifname, const OwnerFile& owner);

}  // namespace fastpath
