// SPDX-License-Identifier: GPL-2.0-only
#include "link/link_shaper.h"

#include "link/csma_backoff.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fastpath {
namespace {

uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// A counter only the worker writes (readers load it): load and store, no locked add.
inline void bump(std::atomic<uint64_t>& c, uint64_t n) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// Heap order: the earliest arrival on top.
struct Later {
  template <typename E>
  bool operator()(const E& a, const E& b) const {
    return a.arrival > b.arrival;
  }
};

}  // namespace

LinkRng::LinkRng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(&seed);
}

uint64_t LinkRng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double LinkRng::normal() {
  if (have_spare_) {
    have_spare_ = false;
    return spare_;
  }
  double u = uniform(), v = uniform();
  if (u < 1e-300) u = 1e-300;
  const double r = std::sqrt(-2.0 * std::log(u)), th = 2.0 * M_PI * v;
  spare_ = r * std::sin(th);
  have_spare_ = true;
  return r * std::cos(th);
}

bool GilbertElliott::lose(const LinkParams& p, LinkRng& rng) {
  // As netem's gemodel: the state moves first, the frame is lost with the probability
  // of the state it was sent in.
  const bool was_bad = bad;
  if (was_bad) {
    if (rng.uniform() < p.ge_r) bad = false;
  } else {
    if (rng.uniform() < p.ge_p) bad = true;
  }
  return rng.uniform() < (was_bad ? p.ge_loss_bad : p.ge_loss_good);
}

LinkShaper::LinkShaper(const LinkParams& params, uint64_t seed, uint32_t capacity,
                       Medium medium)
    : capacity_(capacity),
      medium_(medium),
      rng_(params.seed ? params.seed : seed),
      backoff_rng_(backoffSeed(params.seed ? params.seed : seed)),
      waiting_(capacity),
      fifo_(capacity),
      aqm_(capacity) {
  params_.store(new LinkParams(params), std::memory_order_release);
  heap_.reserve(capacity);
  // FqCoDel's pool and flow table are built here, on the control thread that makes the
  // shaper, not at the link's first frame: set up there, the allocation and its page faults
  // held that frame (a TCP handshake's SYN, say) a millisecond or more past its model time.
  if (params.aqm == LinkParams::Aqm::kFqCoDel) makeFq(params);
}

void LinkShaper::makeFq(const LinkParams& p) {
  fq_ = std::make_unique<FqCoDel>(capacity_, p.aqm_fq_flows);
  fq_dropped_.reserve(capacity_);
  events_.reserve(2 * size_t(capacity_));
}

LinkShaper::~LinkShaper() { delete params_.load(std::memory_order_relaxed); }

const LinkParams* LinkShaper::setParams(const LinkParams& params) {
  const LinkParams* old = params_.load(std::memory_order_relaxed);
  params_.store(new LinkParams(params), std::memory_order_release);
  return old;
}

uint32_t LinkShaper::capacityFor(const LinkParams& p) {
  // Frames in flight at most: the smallest frame (64 bytes) back to back at the rate (or
  // 2M frames/s without a rate) during the delay and jitter.
  const double pps = p.rate_bps ? double(p.rate_bps) / (64.0 * 8.0) : 2e6;
  const double flight = pps * double(p.delay_ns + p.jitter_ns) * 1e-9;
  // A queue discipline holds its limit besides (in bytes: at 64 bytes a frame at most).
  const double disc = p.aqm == LinkParams::Aqm::kNone ? 0.0
                      : p.aqm_limit_packets           ? double(p.aqm_limit_packets)
                                                      : double(p.aqm_limit_bytes) / 64.0;
  const double want = double(p.limit_packets) + disc + flight + 64;
  uint32_t c = 1024;
  while (c < 65536 && double(c) < want) c <<= 1;
  return c;
}

LinkShaper::Decision LinkShaper::decide(uint32_t len) {
  const LinkParams& p = params();
  Decision d;
  const bool lost =
      p.gilbert_elliott ? ge_.lose(p, rng_) : (p.loss > 0 && rng_.uniform() < p.loss);
  if (lost) {
    d.fate = Fate::kLost;
    counters.loss_drops.fetch_add(1, std::memory_order_relaxed);
    return d;
  }
  if (p.duplicate > 0 && rng_.uniform() < p.duplicate) d.duplicate = true;
  if (p.corrupt > 0 && rng_.uniform() < p.corrupt && len)
    d.corrupt_bit = int32_t(rng_.next() % (uint64_t(len) * 8));
  return d;
}

