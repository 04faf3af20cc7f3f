// SPDX-License-Identifier: GPL-2.0-only
// The radio medium's model: what happens on an ad hoc 802.11 channel to the frames its
// members send, event by event on the caller's clock (nanoseconds; a fake clock in tests,
// the worker's in fastpathd). Pure: no I/O, no allocation per frame, no lock.
//
// Per member a MAC (FIFO queue, DCF: DIFS, backoff drawn in [0, CW] and frozen while the
// member senses the medium busy, CW doubled per retry) and a PHY (carrier sense as ns-3 3.37's:
// busy under a frame at or above cs_threshold_dbm, ns-3's CcaSensitivity, or while the
// energy of every arriving signal together reaches it; weaker frames are interference only;
// half duplex; locks on the
// first frame it detects, with ns-3's preamble detection; the frame's success is drawn from
// ns-3's error model chunk by chunk as the interference at the receiver changes; optional
// capture of a stronger frame). Broadcast: one try at the basic rate. Unicast: at the data
// rate, acknowledged: the destination that decoded it sends the ACK SIFS after its end, at
// the control answer rate, a transmission of its own (its carrier-sense neighbours defer to
// it, every member it reaches takes it as interference, a member that detects it may lock on
// it) that the sender decodes as any frame; a lost ACK is a retry, and the copy the
// destination then receives again is a duplicate its MAC filters, as ns-3's by sequence
// number; the sender's carrier-sense neighbours hold off for SIFS + ACK (the NAV of the data
// frame's duration field); tried up to retry_limit times, then dropped and reported. The queue is ns-3 3.37's WifiMacQueue with
// its defaults: 500 frames, and a frame that waited longer than 500 ms (MaxDelay) is dropped
// when it reaches the head (ns-3 drops it at dequeue; a frame already sent once is kept). A unicast
// longer than rts_threshold goes after an RTS/CTS exchange as ns-3's MAC does it: the RTS
// (at the RTS rate) is answered after SIFS by a CTS from the destination (unless its NAV is
// set or it is busy with its own exchange), the frame follows SIFS after the CTS; members
// that decode the RTS or the CTS set their NAV to its duration field (the rest of the
// exchange) and defer as to a sensed transmission. No CTS by the end of its airtime (or
// SIFS + slot + preamble when none came): the RTS failed, tried again up to retry_limit
// times; the frame itself up to long_retry_limit times (ns-3's MaxSsrc, MaxSlrc).
#pragma once

#include <atomic>
#include <cstdint>
#include <queue>
#include <vector>

#include "fastpath/medium_types.h"
#include "medium/airtime.h"
#include "medium/pair_table.h"
#include "medium/rate_control.h"

namespace fastpath::medium {

inline constexpr int32_t kBroadcast = -1;

/// What became of a frame its sender gave the medium.
enum class TxOutcome : uint8_t {
  kBroadcast,   ///< sent once (whoever decoded it got it)
  kAcked,       ///< unicast, received by its destination
  kRetryLimit,  ///< unicast, not received after retry_limit tries: dropped
  kQueueFull,   ///< the sender's queue was full: dropped before the air
  kExpired,     ///< waited longer than kMaxDelayNs in the sender's queue: dropped unsent
};

/// Where the model's results go (the worker: copy to the receiver's port, free the frame).
class MediumSink {
 public:
  virtual ~MediumSink() = default;
  /// `to` received the frame `cookie` (its last bit arrived at `due_ns`).
  virtual void deliver(uint64_t cookie, uint32_t to, uint64_t due_ns) = 0;
  /// The sender is done with `cookie`: no delivery follows.
  virtual void done(uint64_t cookie, uint32_t from, TxOutcome outcome) = 0;
};

struct MemberStats {
  Counter tx_packets, tx_bytes, rx_packets, rx_bytes, retries, retry_drops, queue_drops;
  Counter collisions, tx_airtime_ns, busy_ns, late_frames, lateness_max_ns;
  /// Frames dropped unsent after kMaxDelayNs in the queue; ACKs this member (the data's
  /// sender) did not decode although its frame arrived; copies it received again after its
  /// ACK was lost (not delivered twice).
  Counter expired_drops, acks_lost, duplicates;
  /// ACKs this member sent (as a frame's destination); ACKs it owed but could not send
  /// because it was transmitting when the answer was due (the sender counts a lost ACK).
  /// Their airtime counts in the data sender's tx_airtime_ns (the exchange), not here.
  Counter acks_sent, acks_unsent;
};

class RadioMedium {
 public:
  /// ns-3 3.37's WifiMacQueue defaults (MaxSize 500p, MaxDelay 500 ms): FastPathWifiHelper
  /// refuses a script that sets others.
  static constexpr uint32_t kQueueFrames = 500;
  static constexpr uint64_t kMaxDelayNs = 500000000;
  /// Deliveries later than this past their due time count as late.
  static constexpr uint64_t kLateNs = 100000;

