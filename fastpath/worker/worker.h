// SPDX-License-Identifier: GPL-2.0-only
// One forwarding worker: a thread (optionally pinned) that owns one UMEM and one AF_XDP
// socket per port (same queue index on every port), and per batch: drains completions,
// refills fill rings, receives, forwards DATA frames by moving their descriptor to the
// egress port's TX ring (no payload copy), hands exceptions to the ingress port's control
// channel, transmits frames queued by control clients, kicks TX only when the kernel asks
// (need_wakeup), and passes an epoch quiescent state. No allocation, lock or syscall per
// packet.
#pragma once

#include <linux/if_xdp.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/control_backend.h"
#include "fp_abi.h"
#include "link/link_ports.h"
#include "table/epoch.h"
#include "table/fib_manager.h"
#include "table/forward.h"
#include "worker/accounting_snapshot.h"
#include "worker/capture_tap.h"
#include "worker/control_channel.h"
#include "worker/link_emulation.h"
#include "worker/link_handoff.h"
#include "worker/link_inbox.h"
#include "worker/publication.h"
#include "worker/rt_budget.h"
#include "worker/rx_batch.h"
#include "worker/rx_budget.h"
#include "worker/medium_egress.h"
#include "worker/segment_fanout.h"
#include "worker/spsc_ring.h"
#include "worker/token_bucket.h"
#include "worker/wake_margin.h"
#include "worker/worker_counters.h"
#include "worker/worker_event.h"
#include "worker/worker_frames.h"
#include "worker/worker_timed.h"
#include "xsk/frame_pool.h"
#include "xsk/umem.h"
#include "xsk/xsk_port.h"

namespace fastpath {

struct WorkerOptions {
  unsigned index = 0;
  uint32_t queue = 0;
  int cpu = -1;  ///< pin to this CPU; -1: not pinned
  uint32_t batch_size = 64;
  uint32_t idle_poll_us = 1000;  ///< 0: never sleep
  /// After the last pass that had work, keep polling this long before sleeping in poll()
  /// (at least two empty passes). A worker sharing its CPU with the NAPI thread that fills
  /// its rings only takes CPU from that thread while it spins; the kernel wakes a sleeping
  /// worker when frames land.
  uint32_t idle_spin_ns = 0;
  /// Under overload (the kernel dropping at RX), frames lent for RX per port (fill ring +
  /// RX ring) are what the worker drains in this long at its measured rate (RxBudget), at
  /// least two batches; below it, and with 0, the fill rings are kept full.
  uint32_t rx_budget_us = 0;
  int rt_priority = 0;           ///< SCHED_FIFO priority at start; 0 = normal scheduling
  /// While real-time: step down to the normal policy (nice -10) before the real-time work
  /// on the worker's CPU spends the kernel's budget (sched_rt_runtime_us), back at once it
  /// has room again (RtBudgetGuard), instead of being stopped for the rest of the period.
  bool rt_guard = true;
  bool busy_poll = false;
  bool punt_to_control = true;
  /// Per port: punted and exception frames handed to the control channel at most at this
  /// rate (frames/s, 0 = unlimited) with this burst; CONTROL-verdict frames never count.
  uint64_t punt_rate = 0;
  uint64_t punt_burst = 256;
  /// Keep the last quarter of each channel's socket buffer for CONTROL frames (punts
  /// above it are "punt_headroom" drops). One SIOCOUTQ per batch that has punts.
  bool punt_headroom = true;
  uint32_t ctrl_tx_queue = 256;
  uint32_t event_queue = 1024;
  /// An emulated frame handed on later than this after its arrival time counts as late
  /// (link_late_frames; fastpathd warns when it grows).
  uint64_t lateness_warn_ns = 1000000;
  /// The most a worker spins before an emulated arrival. A sleeping thread wakes late
  /// (measured on the development VM with SCHED_FIFO: p50 ~30 us, p99 ~40 us; without
  /// it, up to a scheduler tick when the CPU is shared): the worker sleeps until the 90th
  /// percentile of its recent wake-ups' overshoot before the arrival (WakeMargin), at
  /// most this long, and spins the rest.
  uint64_t emulation_spin_ns = 150000;
  /// The spins before arrivals take at most this share of the time (per mille, saved up
  /// to 2 ms); beyond it the worker sleeps until the arrival itself (SpinBudget).
  uint32_t emulation_spin_permille = 250;
  /// Port ids the worker keeps counters for: interface ports are the sockets' indexes,
  /// link ports [kFirstLinkPort, max_ports). 0: the sockets only (no link ports).
  uint32_t max_ports = 0;
};

class Worker {
 public:
  /// `sockets[p]` is this worker's socket on PortId p (all on `umem`); `channels[p]` the
  /// port's control channel (shared by all workers).
  Worker(const WorkerOptions& options, std::unique_ptr<Umem> umem,
         std::vector<std::unique_ptr<XskSocket>> sockets, std::vector<ControlChannel*> channels,
         const FibView& fib, EpochDomain& epoch);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  Status start();
  /// Stops and joins the thread (idempotent).
  void stop();

