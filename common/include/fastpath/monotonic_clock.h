// SPDX-License-Identifier: GPL-2.0-only
// The one clock the data plane's times are read from: CLOCK_MONOTONIC in nanoseconds (the
// clock bpf_ktime_get_ns() and a timed control channel's stamps use; a vDSO read, no
// syscall, so the packet path may call it).
#pragma once

#include <time.h>

#include <cstdint>

namespace fastpath {

/// CLOCK_MONOTONIC now, in nanoseconds.
inline uint64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

/// CLOCK_REALTIME now, in nanoseconds since the epoch: for times shown to people (when the
/// statistics were reset), never for the data plane's timing.
inline uint64_t realtimeNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace fastpath
