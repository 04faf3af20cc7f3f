// SPDX-License-Identifier: GPL-2.0-only
// A PM QoS request on the CPUs' wake-up latency, held while fastpathd runs
// (--cpu-wake-latency-us). An idle CPU sleeps in the deepest idle state its governor picks;
// leaving it delays whatever wakes it: the NAPI thread a frame arriving on a port wakes,
// the worker a timer wakes. On a VM the idle state is a halt that returns the CPU to the
// host, and the wake-up (an IPI, the host scheduling the vCPU again) takes tens of
// microseconds per hop. The request keeps the CPUs out of idle states that take longer to
// leave than asked (0: they poll while idle, ready at once, and any runnable task still
// takes the CPU at once). It is the kernel's /dev/cpu_dma_latency: it applies to every CPU,
// lasts while the file stays open, and the kernel drops it when the process exits, however
// it exits. Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "fastpath/result.h"

namespace fastpath {

class CpuWakeLatency {
 public:
  static constexpr const char* kDefaultPath = "/dev/cpu_dma_latency";

  /// Asks that no CPU take longer than `us` microseconds to wake (0: idle CPUs poll),
  /// until this object is destroyed. Errors (no such file, not root) say what to do.
  static Result<CpuWakeLatency> hold(uint32_t us, const std::string& path = kDefaultPath);

  /// The latency the kernel grants now over all requests (microseconds), as read from
  /// `path`; opening the file adds a request without a constraint, so reading changes
  /// nothing.
  static Result<int32_t> current(const std::string& path = kDefaultPath);

  CpuWakeLatency(CpuWakeLatency&& o) noexcept : fd_(o.fd_), us_(o.us_) { o.fd_ = -1; }
  CpuWakeLatency& operator=(CpuWakeLatency&& o) noexcept;
  CpuWakeLatency(const CpuWakeLatency&) = delete;
  CpuWakeLatency& operator=(const CpuWakeLatency&) = delete;
  /// Closing the file withdraws the request.
  ~CpuWakeLatency();

  uint32_t us() const { return us_; }

 private:
  CpuWakeLatency(int fd, uint32_t us) : fd_(fd), us_(us) {}
  int fd_ = -1;
  uint32_t us_ = 0;
};

}  // namespace fastpath