  const WorkerOptions& options() const { return options_; }
  /// The table of interface port `p`'s node (default: the constructor's). Before start().
  void setPortFib(PortId p, const FibView* fib);
  /// The UMEM new sockets of this worker are created on (AF_XDP socket creation only; the
  /// frame pool is the worker's).
  Umem& umem() { return *umem_; }
  /// Control thread: serves interface port `p` (< kFirstLinkPort, not served now) from the
  /// worker's next pass on: its socket (on umem()) gets fill frames from the pool, its
  /// frames are received with `fib` (the port's node) and punted to `channel`. Like the link
  /// tables, the port set is published to the worker (release store) and the worker never
  /// locks; returns once published.
  Status attachPort(PortId p, std::unique_ptr<XskSocket> socket, ControlChannel* channel,
                    const FibView* fib);
  /// Control thread: stops serving interface port `p`. Returns once the worker took every
  /// frame back from the socket's rings (received frames and client frames staged for it
  /// are discarded, counted in port_frames_discarded), then closes the socket. Frames the
  /// kernel still held (the driver's, in zero-copy mode) are out of circulation for good
  /// (frames_lost). Waits at most `timeout_ms` for the worker; on timeout the socket is kept
  /// open (never freed under the worker) and an error says so.
  Status detachPort(PortId p, int timeout_ms = 2000);
  /// Keeps `socket` open for the worker's lifetime without serving it: the UMEM's first
  /// socket when no interface port existed at start (libxdp binds the UMEM's own fd with
  /// the first socket, and that fd can be bound only once: a port attached later and
  /// detached must not be the one holding it).
  void keepAnchor(std::unique_ptr<XskSocket> socket) { anchor_ = std::move(socket); }
  /// Control thread: the port's socket is served (attached and not detached).
  bool servesPort(PortId p) const { return p < sockets_.size() && sockets_[p] != nullptr; }
  /// Control thread: the link ports this worker serves from its next pass on. The table
  /// must stay valid until an epoch synchronize() that started after the next publish.
  void publishLinkPorts(const LinkPortTable* table) { links_pub_.publish(table); }
  /// Control thread: the captures this worker taps from its next pass on (nullptr or an
  /// empty table: none). Same lifetime rule as publishLinkPorts().
  void publishCaptures(const CaptureTable* table) { caps_pub_.publish(table); }
  /// Control thread: zeroes a port id's counters before the id is reused (only while no
  /// published table has the port, after an epoch synchronize).
  void resetPortCounters(PortId p) {
    if (p >= max_ports_) return;
    port_counters_[p].~WorkerPortCounters();
    new (&port_counters_[p]) WorkerPortCounters();
  }
  /// Highest port id + 1 with counters.
  uint32_t maxPorts() const { return max_ports_; }
  /// Control thread: zeroes the worker's histograms and maxima (lateness, rx_wait,
  /// emu_wake_late, stall_max_ns) and those of the emulations in its link table (links'
  /// and segments' sojourn and lateness, interface egress, radio media's lateness maxima);
  /// counters stay. The worker thread, their only writer, does it at the start of its next
  /// pass (woken for it; nothing stops). Returns once it did, or an error after
  /// `timeout_ms` (it then still does it at its next pass).
  Status resetHistograms(int timeout_ms = 2000);
  /// Switches the running worker to SCHED_FIFO `priority`, or back to SCHED_OTHER with 0.
  /// Any thread. A real-time worker sleeps after fewer empty loops.
  /// `below` > 0 (adaptive): the worker normally runs at SCHED_FIFO `below` (under the
  /// NAPI thread that fills its RX rings, so that thread empties the driver's small ring
  /// into the large AF_XDP ring as soon as frames arrive), and raises itself to `priority`
  /// when one of its RX rings is more than 3/4 full (overload: drain it instead of being
  /// starved), back to `below` once the rings stayed under 1/4 for a hold time (100 ms,
  /// doubled up to 6.4 s while boosts follow each other: sustained overload).
  Status setRtPriority(int priority, int below = 0);
  int rtPriority() const { return rt_.load(std::memory_order_relaxed); }
  /// The adaptive base priority (0: fixed priority).
  int rtBelow() const { return rt_below_.load(std::memory_order_relaxed); }
  /// Control thread: the other real-time threads on the worker's CPU (its ports' NAPI
  /// threads, by tid; at most kMaxRtPeers): their CPU time counts against the kernel's
  /// real-time budget with the worker's (RtBudgetGuard). Read by the worker at its next
  /// budget check.
  static constexpr size_t kMaxRtPeers = 8;
  void setRtPeers(const std::vector<int>& tids);
  /// The kernel's real-time bandwidth as read at start().
  const RtBandwidth& rtBandwidth() const { return rt_bw_; }
  /// Worker thread: stepped down to the normal policy by the guard. Any thread: racy hint.
  bool rtSteppedDown() const { return rt_down_.load(std::memory_order_relaxed); }
  /// Interface port ids in use + 1 (control thread; some below may be detached:
  /// servesPort()).
  size_t portCount() const { return ctl_np_; }
  const XskSocket& socket(PortId p) const { return *sockets_[p]; }
  const WorkerPortCounters& portCounters(PortId p) const { return port_counters_[p]; }
  const WorkerCounters& counters() const { return counters_; }
  /// The early hand-over to timed clients (worker thread, or tests between passes).
  const TimedRelease& timedRelease() const { return timed_; }
  /// The clock of the latest pass (CLOCK_MONOTONIC, read once at its start), which the
  /// pass's per-pass work goes by (punt limiters, a bridge hearing a frame of an unshaped
  /// segment). Worker thread, or tests between passes.
  uint64_t passClockNs() const { return now_ns_; }
  /// Frames lent for RX per port under overload (RxBudget's budget; below saturation the
  /// fill rings are kept full) and the drain rate it was sized from (frames/s; 0 before
  /// the first measurement). Any thread.
  uint32_t rxFillTarget() const { return rx_target_.load(std::memory_order_relaxed); }
  uint64_t rxRatePps() const { return rx_rate_.load(std::memory_order_relaxed); }