uint64_t LinkShaper::jitter() {
  const LinkParams& p = params();
  const double j = double(p.jitter_ns);
  double v = 0;
  switch (p.jitter_dist) {
    case LinkParams::Jitter::kUniform: v = (2.0 * rng_.uniform() - 1.0) * j; break;
    case LinkParams::Jitter::kNormal: v = rng_.normal() * j; break;
    case LinkParams::Jitter::kParetoNormal: {
      // netem's paretonormal mixes a Pareto (1/4) and a normal (3/4) variate; here the
      // Pareto part has shape 3 and is centred on its mean (1.5).
      const double pareto = std::pow(1.0 - rng_.uniform(), -1.0 / 3.0) - 1.5;
      v = (0.75 * rng_.normal() + 0.25 * pareto) * j;
      break;
    }
  }
  return uint64_t(int64_t(std::llround(v)));  // two's complement: added below
}

void LinkShaper::advanceQueue(uint64_t now) {
  while (wait_head_ != wait_tail_) {
    const Waiting& w = waiting_[wait_head_ % capacity_];
    if (w.tx_start > now) break;
    wait_bytes_ -= w.len;
    ++wait_head_;
  }
  counters.depth_packets.store(wait_tail_ - wait_head_, std::memory_order_relaxed);
  counters.depth_bytes.store(wait_bytes_, std::memory_order_relaxed);
}

uint64_t LinkShaper::deviceSlot(uint32_t limit) const {
  const uint64_t waiting = wait_tail_ - wait_head_;
  if (waiting < limit) return 0;  // room since before `now`
  return waiting_[(wait_tail_ - limit) % capacity_].tx_start;
}

LinkShaper::Admit LinkShaper::admit(uint64_t now, uint64_t addr, uint32_t len, uint32_t from,
                                    bool ect, uint32_t flow) {
  const LinkParams& p = params();
  if (p.aqm == LinkParams::Aqm::kFqCoDel || fq_next_ != ~0ull) [[unlikely]] {
    if (p.aqm == LinkParams::Aqm::kFqCoDel) return admitFq(p, now, addr, len, from, ect, flow);
    // FqCoDel was switched off: what it still holds leaves as the device frees room.
    pumpFq(now);
  }
  advanceQueue(now);
  if (size() >= capacity_) {
    counters.full_drops.fetch_add(1, std::memory_order_relaxed);
    return Admit::kCapacityFull;
  }
  const uint64_t sent = now;
  bool marked = false;
  if (p.rate_bps && p.aqm != LinkParams::Aqm::kNone) {
    // Through the queue discipline: the frame reaches the device queue at its dequeue
    // time, which is its sending time from here on (the device queue never overflows: the
    // discipline waits for its room).
    const AqmQueue::Outcome o = aqm_.admit(p, now, deviceSlot(p.limit_packets), len, ect, rng_);
    switch (o.fate) {
      case AqmQueue::Fate::kPass: break;
      case AqmQueue::Fate::kMark:
        marked = true;
        counters.aqm_marks.fetch_add(1, std::memory_order_relaxed);
        break;
      case AqmQueue::Fate::kForcedMark:
        marked = true;
        counters.aqm_marks.fetch_add(1, std::memory_order_relaxed);
        counters.aqm_forced_marks.fetch_add(1, std::memory_order_relaxed);
        break;
      case AqmQueue::Fate::kForcedDrop:
        counters.aqm_forced_drops.fetch_add(1, std::memory_order_relaxed);
        counters.aqm_forced_drop_bytes.fetch_add(len, std::memory_order_relaxed);
        [[fallthrough]];
      case AqmQueue::Fate::kDrop:
        counters.aqm_drops.fetch_add(1, std::memory_order_relaxed);
        counters.aqm_drop_bytes.fetch_add(len, std::memory_order_relaxed);
        return Admit::kAqmDrop;
      case AqmQueue::Fate::kOverLimit:
        counters.queue_drops.fetch_add(1, std::memory_order_relaxed);
        return Admit::kQueueFull;
      case AqmQueue::Fate::kFull:
        counters.full_drops.fetch_add(1, std::memory_order_relaxed);
        return Admit::kCapacityFull;
    }
    now = o.dequeue;
    advanceQueue(now);  // the device queue as the frame finds it then
  }
  return place(p, now, sent, addr, len, from, marked, true);
}

