// SPDX-License-Identifier: GPL-2.0-only
// A worker's counters: per (worker, port) and per worker, each written by the worker
// thread only and read by any (relaxed atomics), and the named reasons of its drops.
#pragma once

#include <atomic>
#include <cstdint>

#include "fp_abi.h"
#include "link/latency_histogram.h"
#include "table/forward.h"

namespace fastpath {

/// Why the worker itself dropped a frame (exceptions sent to the control channel are not
/// drops). Stable names in workerDropName().
enum class WorkerDrop : uint8_t {
  kControlChannelFull,  ///< "control_channel_full": the client does not read fast enough
  kNoControlClient,     ///< "no_control_client": nobody took the port's channel yet
  kPuntPolicy,          ///< "punt_policy_drop": --punt drop
  kTxRingFull,          ///< "tx_ring_full": the egress TX ring had no room
  kNoEgress,            ///< "no_egress_socket": decision named a port this worker lacks
  kPortDown,            ///< "port_down"
  kCtrlTxNoFrame,       ///< "ctrl_tx_no_frame": no free UMEM frame for a client's frame
  kCtrlTxRingFull,      ///< "ctrl_tx_ring_full"
  kPuntRateLimited,     ///< "punt_rate_limited": over --punt-rate (never CONTROL frames)
  kPuntHeadroom,        ///< "punt_headroom": channel 3/4 full, the rest kept for CONTROL
  kLinkDown,            ///< "link_down": sent on a link port whose link is down
  kLinkQueueFull,       ///< "link_queue_full": the link's queue toward the peer had no room
  kLinkClassifier,      ///< "link_classifier": the userspace classifier's DROP (per reason)
  kLinkPass,            ///< "link_pass": a PASS rule matched on a link port (no kernel there)
  kLinkLoss,            ///< "link_loss": the link's loss model (Bernoulli, Gilbert-Elliott)
  kLinkQueueDrop,       ///< "link_queue_drop": the link's drop-tail queue was at its limit
  kLinkEmulationFull,   ///< "link_emulation_full": more frames in flight than the emulation holds
  kSegmentUnknownDst,   ///< "segment_unknown_dst": a unicast to a MAC no other segment port has
  kSegmentNoFrame,      ///< "segment_no_frame": no free UMEM frame for a broadcast's copy
  kMediumQueueFull,     ///< "medium_queue_full": the sender's radio queue was full
  kMediumRetryLimit,    ///< "medium_retry_limit": unicast not acknowledged after its tries
  kMediumNoFrame,       ///< "medium_no_frame": no free UMEM frame for a received copy
  kMediumUnknownDst,    ///< "medium_unknown_dst": a unicast to a MAC no member has
  kLinkAqmDrop,         ///< "link_aqm_drop": the link's queue discipline (CoDel) dropped it
  kLinkBackoffDrop,     ///< "link_backoff_drop": a segment sender gave up after 1000 backoffs
  kBridgeLocal,         ///< "bridge_local": to a bridge port's own MAC (no stack above the bridge)
  kBridgeNoFrame,       ///< "bridge_no_frame": no free UMEM frame for a bridge's copy
  kBridgeLoop,          ///< "bridge_loop": relayed by more than 16 bridges at once (a loop)
  kMediumExpired,       ///< "medium_expired": waited past the radio queue's MaxDelay (500 ms)
  kMax,
};
const char* workerDropName(WorkerDrop drop);

/// A counter written by one thread (the worker), read by others.
struct Counter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t n) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t get() const { return v.load(std::memory_order_relaxed); }
  void raiseTo(uint64_t n) {
    if (n > get()) v.store(n, std::memory_order_relaxed);
  }
};

/// Per (worker, port) counters, one cache line aligned block each.
struct alignas(64) WorkerPortCounters {
  Counter rx_packets, rx_bytes;                 ///< received on this port
  Counter tx_packets, tx_bytes;                 ///< forwarded out of this port (descriptor moves)
  Counter to_control, to_control_bytes;         ///< written to this port's control channel
  Counter ctrl_tx_packets;                      ///< client frames transmitted on this port
  Counter no_meta;                              ///< frames without classifier metadata (punted)
  Counter verdict[FP_VERDICT_MAX];              ///< classifier verdicts seen
  Counter reason[FP_REASON_MAX];  ///< link ports: the userspace classifier's reasons
  Counter result[size_t(ForwardResult::kMax)];  ///< forwarding decisions (DATA frames)
  Counter drop[size_t(WorkerDrop::kMax)];
  Counter tx_kicks, tx_kick_errors;
};

struct alignas(64) WorkerCounters {
  Counter loops, busy_loops, idle_polls, events, events_dropped;
  Counter rt_boosts;  ///< switches from the below-NAPI priority to the draining one
  /// Stops of the runnable worker of kStallMinNs or more (worker_rt.cc): by the kernel's
  /// real-time throttling, and for any other reason; their time and the longest.
  Counter stall_rt_throttled, stall_rt_throttled_ns, stall_other, stall_other_ns, stall_max_ns;
  /// RtBudgetGuard: steps down to the normal policy before the CPU's real-time budget is
  /// spent, and the time spent there.
  Counter rt_guard_steps, rt_guard_normal_ns;
  Counter rx_overload_windows;  ///< 2 ms windows in RX overload (RxBudget: queue bounded)
  Counter link_tables;             ///< link port tables switched to
  Counter link_frames_discarded;   ///< frames queued on links when they were deleted
  Counter link_late_frames;        ///< emulated frames handed on over lateness_warn_ns late
  /// Of those, timed clients' frames already over lateness_warn_ns past their arrival time
  /// (their send stamp plus the delay) when the worker took them: their sender was late.
  Counter link_late_on_arrival;
  /// Passes whose client frames (several ports' in one batch) were put in send order
  /// before admission (send_order.h): the relay had queued them channel after channel.
  Counter ctrl_tx_reordered;
  Counter port_tables;             ///< interface port sets switched to
  Counter port_frames_discarded;   ///< frames received or staged on ports when detached
  /// How late emulated frames were handed on against their arrival time: the emulation's
  /// own error, including every wait inside the worker after the frame was due (the peer
  /// end's queue, its batch, the TX staging of the pass, a late wake-up).
  LatencyHistogram lateness;
  /// Batches of the interface ports that carry the classifier's arrival stamp: how long the
  /// batch's first (oldest) frame waited from the XDP program (bpf_ktime_get_ns()) to the
  /// worker's pass that took it off the RX ring (the pass's clock read) — the port's NAPI wake-up, the worker's wake-up,
  /// the batches ahead of it. An emulated link or egress starts from the stamp, so this
  /// wait is inside its delay; what exceeds the delay is that frame's lateness.
  LatencyHistogram rx_wait;
  /// Timer wake-ups for an emulated arrival, and how late each came against the time
  /// asked for (the scheduler's and the timer's latency: what WakeMargin sleeps ahead by).
  Counter emu_wakeups;
  LatencyHistogram emu_wake_late;
  /// Time spent spinning for an arrival nearer than the wake margin (CPU taken from the
  /// scenario by the emulation's timing).
  Counter emu_spin_ns;
  /// Arrivals slept for although nearer than the wake margin: the spin budget was spent.
  Counter emu_spin_over_budget;
};

}  // namespace fastpath