  /// Producer: the control relay thread. Frames to transmit on one of this worker's ports.
  SpscRing<ControlTxFrame>& controlTxQueue() { return ctrl_tx_; }
  /// An eventfd that wakes the worker from its idle sleep (the relay writes it after
  /// queueing client frames; stop() too), so the idle sleep can be long.
  int wakeFd() const { return wake_fd_; }
  /// Consumer: the control thread.
  SpscRing<WorkerEvent>& events() { return events_; }

  /// Where the UMEM's frames are, as last published by the worker (consistent snapshot)
  /// plus the ring levels read now. balanced() must always hold.
  FrameAccounting accounting() const;

  /// One pass of the worker loop, what the thread runs per loop: drain completions, refill
  /// the fill rings, receive and forward/punt a batch per port, transmit client frames,
  /// flush TX (syscall only when the kernel asks, need_wakeup), publish the accounting.
  /// Also for tests and benchmarks on in-memory sockets (XskSocket::createInMemory), from
  /// one thread and never while start()ed. Returns the frames handled; `tx_pending`: some
  /// TX ring still holds frames the kernel has not taken.
  uint32_t pollOnce(bool* tx_pending);

 private:
  void run();
  /// Interface ports as the control thread publishes them (attachPort, detachPort).
  struct PortSet {
    uint64_t version = 0;
    uint32_t np = 0;                        ///< highest port id + 1
    std::vector<XskSocket*> sockets;        ///< by port id; nullptr: none
    std::vector<ControlChannel*> channels;  ///< by port id
    std::vector<const FibView*> fibs;       ///< by port id
  };
  /// Worker thread (or the control thread while not started): adopts the newest port set;
  /// ports that left it give their frames back (reclaimPort).
  void switchPorts();
  /// Worker thread (or the control thread while not started): resetHistograms()'s work.
  void resetHistogramsNow();
  /// Control thread: wakes the running worker until `done` (what its next pass does) holds,
  /// at most `timeout_ms`; the error says it did not `what`, and `until` what holds meanwhile.
  Status awaitPass(const std::function<bool()>& done, int timeout_ms, const char* what,
                   const char* until);
  /// Waits (at most `timeout_ms`) until the worker serves port set `version`.
  Status awaitPorts(uint64_t version, int timeout_ms);
  void reclaimPort(PortId p);
  Status publishPorts(std::unique_ptr<PortSet> set, int timeout_ms);
  void drainCompletions(PortId p);
  void refill(PortId p);
  uint32_t receive(PortId p);
  /// Frames waiting at a link port: classified in userspace, then as receive().
  uint32_t receiveLink(const LinkPortSlot& slot);
  /// The received batch rx_batch_[0..n) of port `p`: lookups, verdicts, decisions.
  void process(PortId p, uint32_t n, const FibView& fib);
  /// process() with the batch's arrival times open to sentAt() for exactly that long: the
  /// one way receive() and receiveLink() hand a batch on.
  void processBatch(PortId p, uint32_t n, const FibView& fib) {
    const BatchSendTimes::Scope open(send_times_, {rx_batch_.data(), n});
    process(p, n, fib);
  }
  /// The one egress dispatch: a held frame leaving on port `egress` — an interface port's
  /// TX ring (or its egress emulation), a link (LinkHandoff), a segment (SegmentFanout), a
  /// radio medium (MediumEgress), or
  /// a counted drop (at `in`, the port it came from, when `egress` is no port at all).
  /// `sent`: when the model has the node send it (a timed client's stamp); by default
  /// the batch's arrival time of the frame (sentAt()).
  /// Its common case is inline on the per-frame path: an interface port without egress
  /// emulation takes the frame as a descriptor move (no call, no arrival-time search);
  /// everything else goes through transmitElsewhere() (worker_links.cc).
  static constexpr uint64_t kSentOfBatch = ~0ull;
  [[gnu::always_inline]] void transmit(PortId egress, uint64_t addr, uint32_t len, PortId in,
                                       uint64_t sent = kSentOfBatch) {
    if (egress < np_ && sock_[egress] && !egressShaper(egress)) [[likely]]
      return stageTx(egress, addr, len);  // the same frame: a descriptor move, no copy
    transmitElsewhere(egress, addr, len, in, sent);
  }
  /// transmit() past its inline case: an emulated interface egress, a link, a segment, a
  /// medium, or no port at all.
  void transmitElsewhere(PortId egress, uint64_t addr, uint32_t len, PortId in, uint64_t sent);
  /// Emulated frames whose arrival time has come, handed on in due order: to a link's
  /// peer end, a segment's ports, or an interface port's TX staging. Again while what
  /// that sent on is due already (a hop shorter than the time the worker was late, or
  /// without delay): a frame crosses such hops in the pass that released it.
  uint32_t releaseDue();
  uint32_t releaseDueOnce(uint64_t now);  // `now`: the clock read that found frames due
  /// Timed clients (TimedRelease, worker_timed.cc): frames that only a timed client takes
  /// at a link's peer end or a segment's member, handed over up to the client's lead
  /// before their arrival time and received there; and when the next of them may go
  /// (UINT64_MAX: none).
  uint32_t releaseEarly(uint64_t now);
  uint64_t nextEarly(uint64_t now);
  /// When the model has this node send the frame at `addr` on: its arrival time if it is
  /// one of the batch being processed that came out of an emulation or carries the
  /// classifier's arrival stamp, else 0 (now) (BatchSendTimes, opened by processBatch()).
  uint64_t sentAt(uint64_t addr) { return send_times_.sentAt(addr); }
  /// Switches to the newest link port table; drains the queues and shapers it retires.
  void switchLinkPorts();
  /// Switches to the newest capture table (worker_capture.cc).
  void switchCaptures();
  /// Copies one frame into the rings of the taps on `port` at `point` (caps_ is set).
  /// `at`: the frame's model time there when it is not now (a frame a timed client
  /// takes early, one sent at its send stamp); 0: now.
  void tapFrame(PortId port, uint8_t point, uint64_t addr, uint32_t len,
                uint8_t verdict = 0xff, uint8_t reason = 0xff, uint64_t at = 0);
  /// The received batch rx_batch_[0..n) of interface port `p` (caps_ is set).
  void tapRxBatch(PortId p, uint32_t n);
  /// Lateness of emulated frames handed on now: what the frames due at `due[0..n)`
  /// waited after their arrival time; also in `link`'s own histogram (the direction that
  /// timed them), when given.
  void recordLateness(const uint64_t* due, uint32_t n, LinkShaper* link);
  /// A timed client's frame for `port` stamped `sent`: counted late on arrival when even
  /// its earliest arrival time (the stamp plus the emulation's delay) is over
  /// lateness_warn_ns past (its sender ran behind real time; it will leave that late).
  void noteLateOnArrival(PortId port, uint64_t sent);
  /// The egress emulation of interface port p, if any.
  LinkShaper* egressShaper(PortId p) const {
    return links_ && p < links_->egress.size() ? links_->egress[p] : nullptr;
  }
  /// Every 2 ms: the share of arriving frames dropped at RX and the standing queue, for
  /// RxBudget's overload.
  void watchRxDrops();
  uint32_t transmitControl();
  void kick(PortId p);
  /// Adaptive real-time priority (setRtPriority's `below`): boost while an RX ring fills.
  void adaptRtPriority(int below);
  /// Once per pass (worker_rt.cc): `gap_ns` is how long the runnable worker went without
  /// running (passes apart with no sleep between, or a sleep's overshoot); every
  /// RtBudgetGuard::kSlotNs, or at a stall, the stall is classified and counted and the
  /// CPU's real-time use is sampled into the guard.
  void watchRt(uint64_t gap_ns) {
    if (gap_ns >= kStallMinNs || now_ns_ - rt_check_ns_ >= RtBudgetGuard::kSlotNs)
      checkRt(gap_ns);
  }
  void checkRt(uint64_t gap_ns);
  /// The guard's decision applied: SCHED_OTHER at nice -10, or back to SCHED_FIFO.
  void stepRt(bool realtime);
  void closeRtFds();
  /// Queues a held frame for the egress port's TX ring (flushed once per loop, or when
  /// the staging area is full). Per forwarded frame: always inlined.
  [[gnu::always_inline]] void stageTx(PortId egress, uint64_t addr, uint32_t len) {
    Staged& st = tx_stage_[egress];
    if (st.n == st.descs.size()) [[unlikely]]
      flushTx(egress);
    st.descs[st.n].addr = addr;
    st.descs[st.n].len = len;
    st.descs[st.n].options = 0;
    ++st.n;
  }
  void flushTx(PortId p);
  /// `limited`: a PUNT-class or exception frame (token bucket, headroom); otherwise a
  /// CONTROL frame, sent first and never rate-limited.
  void punt(PortId in, uint64_t addr, uint32_t len, bool limited);
  void flushPunts(PortId in);
  void raiseEvent(FastPathEvent::Kind kind, PortId port, const IpAddress& a);
  void publishAccounting();

