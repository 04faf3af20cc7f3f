// SPDX-License-Identifier: GPL-2.0-only
// Routes libbpf's and libxdp's print callbacks into the log facade (fastpath/log.h),
// demoted one level: their warnings are often expected probes (xdp-tools does the same).
// A separate library so that the log facade itself does not pull in the BPF libraries.
#pragma once

namespace fastpath {

void routeLibbpfLogs();

/// While one exists, libbpf's and libxdp's messages go to the debug level only: for
/// probes whose failure is expected and explained by the caller in one line of its own
/// (libxdp trying its dispatcher on a kernel that refuses it prints several warnings).
class QuietLibbpfLogs {
 public:
  QuietLibbpfLogs();
  ~QuietLibbpfLogs();
  QuietLibbpfLogs(const QuietLibbpfLogs&) = delete;
  QuietLibbpfLogs& operator=(const QuietLibbpfLogs&) = delete;
};

}  // namespace fastpath
