// SPDX-License-Identifier: GPL-2.0-only
// One direction of an emulated link, inside the worker that serves it: the ns-3 channel's
// arithmetic applied to descriptors. A frame sent at `now` waits in a drop-tail queue
// until the link is free (FIFO), occupies it for (max(bytes, mpu) + overhead) * 8 / rate, and
// arrives at the peer after the propagation delay plus jitter — times computed exactly
// at admission (integer nanoseconds, the rate's remainder carried, so no drift), then the
// descriptor waits in a FIFO (or, when jitter may reorder, a heap) until its arrival
// time. No thread, lock, syscall or allocation per frame; the worker releases what is due
// each pass and sleeps until the next arrival when idle (worker_schedule.cc).
//
// Parameters change at run time (setParams, control thread): frames already admitted
// keep their times — nothing queued is lost, duplicated or reordered by a change.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fastpath/link_params.h"
#include "link/aqm_queue.h"
#include "link/fq_codel.h"
#include "link/latency_histogram.h"
#include "link/link_queue.h"

namespace fastpath {

/// xoshiro256** (Blackman, Vigna): small, fast, and one stream per link direction from
/// a 64-bit seed (splitmix64), so a run repeats exactly.
class LinkRng {
 public:
  explicit LinkRng(uint64_t seed);
  uint64_t next();
  /// [0, 1)
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller; the second value is kept for the next call).
  double normal();

 private:
  uint64_t s_[4];
  double spare_ = 0;
  bool have_spare_ = false;
};

/// Gilbert-Elliott two-state loss: per frame, lose with the state's probability, then
/// move (good -> bad with p, bad -> good with r).
struct GilbertElliott {
  bool bad = false;
  bool lose(const LinkParams& p, LinkRng& rng);
};

/// Per direction counters; written by the worker, read by anyone.
struct ShaperCounters {
  std::atomic<uint64_t> enqueued{0};   ///< admitted into the queue (incl. duplicates)
  std::atomic<uint64_t> delivered{0};  ///< released to the peer end
  std::atomic<uint64_t> queue_drops{0};
  std::atomic<uint64_t> loss_drops{0};
  std::atomic<uint64_t> full_drops{0};  ///< the emulation's own capacity, not the model's
  /// A shared medium's sender gave the frame up after ns-3's maximum of backoff retries
  /// (CsmaNetDevice's TransmitAbort; only on a channel busy for over ~0.5 s).
  std::atomic<uint64_t> backoff_drops{0};
  std::atomic<uint64_t> aqm_drops{0};   ///< dropped by the queue discipline (CoDel's drops)
  std::atomic<uint64_t> aqm_marks{0};   ///< marked CE by the queue discipline instead
  /// Of aqm_drops and aqm_marks: RED's forced ones (the average over its forced threshold).
  std::atomic<uint64_t> aqm_forced_drops{0}, aqm_forced_marks{0};
  /// The bytes of aqm_drops and of aqm_forced_drops (frame lengths).
  std::atomic<uint64_t> aqm_drop_bytes{0}, aqm_forced_drop_bytes{0};
  std::atomic<uint64_t> duplicated{0};
  std::atomic<uint64_t> corrupted{0};
  std::atomic<uint64_t> depth_packets{0}, depth_bytes{0};  ///< waiting for the link now
  std::atomic<uint64_t> in_flight{0};                      ///< admitted, not yet released
  /// Waiting in FqCoDel's flow queues now: frames, network-layer bytes.
  std::atomic<uint64_t> fq_packets{0}, fq_bytes{0};
  LatencyHistogram sojourn;                                ///< time in the queue
  /// How long after their arrival time the worker handed this direction's frames on at
  /// the far end (the worker's lateness, per link: every wait after the frame was due).
  LatencyHistogram lateness;
};

/// Deleted, or replaced by a larger one (`successor`), a shaper is retired (Retirable):
/// the worker drains it, or moves its frames and state into the successor.
class LinkShaper : public Retirable {
 public:
  /// What the shaper emulates, which decides how long a frame keeps the medium busy.
  enum class Medium : uint8_t {
    /// One direction of a point-to-point link (ns-3's PointToPointChannel): the next frame
    /// may start as soon as this one is transmitted; it propagates meanwhile.
    kPointToPoint,
    /// A shared medium (ns-3's CsmaChannel): the channel stays busy until the frame has
    /// propagated (TRANSMITTING, then PROPAGATING for the delay), so the next frame of any
    /// sender starts transmission time + delay after this one started, at the first of
    /// ns-3's random backoff retries that finds it idle (csma_backoff.h).
    kShared,
  };
  /// `capacity`: frames it can hold admitted and not yet released (queue + link +
  /// propagation); beyond it frames are counted full_drops (the emulation says it could
  /// not follow the model).
  LinkShaper(const LinkParams& params, uint64_t seed, uint32_t capacity,
             Medium medium = Medium::kPointToPoint);
  Medium medium() const { return medium_; }
  ~LinkShaper();
  LinkShaper(const LinkShaper&) = delete;
  LinkShaper& operator=(const LinkShaper&) = delete;

