// SPDX-License-Identifier: GPL-2.0-only
// fp-link-fidelity's traffic: the UDP frames S sends (flow, sequence number and
// CLOCK_REALTIME send stamp in the payload), the sender that follows a schedule, and the
// capture at D that records every frame with the kernel's receive stamp. Each runs as a
// thread inside its namespace; every loop is bounded in frames and time and stops between
// frames once requestStop() was called (SIGINT/SIGTERM).
#pragma once

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/net_types.h"
#include "fidelity_scenarios.h"

namespace fastpath::fidelity {

/// Flow number of the warm-up frames: the capture counts them apart.
inline constexpr uint16_t kWarmupFlow = 0xffff;

/// Asks every traffic loop (and sleepMs()) to stop; safe in a signal handler.
void requestStop();
bool stopRequested();
/// Sleeps `ms` milliseconds, or less once a stop was requested.
void sleepMs(int ms);

/// IPv4/UDP 198.18.0.2:10000+flow -> 198.18.1.2:9 of `len` bytes; payload {magic, flow,
/// seq, send_ns}, the last two filled in by the sender.
std::vector<uint8_t> frameTemplate(const MacAddress& dst, const MacAddress& src, uint32_t len,
                                   uint16_t flow);

struct SendStats {
  uint64_t sent = 0, refused = 0, syscalls = 0;
  uint64_t max_lag_ns = 0;  // how late the sender was against its schedule, at most
  double seconds = 0;
  int error = 0;
};

/// Sends templates[flow] at the schedule's times on `ifname` in namespace `ns` from a
/// thread pinned to `cpu`, sequence numbers from seq0, for at most max_seconds.
SendStats sendSchedule(const std::string& ns, const std::string& ifname, int cpu,
                       const std::vector<std::vector<uint8_t>>& templates, const Schedule& sch,
                       uint32_t max_batch, uint64_t seq0, double max_seconds);

/// One received frame.
struct Record {
  uint64_t seq, send_ns, recv_ns;
  uint32_t len;
  uint16_t flow;
};

/// Captures the frames arriving on `ifname` in namespace `ns` (a thread pinned to `cpu`)
/// until stop(); keeps at most max_records of them.
class Capture {
 public:
  Capture(const std::string& ns, const std::string& ifname, int cpu, size_t max_records);
  ~Capture() { stop(); }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  int error() const { return fd_ < 0 ? fd_ : 0; }
  uint64_t count() const { return count_.load(); }
  void stop();
  const std::vector<Record>& records() const { return records_; }
  uint64_t noTimestamp() const { return no_ts_; }
  uint64_t overflow() const { return overflow_; }
  uint64_t warmup() const { return warmup_; }

 private:
  void loop();

  size_t max_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> count_{0};
  int fd_ = -EBADF;
  std::vector<Record> records_;
  uint64_t no_ts_ = 0, overflow_ = 0, warmup_ = 0;
};

}  // namespace fastpath::fidelity