LinkShaper::Admit LinkShaper::place(const LinkParams& p, uint64_t now, uint64_t sent,
                                    uint64_t addr, uint32_t len, uint32_t from, bool marked,
                                    bool in_send_order) {
  // Sent before a frame admitted already (another sender's frame reached the worker first):
  // the model has this one on the link first, but the other's times are given (it may be on
  // its way to its receiver already). It takes the link after the other, as carrier sense
  // and backoff have it, and its stamp (`due`) stays what the model gives it — the link as
  // it was before the other frame, without the backoff it may have drawn there (a lower
  // bound) — so the wait behind the other frame is lateness, counted where it is handed on.
  const bool behind = in_send_order && sent < max_sent_;
  const uint64_t busy_before = busy_until_;
  uint64_t model_start = now;
  uint64_t tx_start = now, tx_end = now;
  if (p.rate_bps) {
    if (busy_until_ > now) {
      tx_start = busy_until_;
      // Drop-tail: the frames that wait for the link (not the one on it), as ns-3's
      // device queue in front of its channel.
      if (wait_tail_ - wait_head_ >= p.limit_packets ||
          (p.limit_bytes && wait_bytes_ + len > p.limit_bytes)) {
        counters.queue_drops.fetch_add(1, std::memory_order_relaxed);
        return Admit::kQueueFull;
      }
      // A CsmaNetDevice tries when the frame reaches it (or its previous transmission
      // ends) and backs off while the channel is busy: it starts at a retry, not when the
      // channel goes idle.
      if (medium_ == Medium::kShared &&
          !CsmaBackoff::start(std::max(now, last_tx_end_), busy_until_,
                              [this] { return backoff_rng_.uniform(); }, &tx_start)) {
        counters.backoff_drops.fetch_add(1, std::memory_order_relaxed);
        return Admit::kBackoffDrop;
      }
      waiting_[wait_tail_++ % capacity_] = Waiting{tx_start, len};
      wait_bytes_ += len;
    } else {
      rate_rem_ = 0;  // an idle link starts afresh
    }
    // Serialization: bits * 1e9 / rate, the remainder carried to the next frame so
    // that a long run of frames keeps the exact rate.
    const unsigned __int128 num =
        (unsigned __int128)linkFrameBytes(len, p) * 8u * 1000000000u + rate_rem_;
    tx_end = tx_start + uint64_t(num / p.rate_bps);
    rate_rem_ = uint64_t(num % p.rate_bps);
    // A shared medium is busy until the frame has propagated (CsmaChannel's PROPAGATING
    // state): a sender's back-to-back frames are spaced by transmission time + delay.
    busy_until_ = tx_end + (medium_ == Medium::kShared ? p.delay_ns : 0);
    last_tx_end_ = tx_end;
    model_start = behind ? std::min(tx_start, std::max(now, busy_before_max_)) : tx_start;
    counters.sojourn.add(model_start - sent);
  }
  if (in_send_order && !behind) {
    max_sent_ = sent;
    busy_before_max_ = busy_before;
  }
  uint64_t arrival = tx_end + p.delay_ns;
  if (p.jitter_ns) {
    const int64_t j = int64_t(jitter());
    arrival = (j < 0 && uint64_t(-j) > p.delay_ns) ? tx_end : uint64_t(int64_t(arrival) + j);
  }
  // Its model arrival: a frame behind one sent after it does not wait for that one.
  const uint64_t model_arrival = arrival - (tx_start - model_start);
  if (p.reorder && p.jitter_ns) {
    heap_.push_back(Entry{arrival, addr, len, from, model_arrival});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  } else {
    // Without reordering a frame never arrives before the one sent ahead of it.
    arrival = std::max(arrival, last_arrival_);
    const uint64_t due = behind ? model_arrival : arrival;
    fifo_[(fifo_head_ + fifo_n_++) % capacity_] = Entry{arrival, addr, len, from, due};
  }
  last_arrival_ = std::max(last_arrival_, arrival);
  // The worker is the counters' only writer: a plain add, not a locked read-modify-write.
  bump(counters.enqueued, 1);
  counters.in_flight.store(size(), std::memory_order_relaxed);
  counters.depth_packets.store(wait_tail_ - wait_head_, std::memory_order_relaxed);
  counters.depth_bytes.store(wait_bytes_, std::memory_order_relaxed);
  return marked ? Admit::kQueuedMarked : Admit::kQueued;
}