  WorkerOptions options_;
  std::unique_ptr<Umem> umem_;
  // Control thread: the sockets (owned, by port id) and the published sets.
  std::vector<std::unique_ptr<XskSocket>> sockets_;
  std::unique_ptr<XskSocket> anchor_;  // see keepAnchor()
  uint32_t ctl_np_ = 0;
  std::unique_ptr<PortSet> ctl_set_;                // the newest set
  std::vector<std::unique_ptr<PortSet>> old_sets_;  // freed once the worker moved past them
  Publication<PortSet> ports_pub_;
  // Worker thread: the ports served (copied from the set; no pointer to a set is kept).
  uint64_t port_set_version_ = 0;
  uint32_t np_ = 0;
  std::vector<XskSocket*> sock_;
  std::vector<ControlChannel*> channels_;
  std::vector<uint64_t> rx_lent_;  // per port: frames on its fill ring, in the kernel, on RX
  uint64_t fill_quota_ = 0;        // per port: at most this many frames lent for receive
  void setFillQuota();
  bool ports_changed_ = false;     // run(): rebuild the poll set
  const FibView& fib_;
  EpochDomain& epoch_;
  uint32_t max_ports_ = 0;
  std::vector<const FibView*> port_fib_;  // per interface port: its node's table
  Publication<LinkPortTable> links_pub_;
  const LinkPortTable* links_ = nullptr;  // worker thread: the table in use
  uint64_t links_version_ = 0;
  Publication<CaptureTable> caps_pub_;
  const CaptureTable* caps_ = nullptr;  // worker thread: nullptr when nothing is tapped
  uint64_t caps_version_ = 0;
  std::vector<LinkFrame> link_rx_;  // one link port's batch
  std::vector<uint64_t> link_due_;  // the due times of its emulated frames
  /// Frames the link emulation releases in one takeDue at most: tx_due_ has room for
  /// kReleaseRounds of them, so every released egress frame's lateness is taken.
  static uint32_t maxReleasePerPass(const WorkerOptions& o) { return o.batch_size * 4; }
  /// Rounds of release one pass may take (releaseDue): frames sent on at their model time
  /// may be due at the next hop at once. tx_due_ holds every round's egress frames.
  static constexpr int kReleaseRounds = 8;
  // While a batch is processed (processBatch()): its frames' arrival times (sentAt()).
  BatchSendTimes send_times_;
  // Emulated frames staged for TX in this pass: their lateness is taken after the kicks.
  std::vector<uint64_t> tx_due_;
  std::vector<LinkShaper*> tx_due_link_;  // the egress emulation each came out of
  uint32_t tx_due_n_ = 0;
  ControlChannel* cur_channel_ = nullptr;  // the channel of the port being processed
  FrameBook book_;
  std::unique_ptr<WorkerPortCounters[]> port_counters_;
  WorkerCounters counters_;
  // The per-packet stages beside forwarding, on the worker's frames and counters.
  WorkerFrames frames_;
  LinkInbox inbox_;
  LinkEmulation emulation_;
  WakeMargin wake_margin_{options_.emulation_spin_ns};  // worker thread only (run())
  SpinBudget spin_budget_{options_.emulation_spin_permille, 2000000};  // run() too
  LinkHandoff handoff_;
  SegmentFanout fanout_;
  /// What a bridge forwards leaves through transmit(), as any frame sent on its port.
  struct BridgeEgress final : SegmentFanout::Egress {
    explicit BridgeEgress(Worker& w) : w(w) {}
    void transmit(PortId port, uint64_t addr, uint32_t len, uint64_t sent) override {
      w.transmit(port, addr, len, port, sent);
    }
    Worker& w;
  } bridge_egress_{*this};
  MediumEgress media_;
  TimedRelease timed_;
  SpscRing<ControlTxFrame> ctrl_tx_;
  std::vector<ControlTxFrame*> ctrl_batch_;  // a pass's client frames, in send order
  SpscRing<WorkerEvent> events_;

