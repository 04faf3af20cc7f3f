// SPDX-License-Identifier: GPL-2.0-only
// The control-frame channel of one port: a socketpair(AF_UNIX, SOCK_SEQPACKET), one frame
// per message. Workers write frames the classifier marked control/punt (and forwarding
// exceptions) to fastpathd's end without ever blocking; the client end (ns-3's
// FdNetDevice) is handed out as a dup. Frames the client writes are read by the relay
// thread and queued (bounded SPSC) to the worker that owns the port's TX ring.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/control_timing.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"
#include "worker/spsc_ring.h"

namespace fastpath {

/// Largest frame carried on a control channel (Ethernet + 1500 MTU + VLAN tags + slack).
inline constexpr uint32_t kControlFrameMax = 2048 - 8;

/// A frame from a client, on its way to a worker's TX ring.
struct ControlTxFrame {
  PortId port = 0;
  uint32_t len = 0;
  /// When the model has the node send it (CLOCK_MONOTONIC, clamped by the relay); 0: now
  /// (a channel without timing).
  uint64_t sent = 0;
  uint8_t data[kControlFrameMax];
};

class ControlChannel {
 public:
  /// Creates the socketpair (non-blocking, close-on-exec) with `sndbuf` bytes of buffer.
  static Result<std::unique_ptr<ControlChannel>> create(PortId port, const std::string& ifname,
                                                        int sndbuf = 1 << 20);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  PortId port() const { return port_; }
  const std::string& ifname() const { return ifname_; }
  /// fastpathd's end: workers send on it, the relay thread reads from it.
  int daemonFd() const { return daemon_fd_; }
  /// The daemon end's send buffer as the kernel granted it (SO_SNDBUF read back).
  int sendBufferBytes() const { return sndbuf_; }
  /// A fresh dup of the client end (close-on-exec); marks the channel attached, so workers
  /// start writing to it. Frames queued for an earlier client are discarded first (counted
  /// in drop_stale_at_attach). `timing`: the framing from now on (control_timing.h); the
  /// lead is capped at kMaxDeliveryLeadNs. The caller owns the returned fd.
  Result<int> clientFd(const ControlChannelTiming& timing = {});
  /// Whether messages carry a ControlStamp (the last client that opened it asked so).
  bool timed() const { return timed_.load(std::memory_order_acquire); }
  /// How long before their arrival frames for the client may be written (0: at it).
  uint64_t leadNs() const { return lead_ns_.load(std::memory_order_relaxed); }
  /// No client holds the channel any more (the control connection that opened it is
  /// gone): workers stop writing to it, as before the first clientFd().
  void detach() { attached_.store(false, std::memory_order_release); }
  /// True while a client holds the channel (from clientFd() to detach()). Otherwise
  /// frames are counted drops ("no_control_client") and never written.
  bool attached() const { return attached_.load(std::memory_order_acquire); }

  /// Relay-side counters (frames from the client).
  std::atomic<uint64_t> from_client{0};
  std::atomic<uint64_t> from_client_bytes{0};
  std::atomic<uint64_t> drop_tx_queue_full{0};  ///< worker's queue full
  std::atomic<uint64_t> drop_oversize{0};       ///< larger than kControlFrameMax
  std::atomic<uint64_t> drop_runt{0};           ///< shorter than an Ethernet header
  /// Frames toward the client never read by an earlier client, discarded at a new attach.
  std::atomic<uint64_t> drop_stale_at_attach{0};
  /// Timed channels (relay side): frames whose send stamp was ahead of fastpathd's clock
  /// (clamped to now), or before the previous frame's (clamped to it), and the largest age
  /// of a stamp when the relay took the frame (the client's own lateness plus the relay's
  /// wake-up). The maximum is zeroed by a statistics reset (any thread: the relay raises it
  /// with a compare-exchange).
  std::atomic<uint64_t> stamp_future{0};
  std::atomic<uint64_t> stamp_reordered{0};
  std::atomic<uint64_t> stamp_age_max_ns{0};
  /// Timed channels (worker side): frames written before their arrival time (the lead).
  std::atomic<uint64_t> to_client_early{0};
  /// Timed channels (worker side): the worker's clock (CLOCK_MONOTONIC) when it last wrote
  /// frames to the client, the one it counted them early or not by (0: none yet). When a
  /// frame was handed over by the worker's own time, not when the client read it.
  std::atomic<uint64_t> to_client_ns{0};

 private:
  ControlChannel() = default;
  PortId port_ = 0;
  std::string ifname_;
  int daemon_fd_ = -1;
  int client_fd_ = -1;
  int sndbuf_ = 0;
  std::atomic<bool> attached_{false};
  std::atomic<bool> timed_{false};
  std::atomic<uint64_t> lead_ns_{0};
  uint64_t last_sent_ = 0;  // relay thread: the previous frame's send time (FIFO clamp)
  friend class ControlRelay;
};

/// The relay thread: waits (epoll) on fastpathd's end of every channel and queues what
/// clients write to the owning worker. One producer per queue (this thread), so the queues
/// stay SPSC. Channels come and go at run time (link ports get theirs when a client first
/// opens it), from the control thread.
class ControlRelay {
 public:
  struct Route {
    ControlChannel* channel;
    SpscRing<ControlTxFrame>* queue;  ///< the owning worker's control TX queue
    int wake_fd = -1;                 ///< the owning worker's wake-up eventfd (Worker::wakeFd)
  };
  explicit ControlRelay(std::vector<Route> routes);
  ~ControlRelay();
  Status start();
  void stop();
  /// Control thread: relays the channel's client frames to `queue` from now on.
  Status addChannel(ControlChannel* channel, SpscRing<ControlTxFrame>* queue, int wake_fd = -1);
  /// Control thread: stops relaying the channel; returns once the relay thread no longer
  /// touches it (the channel may then be destroyed).
  void removeChannel(ControlChannel* channel);

 private:
  void run();
  Status watch(Route* r);
  void drain(Route& r, uint8_t* scratch);
  void wakeAndWait();
  std::vector<std::unique_ptr<Route>> routes_;  // control thread; addresses stable
  int wake_fd_ = -1;   // eventfd: stop, or acknowledge a removal
  int epoll_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t requested_ = 0, acknowledged_ = 0;  // guarded by mu_
  bool done_ = false;                          // guarded by mu_
  std::thread thread_;
};

}  // namespace fastpath