uint64_t LinkShaper::nextArrival() const {
  uint64_t t = std::numeric_limits<uint64_t>::max();
  if (fifo_n_) t = fifo_[fifo_head_ % capacity_].arrival;
  if (!heap_.empty()) t = std::min(t, heap_.front().arrival);
  // FqCoDel's next dequeue (UINT64_MAX without it): the worker wakes for it as for an
  // arrival.
  return std::min(t, fq_next_);
}

uint32_t LinkShaper::release(uint64_t now, LinkFrame* out, uint64_t* arrival, uint32_t max) {
  if (fq_) [[unlikely]] pumpFq(now);  // FqCoDel's dequeues due by now
  uint32_t n = 0;
  while (n < max) {
    const Entry* head = fifo_n_ ? &fifo_[fifo_head_ % capacity_] : nullptr;  // one division
    const bool f = head && head->arrival <= now;
    const bool h = !heap_.empty() && heap_.front().arrival <= now;
    if (!f && !h) break;
    const bool from_fifo = f && (!h || head->arrival <= heap_.front().arrival);
    Entry e;
    if (from_fifo) {
      e = *head;
      ++fifo_head_;
      --fifo_n_;
    } else {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      e = heap_.back();
      heap_.pop_back();
    }
    out[n] = LinkFrame{e.addr, e.len, e.from, e.due};
    arrival[n] = e.arrival;
    ++n;
  }
  if (n) {
    bump(counters.delivered, n);
    counters.in_flight.store(size(), std::memory_order_relaxed);
  }
  advanceQueue(now);
  return n;
}

bool LinkShaper::peekNext(LinkFrame* out) const {
  if (!size()) return false;
  // As release(): the FIFO's head on equal arrivals.
  const bool fifo =
      fifo_n_ && (heap_.empty() || fifo_[fifo_head_ % capacity_].arrival <= heap_.front().arrival);
  const Entry& e = fifo ? fifo_[fifo_head_ % capacity_] : heap_.front();
  *out = LinkFrame{e.addr, e.len, e.from, e.due};
  return true;
}