  // Per-batch staging, sized at construction (no allocation in the loop).
  struct Staged {
    std::vector<xdp_desc> descs;
    uint32_t n = 0;
  };
  std::vector<Staged> tx_stage_;  // per egress port
  // The received batch between receive()'s two passes (lookups first, then decisions).
  std::vector<RxFrame> rx_batch_;
  // The batch's IPv4 destinations (host order), their frames' batch indexes and next hops:
  // one bulk LPM lookup per batch.
  std::vector<uint32_t> dst4_, nh4_, idx4_;
  // Frames waiting for sendmmsg (a batch holds at most batch_size): CONTROL frames, then
  // limited ones (punts and exceptions), each in arrival order.
  std::vector<uint64_t> punt_addr_, limited_addr_;
  std::vector<uint32_t> punt_len_, limited_len_;
  // Their arrival times at the port (0: not emulated), for a timed channel's stamps.
  std::vector<ControlStamp> punt_due_, limited_due_;
  std::vector<mmsghdr> punt_msgs_;
  std::vector<iovec> punt_iov_;  // two per message: the stamp (timed channels), the frame
  uint32_t punt_n_ = 0;
  uint32_t limited_n_ = 0;
  std::vector<TokenBucket> punt_bucket_;  // per ingress port (interface and link)
  uint64_t now_ns_ = 0;                   // CLOCK_MONOTONIC, read once per loop
  std::vector<uint8_t> tx_pending_;       // per port: TX ring may hold unsent entries
  std::vector<uint64_t> tx_out_;          // per port: frames lent for TX, not yet completed
  WorkerEvent last_event_;
  bool have_last_event_ = false;
  RxBudget rx_budget_;
  uint64_t last_pass_ns_ = 0;     // start of the previous pass
  uint32_t last_pass_rx_ = 0;     // frames it received from the RX rings
  uint64_t rx_window_ns_ = 0;      // watchRxDrops(): start of the window
  uint64_t rx_window_frames_ = 0;  // frames received in it
  uint64_t rx_dropped_seen_ = 0;   // the sockets' RX drops (XDP_STATISTICS) at its start
  uint32_t rx_window_min_backlog_ = ~0u;  // fewest frames a pass left on the RX rings
  std::atomic<uint32_t> rx_target_{0};
  std::atomic<uint64_t> rx_rate_{0};