  /// Control thread: the parameters from the next admission on. The previous object is
  /// returned for the caller to free after an epoch (a worker may be reading it).
  const LinkParams* setParams(const LinkParams& params);
  const LinkParams& params() const { return *params_.load(std::memory_order_acquire); }
  /// The capacity a set of parameters needs (queue limit + frames in flight at the rate
  /// and delay), a power of two in [1024, 65536].
  static uint32_t capacityFor(const LinkParams& p);
  uint32_t capacity() const { return capacity_; }
  /// The seed of a shaper's backoff stream (a shared medium's), from the shaper's seed:
  /// apart from the loss stream, so a loss sequence repeats with or without backoffs.
  static uint64_t backoffSeed(uint64_t seed) { return seed ^ 0x6373'6d61'626b'6f66ull; }

  // ---- worker thread ----
  enum class Fate : uint8_t { kPass, kLost };
  struct Decision {
    Fate fate = Fate::kPass;
    bool duplicate = false;
    int32_t corrupt_bit = -1;  ///< bit of the frame to flip, or -1
  };
  /// The random part of a frame's fate (loss, duplication, corruption), one call per
  /// frame sent, in order: the stream repeats for a seed.
  Decision decide(uint32_t len);
  enum class Admit : uint8_t {
    kQueued,
    kQueuedMarked,  ///< queued; the discipline marks it: the caller sets ECN's CE
    kQueueFull,     ///< the drop-tail queue's (or the discipline's) limit
    kCapacityFull,
    kAqmDrop,  ///< the discipline drops it (at what would be its dequeue time)
    kBackoffDrop,  ///< a shared medium's sender gave it up after ns-3's backoff retries
  };
  static bool queued(Admit a) { return a == Admit::kQueued || a == Admit::kQueuedMarked; }
  /// Admits a frame sent at `now`: queue limit, departure and arrival times. `from` comes
  /// back with the frame at release (a segment's sender port). `ect`: the frame is
  /// ECN-capable (a discipline with ECN marks it rather than dropping it). `flow`: its
  /// flow hash (FqCoDel::flowHash; read only by FqCoDel).
  ///
  /// With FqCoDel the frame waits in the discipline: kQueued says it entered, and what
  /// happens to it later (dropped, marked) comes out of discEvents().
  Admit admit(uint64_t now, uint64_t addr, uint32_t len, uint32_t from = 0, bool ect = false,
              uint32_t flow = 0);
  /// What FqCoDel decided about frames after their admission, at its dequeue times (or
  /// when a later frame put it over its limit): the caller sets CE on a marked frame and
  /// frees a dropped one (counted here already), then clears the list. Empty for every
  /// other discipline.
  struct DiscEvent {
    enum class Kind : uint8_t { kMark, kAqmDrop, kQueueDrop, kBackoffDrop };
    uint64_t addr;
    uint32_t len;
    uint32_t from;  ///< as admitted (a segment's sender port)
    Kind kind;
  };
  bool hasDiscEvents() const { return !events_.empty(); }
  std::span<const DiscEvent> discEvents() const { return events_; }
  void clearDiscEvents() { events_.clear(); }
  /// The flow-queue discipline (nullptr unless FqCoDel was ever on), for tests and stats.
  const FqCoDel* fqCoDel() const { return fq_.get(); }
  /// Frames whose arrival time has come (oldest arrival first), at most `max`; each one's
  /// arrival time in `arrival` and in its `due` (for the worker's lateness).
  uint32_t release(uint64_t now, LinkFrame* out, uint64_t* arrival, uint32_t max);
  /// The earliest arrival time held; UINT64_MAX when empty.
  uint64_t nextArrival() const;
  /// The frame release() gives next (the earliest arrival); false when empty.
  bool peekNext(LinkFrame* f) const;
  /// Takes that frame out before its arrival time (a timed client's lead): the link's
  /// queue is not advanced to a time that has not come.
  bool releaseNext(LinkFrame* f);
  /// Frames held: in flight, waiting for the link, and in a flow-queue discipline.
  uint32_t size() const { return uint32_t(fifo_n_ + heap_.size()) + (fq_ ? fq_->size() : 0); }
  /// Takes every frame held (link deleted: the worker frees them; or handed to a larger
  /// shaper by moveFrom).
  uint32_t takeAll(LinkFrame* out, uint32_t max);
  /// Continues `old`'s state (times, queue, random stream, frames) in this one, which has
  /// more capacity (parameters that need more room).
  void moveFrom(LinkShaper& old);

  ShaperCounters counters;
  /// Set before retire() when the shaper is replaced by a larger one.
  LinkShaper* successor = nullptr;

 private:
  struct Entry {
    uint64_t arrival;  ///< when it leaves the emulation (the order of release)
    uint64_t addr;
    uint32_t len;
    uint32_t from;
    /// Its model arrival (LinkFrame::due): `arrival`, or earlier for a frame that waited
    /// behind one the model sends after it (place()).
    uint64_t due;
  };
  struct Waiting {
    uint64_t tx_start;
    uint32_t len;
  };
  void advanceQueue(uint64_t now);
  uint64_t jitter();
  /// A frame on its way to the device queue at `now` (sent by the node at `sent`): the
  /// drop-tail limit, its transmission and arrival times.
  /// `in_send_order`: the frames reach it in the order the model sends them (not through
  /// FqCoDel, whose dequeues reorder them by design), so one sent before a frame admitted
  /// already came late.
  Admit place(const LinkParams& p, uint64_t now, uint64_t sent, uint64_t addr, uint32_t len,
              uint32_t from, bool marked, bool in_send_order = false);
  // FqCoDel (fq_codel.h): the frame enters the discipline; the dequeues due by `upto`
  // (each when the device queue has room) place the frames they give.
  Admit admitFq(const LinkParams& p, uint64_t now, uint64_t addr, uint32_t len, uint32_t from,
                bool ect, uint32_t flow);
  void pumpFq(uint64_t upto);
  void noteFqDrops();
  /// When the device queue has room for one more frame: the transmission start of the
  /// frame `limit` places ahead among those waiting, or 0 (room already).
  uint64_t deviceSlot(uint32_t limit) const;

  std::atomic<const LinkParams*> params_;  // owned: the current version
  uint32_t capacity_;
  Medium medium_;
  LinkRng rng_;
  LinkRng backoff_rng_;  // a shared medium's backoff draws (csma_backoff.h)
  GilbertElliott ge_;
  // The link: busy until `busy_until_`, plus the rate's remainder (in bit-nanoseconds).
  uint64_t busy_until_ = 0;
  uint64_t rate_rem_ = 0;
  uint64_t last_arrival_ = 0;
  uint64_t last_tx_end_ = 0;  // the previous frame's end of transmission
  // The latest send time admitted, and when the link was busy until before that frame: a
  // frame sent earlier that comes after it (its sender's way to the worker took longer)
  // found the link in that state in the model.
  uint64_t max_sent_ = 0;
  uint64_t busy_before_max_ = 0;
  // Frames still waiting for the link (tx_start > now): FIFO, for the drop-tail limit.
  std::vector<Waiting> waiting_;
  uint64_t wait_head_ = 0, wait_tail_ = 0, wait_bytes_ = 0;
  // Frames admitted, by arrival: FIFO (arrivals never decrease without reordering)...
  std::vector<Entry> fifo_;
  uint64_t fifo_head_ = 0, fifo_n_ = 0;
  // ... and a min-heap for frames jitter may reorder.
  std::vector<Entry> heap_;
  // The queue discipline in front of the device queue (LinkParams::aqm).
  AqmQueue aqm_;
  // FqCoDel, which decides at dequeue time: its frames, the model time of its next dequeue
  // (UINT64_MAX: empty), what it dropped in the last call, what the worker has to apply.
  // Builds the FqCoDel discipline (its frame pool, flows, drop and event room).
  void makeFq(const LinkParams& p);
  std::unique_ptr<FqCoDel> fq_;
  uint64_t fq_next_ = ~0ull;
  uint64_t fq_last_ = 0;  // its last dequeue: the next is never earlier
  std::vector<FqCoDel::Dropped> fq_dropped_;
  std::vector<DiscEvent> events_;
};

}  // namespace fastpath
