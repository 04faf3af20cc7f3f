// SPDX-License-Identifier: GPL-2.0-only
// The wire's latency as the daemons at its two ends measure it: timestamped probes
// (EtherType FP_ETH_P_WIRE_PROBE, untagged, which the wire's classifier passes to the
// kernel) on a packet socket. Each daemon answers its peer's probes for as long as it runs
// and measures the wire once at start; the round trip less the time the peer held the
// probe, halved, is the one-way latency — no clock synchronisation needed. Probes of
// another run tag, host or peer are ignored and counted. On a VXLAN wire, routed, the
// same probes travel in UDP between the two underlay addresses (UdpProbe). Not a public
// header.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// What the probes measured (one-way: round trip / 2).
struct WireLatency {
  uint64_t one_way_ns = 0;  ///< median
  uint64_t min_ns = 0;
  uint64_t jitter_ns = 0;   ///< spread: 90th less 10th percentile
  size_t samples = 0;
};

/// Median, minimum and spread of round trips (ns), as one-way figures.
WireLatency summariseRoundTrips(std::vector<uint64_t> rtt_ns);

/// The probes of a routed wire: UDP from `local` to `remote` (IPv4, network order), both
/// on `port`.
struct UdpProbe {
  uint32_t local = 0, remote = 0;
  uint16_t port = 0;
};

class WireProbe {
 public:
  /// Opens the probe socket on `ifname` and starts answering `peer`'s probes to `host`
  /// of run `tag`; with `udp`, in UDP (only from udp->remote).
  static Result<std::unique_ptr<WireProbe>> open(const std::string& ifname,
                                                 const std::string& tag, const std::string& host,
                                                 const std::string& peer,
                                                 const UdpProbe* udp = nullptr);
  ~WireProbe();
  WireProbe(const WireProbe&) = delete;
  WireProbe& operator=(const WireProbe&) = delete;

  /// Waits up to `wait_ms` for the peer's daemon to answer, then sends `count` probes 2 ms
  /// apart and summarises their round trips.
  Result<WireLatency> measure(uint32_t wait_ms, int count = 50);
  uint64_t answered() const { return answered_.load(); }
  uint64_t foreign() const { return foreign_.load(); }

 private:
  WireProbe() = default;
  static Result<std::unique_ptr<WireProbe>> openUdp(std::unique_ptr<WireProbe> p,
                                                    const UdpProbe& udp);
  void loop();
  void send(uint8_t type, uint64_t seq, uint64_t t1, uint64_t t2, const uint8_t* to_mac);

  int fd_ = -1;
  int ifindex_ = 0;
  bool udp_ = false;
  UdpProbe udp_to_;
  uint8_t mac_[6] = {};
  std::string ifname_, tag_, host_, peer_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> answered_{0}, foreign_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint64_t> rtt_;  ///< round trips of our probes, ns (guarded by mu_)
  std::thread thread_;
};

}  // namespace fastpath