  RadioMedium(const MediumPhy& phy, uint32_t members, uint64_t seed);

  /// Control thread: the pairs (apply a batch, read them with their counters).
  PairTables& pairs() { return pairs_; }
  const PairTables& pairs() const { return pairs_; }
  const MemberStats& stats(uint32_t member) const { return stats_[member]; }
  /// The data path's thread: zeroes the members' maxima (lateness_max_ns); the counters stay.
  void resetMaxima() {
    for (auto& s : stats_) s.lateness_max_ns.v.store(0, std::memory_order_relaxed);
  }
  uint32_t members() const { return uint32_t(macs_.size()); }
  const MediumPhy& phy() const { return phy_; }

  // The data path (one thread).
  /// Member `from` sends a frame (`eth_bytes` of Ethernet frame) to member `to` or to
  /// kBroadcast. False: its queue is full (done(kQueueFull) was called).
  bool send(uint64_t now_ns, uint32_t from, int32_t to, uint32_t eth_bytes, uint64_t cookie,
            MediumSink& sink);
  /// Runs every event due at or before `now_ns`.
  void advance(uint64_t now_ns, MediumSink& sink);
  /// When the next event is due (UINT64_MAX: none).
  uint64_t nextEventNs() const { return events_.empty() ? UINT64_MAX : events_.top().t; }
  /// The medium is deleted: every frame it holds (queued or on the air) to `give(cookie)`;
  /// nothing is delivered or done any more.
  template <typename F>
  void discardAll(F give) {
    for (Mac& m : macs_) {
      for (uint32_t k = 0; k < m.count; ++k) give(m.ring[(m.head + k) % kQueueFrames].cookie);
      m.count = 0;
      m.state = Mac::State::kIdle;
    }
    events_ = decltype(events_)();
  }
  /// Whether the data path gave back its frames (discardAll) after the medium was retired.
  bool drained() const { return drained_.load(std::memory_order_acquire); }
  void markDrained() { drained_.store(true, std::memory_order_release); }

  /// Nanoseconds covered since the first frame.
  uint64_t elapsedNs() const { return first_ns_ == UINT64_MAX ? 0 : last_ns_ - first_ns_; }

 private:
  enum class EvKind : uint8_t {
    kAccess,
    kTxEnd,
    kAckEnd,
    kCtsStart,
    kCtsDone,
    kDataStart,
    kNavEnd,
    kAckStart,
  };
  enum class FrameKind : uint8_t { kData, kRts, kCts, kAck };
  struct Event {
    uint64_t t;
    uint64_t seq;  ///< ties broken in order of scheduling: a run repeats
    EvKind kind;
    uint32_t who;  ///< member (kAccess, kCts*, kDataStart, kNavEnd, kAck*) or transmission slot
    uint32_t gen;  ///< kAccess: stale unless the member's access generation
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct Pending {
    uint64_t cookie;
    int32_t to;
    uint32_t bytes;  ///< 802.11 frame
    uint64_t since;  ///< when it was queued (its lifetime counts from there)
  };
  struct Mac {
    std::vector<Pending> ring;
    uint32_t head = 0, count = 0;
    enum class State : uint8_t { kIdle, kContend, kBusy } state = State::kIdle;
    uint32_t cw = 0, slots = 0;
    uint32_t tries = 0;       ///< failed RTS, or data frames sent without RTS (short retries)
    uint32_t long_tries = 0;  ///< data frames sent after an RTS/CTS exchange, not acknowledged
    uint64_t contend_since = 0;  ///< backoff counts from max(this, idle_since + DIFS)
    uint32_t gen = 0;
    uint64_t last_done = 0;
  };
  struct Phy {
    int32_t rx_tx = -1;  ///< the transmission it is locked on
    bool transmitting = false;
    bool rx_lost = false, rx_interfered = false;
    uint32_t active = 0;  ///< signals arriving now
    uint32_t sensed = 0;  ///< of those, sensed
    double total_mw = 0;  ///< power of every arriving signal
    double rx_mw = 0;     ///< the locked frame's
    double rx_dbm = 0;
    uint64_t chunk_start = 0;
    double log_success = 0;
    uint64_t idle_since = 0, busy_since = 0;
    uint64_t nav_until = 0;  ///< virtual carrier sense (an RTS's or CTS's duration field)
    /// The energy of every arriving signal together reaches the carrier-sense threshold
    /// (counts as one sensed transmission while it lasts).
    bool energy_busy = false;
  };
  struct Tx {
    const PairTable* table = nullptr;
    uint64_t cookie = 0;
    uint32_t from = 0;
    int32_t to = kBroadcast;
    uint32_t rate_kbps = 0;
    uint32_t data_kbps = 0;  ///< the data frame's rate (its rate control's choice)
    uint32_t bytes = 0;
    uint64_t start = 0, data_end = 0;
    FrameTiming timing{};
    FrameKind kind = FrameKind::kData;
    uint64_t nav_ns = 0;    ///< RTS, CTS: the duration field (what follows its end)
    bool received = false;  ///< data: its destination decoded this try (and answers)
    bool delivered = false;  ///< data: a try of this frame reached its destination already
    bool cts_ok = false;    ///< RTS: its sender decoded the CTS
    bool ack_ok = false;    ///< data: its sender decoded the ACK of this try
    bool protected_ = false;  ///< data: sent after an RTS/CTS exchange
  };