bool LinkShaper::releaseNext(LinkFrame* out) {
  if (!size()) return false;
  const bool fifo =
      fifo_n_ && (heap_.empty() || fifo_[fifo_head_ % capacity_].arrival <= heap_.front().arrival);
  peekNext(out);
  if (fifo) {
    ++fifo_head_;
    --fifo_n_;
  } else {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
  bump(counters.delivered, 1);
  counters.in_flight.store(size(), std::memory_order_relaxed);
  return true;
}

uint32_t LinkShaper::takeAll(LinkFrame* out, uint32_t max) {
  uint32_t n = 0;
  while (n < max && fifo_n_) {
    const Entry& e = fifo_[fifo_head_ % capacity_];
    out[n++] = LinkFrame{e.addr, e.len, e.from};
    ++fifo_head_;
    --fifo_n_;
  }
  while (n < max && !heap_.empty()) {
    out[n++] = LinkFrame{heap_.back().addr, heap_.back().len, heap_.back().from};
    heap_.pop_back();
  }
  if (fq_ && n < max) {
    FqCoDel::Frame f[64];
    while (n < max) {
      const uint32_t k = fq_->takeSome(f, std::min<uint32_t>(64, max - n));
      if (!k) break;
      for (uint32_t i = 0; i < k; ++i) out[n++] = LinkFrame{f[i].addr, f[i].len, f[i].from};
    }
    if (fq_->empty()) fq_next_ = ~0ull;
  }
  if (!size()) {
    wait_head_ = wait_tail_ = wait_bytes_ = 0;
    busy_until_ = last_arrival_ = last_tx_end_ = max_sent_ = busy_before_max_ = 0;
    aqm_.clear();
    fq_last_ = 0;
  }
  counters.in_flight.store(size(), std::memory_order_relaxed);
  return n;
}

namespace {

// `from`'s elements into `to` with room for `room`: copied when `to` has it (no allocation),
// else the two swap and `to` grows; `from` keeps the other storage, freed with its owner.
template <typename T>
void takeList(std::vector<T>& to, std::vector<T>& from, size_t room) {
  if (to.capacity() >= std::max(room, from.size())) {
    to.assign(from.begin(), from.end());
    from.clear();
    return;
  }
  to.swap(from);
  from.clear();
  to.reserve(room);
}

}  // namespace

void LinkShaper::moveFrom(LinkShaper& old) {
  busy_until_ = old.busy_until_;
  last_tx_end_ = old.last_tx_end_;
  max_sent_ = old.max_sent_;
  busy_before_max_ = old.busy_before_max_;
  backoff_rng_ = old.backoff_rng_;
  rate_rem_ = old.rate_rem_;
  last_arrival_ = old.last_arrival_;
  rng_ = old.rng_;
  ge_ = old.ge_;
  for (uint64_t i = old.wait_head_; i != old.wait_tail_; ++i)
    waiting_[wait_tail_++ % capacity_] = old.waiting_[i % old.capacity_];
  wait_bytes_ = old.wait_bytes_;
  for (uint64_t i = 0; i < old.fifo_n_; ++i)
    fifo_[(fifo_head_ + fifo_n_++) % capacity_] = old.fifo_[(old.fifo_head_ + i) % old.capacity_];
  for (const Entry& e : old.heap_) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  auto carry = [](std::atomic<uint64_t>& to, const std::atomic<uint64_t>& from) {
    to.store(to.load(std::memory_order_relaxed) + from.load(std::memory_order_relaxed),
             std::memory_order_relaxed);
  };
  carry(counters.enqueued, old.counters.enqueued);
  carry(counters.delivered, old.counters.delivered);
  carry(counters.queue_drops, old.counters.queue_drops);
  carry(counters.backoff_drops, old.counters.backoff_drops);
  carry(counters.loss_drops, old.counters.loss_drops);
  carry(counters.full_drops, old.counters.full_drops);
  carry(counters.duplicated, old.counters.duplicated);
  carry(counters.corrupted, old.counters.corrupted);
  carry(counters.aqm_drops, old.counters.aqm_drops);
  carry(counters.aqm_marks, old.counters.aqm_marks);
  carry(counters.aqm_forced_drops, old.counters.aqm_forced_drops);
  carry(counters.aqm_forced_marks, old.counters.aqm_forced_marks);
  carry(counters.aqm_drop_bytes, old.counters.aqm_drop_bytes);
  carry(counters.aqm_forced_drop_bytes, old.counters.aqm_forced_drop_bytes);
  aqm_.moveFrom(old.aqm_);
  if (old.fq_) {
    // The discipline's frames and flows go on. This runs on the worker; memory is the
    // control thread's to allocate and free (it frees the retired shaper). A successor
    // built with FqCoDel has its own discipline and lists, sized for its capacity: they take
    // old's contents. Otherwise (built without FqCoDel, or with another flow count) the two
    // swap, so what the successor had leaves with the retired shaper, and old's grows here.
    if (!fq_ || !fq_->adopt(*old.fq_)) {
      fq_.swap(old.fq_);
      fq_->reserve(capacity_);
    }
    fq_next_ = old.fq_next_;
    fq_last_ = old.fq_last_;
    takeList(fq_dropped_, old.fq_dropped_, capacity_);
    takeList(events_, old.events_, 2 * size_t(capacity_));
  }
  old.fifo_n_ = 0;
  old.heap_.clear();
  old.wait_head_ = old.wait_tail_ = old.wait_bytes_ = 0;
  counters.in_flight.store(size(), std::memory_order_relaxed);
}

}  // namespace fastpath