  // Accounting snapshot (seqlock: the worker writes, anyone reads).
  AccountingSnapshot acct_;

  std::atomic<int> rt_{0};
  std::atomic<int> rt_below_{0};
  bool rt_boosted_ = false;       // worker thread only: running at rt_ while rt_below_ > 0
  uint64_t rt_hot_until_ns_ = 0;  // worker thread only: stay boosted until then
  uint64_t rt_hold_ns_ = 0;       // worker thread only: current hold (doubles under overload)
  uint64_t rt_unboost_ns_ = 0;    // worker thread only: when it last went back under NAPI
  // Real-time budget (worker_rt.cc): the kernel's bandwidth (read at start), the guard,
  // the schedstat files read at each check, the peers as the control thread publishes them
  // (a sequence lock: odd while written).
  RtBandwidth rt_bw_;
  RtBudgetGuard rt_guard_;
  std::atomic<bool> rt_down_{false};
  std::atomic<uint32_t> rt_set_gen_{0};  // setRtPriority calls (the guard re-applies)
  uint32_t rt_set_seen_ = 0;
  int rt_nice_ = 0;                       // the nice value before a step down
  uint64_t rt_check_ns_ = 0;
  int rt_self_fd_ = -1;
  uint64_t rt_self_run_ = 0, rt_self_wait_ = 0;
  std::array<std::atomic<int>, kMaxRtPeers> rt_peer_tid_{};
  std::atomic<uint32_t> rt_peer_n_{0}, rt_peer_seq_{0};
  std::vector<int> rt_peers_ctl_;  // control thread: the list last published
  uint32_t rt_peer_seen_ = 0;
  std::vector<int> rt_peer_fd_;
  std::vector<uint64_t> rt_peer_run_;
  // resetHistograms(): asked by the control thread, done by the worker (generations).
  std::atomic<uint64_t> reset_asked_{0}, reset_done_{0};
  std::atomic<bool> stop_{false};
  int wake_fd_ = -1;
  std::thread thread_;
};

}  // namespace fastpath