  void schedule(uint64_t t, EvKind kind, uint32_t who, uint32_t gen = 0);
  const PairTable* adopt();
  void release(const PairTable* t);
  void contend(uint32_t i, uint64_t now);
  void scheduleAccess(uint32_t i);
  void startTx(uint32_t i, uint64_t now, MediumSink& sink);
  void transmit(uint32_t slot, uint64_t now);
  void endTx(uint32_t slot, uint64_t now, uint64_t late_ns, MediumSink& sink);
  void endControl(uint32_t slot, uint64_t now, MediumSink& sink);
  void endAck(uint32_t slot, uint64_t now, MediumSink& sink);
  void ctsDone(uint32_t i, uint64_t now, MediumSink& sink);
  void answerData(uint32_t i, uint64_t now);
  void startAck(uint32_t k, uint64_t now);
  bool decoded(const Phy& p);
  uint32_t ctsSlot(uint32_t k) const { return uint32_t(macs_.size()) + k; }
  uint32_t ackSlot(uint32_t k) const { return 2 * uint32_t(macs_.size()) + k; }
  bool expireHead(uint32_t i, uint64_t now, MediumSink& sink);
  void retryOrDrop(uint32_t i, uint64_t now, bool long_frame, MediumSink& sink);
  void setNav(uint32_t k, uint64_t until, uint64_t now);
  void selfBusy(uint32_t k, uint64_t now);
  void finish(uint32_t i, uint64_t now, TxOutcome outcome, MediumSink& sink);
  void senseUp(uint32_t k, uint64_t now);
  void senseDown(uint32_t k, uint64_t now);
  void energyChanged(uint32_t k, uint64_t now);
  void closeChunk(uint32_t k, uint64_t now);
  void arrive(uint32_t k, uint32_t slot, const PairEntry& e, uint64_t now);
  double noiseMw() const { return noise_mw_; }
  /// The ACK answering a data frame at `data_kbps`: its rate (the control answer rate) and
  /// its airtime.
  uint32_t ackKbps(uint32_t data_kbps) const {
    return rates_.ackRateKbps(data_kbps, phy_.ackRate());
  }
  uint64_t ackNs(uint32_t data_kbps) const {
    return data_kbps == phy_.data_rate_kbps
               ? ack_ns_
               : frameTiming(ackKbps(data_kbps), kAckBytes).duration_ns;
  }
  double uniform();
  uint32_t drawSlots(uint32_t cw);

  MediumPhy phy_;
  DcfTiming dcf_;
  bool dsss_;
  double noise_mw_, noise_dbm_;
  double cs_mw_;  ///< the carrier-sense threshold, for the energy of all signals together
  uint64_t ack_ns_, cts_ns_;
  int data_row_, basic_row_;
  PairTables pairs_;
  RateAdaptation rates_;
  std::vector<Mac> macs_;
  std::vector<Phy> phys_;
  std::vector<MemberStats> stats_;
  /// Member i's frames in slot i, its CTS in ctsSlot(i), its ACK in ackSlot(i): a member
  /// answers at most one frame at a time (it locks on one frame, and sending an answer
  /// loses the frame it was receiving).
  std::vector<Tx> txs_;
  std::vector<uint32_t> free_txs_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  uint64_t rng_;
  const PairTable* current_ = nullptr;
  std::vector<const PairTable*> held_;  ///< older tables frames in flight still read
  uint64_t first_ns_ = UINT64_MAX, last_ns_ = 0;
  std::atomic<bool> drained_{false};
};

}  // namespace fastpath::medium
