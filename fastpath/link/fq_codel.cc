// SPDX-License-Identifier: GPL-2.0-only
#include "link/fq_codel.h"

#include <algorithm>
#include <cstring>

namespace fastpath {
namespace {

constexpr uint32_t kMurmurSeed = 0x8badf00d;  // ns-3's Murmur3 seed

inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// A network-layer header's protocol and ports, by offset from the frame's start.
uint32_t portsHash(const uint8_t* f, uint32_t len, uint32_t l4, uint8_t proto, bool first,
                   uint8_t* buf, uint32_t at) {
  uint16_t sport = 0, dport = 0;
  if (first && (proto == 6 || proto == 17) && l4 + 4 <= len) {
    sport = uint16_t(f[l4] << 8 | f[l4 + 1]);
    dport = uint16_t(f[l4 + 2] << 8 | f[l4 + 3]);
  }
  buf[at] = proto;
  buf[at + 1] = uint8_t(sport >> 8);
  buf[at + 2] = uint8_t(sport);
  buf[at + 3] = uint8_t(dport >> 8);
  buf[at + 4] = uint8_t(dport);
  return at + 5;
}

}  // namespace

uint32_t FqCoDel::murmur3(const uint8_t* data, uint32_t len, uint32_t seed) {
  constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h = seed;
  const uint32_t blocks = len / 4;
  for (uint32_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, data + 4 * i, 4);  // little-endian, as the x86 reference reads it
    k *= c1;
    k = rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = rotl32(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const uint8_t* tail = data + 4 * blocks;
  uint32_t k = 0;
  switch (len & 3) {
    case 3: k ^= uint32_t(tail[2]) << 16; [[fallthrough]];
    case 2: k ^= uint32_t(tail[1]) << 8; [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= c1;
      k = rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= len;
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

uint32_t FqCoDel::flowHash(const uint8_t* f, uint32_t len, uint32_t perturbation) {
  if (len < kEthHeader + 20) return 0;
  const uint16_t type = uint16_t(f[12] << 8 | f[13]);
  uint8_t buf[41];
  uint32_t n = 0;
  if (type == 0x0800 && (f[14] >> 4) == 4) {
    const uint32_t ihl = uint32_t(f[14] & 0x0f) * 4;
    const bool first = (uint16_t(f[20] << 8 | f[21]) & 0x1fff) == 0;  // fragment offset 0
    std::memcpy(buf, f + 26, 8);                                       // source, destination
    n = portsHash(f, len, kEthHeader + ihl, f[23], first, buf, 8);
  } else if (type == 0x86dd && (f[14] >> 4) == 6 && len >= kEthHeader + 40) {
    std::memcpy(buf, f + 22, 32);
    n = portsHash(f, len, kEthHeader + 40, f[20], true, buf, 32);
  } else {
    return 0;
  }
  buf[n++] = uint8_t(perturbation >> 24);
  buf[n++] = uint8_t(perturbation >> 16);
  buf[n++] = uint8_t(perturbation >> 8);
  buf[n++] = uint8_t(perturbation);
  return murmur3(buf, n, kMurmurSeed);
}

FqCoDel::FqCoDel(uint32_t capacity, uint32_t flows) : flows_(flows) {
  reserve(capacity);
  created_.reserve(flows);
}

void FqCoDel::reserve(uint32_t capacity) {
  const uint32_t old = uint32_t(pool_.size());
  if (capacity <= old) return;
  pool_.resize(capacity);
  // The new nodes join the free list.
  for (uint32_t i = capacity; i-- > old;) {
    pool_[i].next = free_;
    free_ = i;
  }
}

bool FqCoDel::adopt(FqCoDel& old) {
  if (pool_.size() < old.pool_.size() || flows_.size() != old.flows_.size() ||
      created_.capacity() < old.created_.size())
    return false;
  // Nodes and flows keep their indices; the nodes beyond old's join its free list.
  std::copy(old.pool_.begin(), old.pool_.end(), pool_.begin());
  const uint32_t from = uint32_t(old.pool_.size()), to = uint32_t(pool_.size());
  for (uint32_t i = from; i < to; ++i) pool_[i].next = i + 1 < to ? i + 1 : old.free_;
  free_ = from < to ? from : old.free_;
  std::copy(old.flows_.begin(), old.flows_.end(), flows_.begin());
  created_.assign(old.created_.begin(), old.created_.end());  // within its capacity
  new_ = old.new_;
  old_ = old.old_;
  packets_ = old.packets_;
  bytes_ = old.bytes_;
  // Old is left empty: its frames are this one's now.
  for (uint32_t q : old.created_) old.flows_[q] = Flow{};
  old.created_.clear();
  old.new_ = old.old_ = List{};
  old.packets_ = 0;
  old.bytes_ = 0;
  return true;
}

void FqCoDel::fitFlows(const LinkParams& p) {
  if (flows_.size() == p.aqm_fq_flows || packets_) return;
  flows_.assign(p.aqm_fq_flows, Flow{});
  created_.clear();
  created_.reserve(p.aqm_fq_flows);
  new_ = old_ = List{};
}

void FqCoDel::push(List& l, uint32_t q) {
  flows_[q].next = kNil;
  if (l.tail == kNil)
    l.head = q;
  else
    flows_[l.tail].next = q;
  l.tail = q;
}

uint32_t FqCoDel::popFront(List& l) {
  const uint32_t q = l.head;
  l.head = flows_[q].next;
  if (l.head == kNil) l.tail = kNil;
  flows_[q].next = kNil;
  return q;
}

FqCoDel::Frame FqCoDel::popFrame(Flow& f) {
  const uint32_t i = f.head;
  const Frame fr = pool_[i].frame;
  f.head = pool_[i].next;
  if (f.head == kNil) f.tail = kNil;
  pool_[i].next = free_;
  free_ = i;
  const uint32_t b = packetBytes(fr.len);
  --f.packets;
  f.bytes -= b;
  --packets_;
  bytes_ -= b;
  return fr;
}

uint32_t FqCoDel::queueOf(const LinkParams& p, uint32_t hash) {
  fitFlows(p);
  const uint32_t n = uint32_t(flows_.size());
  if (!p.aqm_fq_set_associative) return hash % n;
  const uint32_t ways = p.aqm_fq_set_ways && n % p.aqm_fq_set_ways == 0 ? p.aqm_fq_set_ways : 1;
  const uint32_t h = hash % n;
  const uint32_t set = h - h % ways;
  uint32_t pick = set;  // every queue of the set taken by other flows: the set's first
  for (uint32_t i = set; i < set + ways; ++i) {
    const Flow& f = flows_[i];
    if (!f.created || (f.tagged && f.tag == hash) || f.status == Status::kInactive) {
      pick = i;
      break;
    }
  }
  flows_[pick].tag = hash;
  flows_[pick].tagged = true;
  return pick;
}

bool FqCoDel::enqueue(const LinkParams& p, uint64_t now, uint32_t hash, const Frame& fr,
                      std::vector<Dropped>* dropped) {
  if (free_ == kNil) return false;
  const uint32_t q = queueOf(p, hash);
  Flow& f = flows_[q];
  if (!f.created) {
    f.created = true;
    created_.push_back(q);
  }
  if (f.status == Status::kInactive) {
    f.status = Status::kNew;
    f.deficit = p.aqm_fq_quantum;
    push(new_, q);
  }
  const uint32_t i = free_;
  free_ = pool_[i].next;
  pool_[i] = Node{fr, kNil};
  pool_[i].frame.enqueued = now;
  if (f.tail == kNil)
    f.head = i;
  else
    pool_[f.tail].next = i;
  f.tail = i;
  const uint32_t b = packetBytes(fr.len);
  ++f.packets;
  f.bytes += b;
  ++packets_;
  bytes_ += b;
  // ns-3 checks its size after the enqueue: in packets, or in bytes when the limit is.
  const bool over = p.aqm_limit_packets ? packets_ > p.aqm_limit_packets
                                        : (p.aqm_limit_bytes && bytes_ > p.aqm_limit_bytes);
  if (over) dropFattest(p, dropped);
  return true;
}

void FqCoDel::dropFattest(const LinkParams& p, std::vector<Dropped>* dropped) {
  // The first flow (in creation order) holding the most bytes.
  uint32_t fat = kNil;
  uint64_t most = 0;
  for (uint32_t q : created_)
    if (flows_[q].bytes > most) {
      most = flows_[q].bytes;
      fat = q;
    }
  if (fat == kNil) return;
  Flow& f = flows_[fat];
  // Half its bytes, at most a batch of frames, at least one; from the head, past CoDel
  // (its state does not change), and the flow keeps its place in the lists.
  const uint64_t half = most >> 1;
  uint64_t gone = 0;
  uint32_t count = 0;
  do {
    const Frame fr = popFrame(f);
    gone += packetBytes(fr.len);
    dropped->push_back(Dropped{fr, Why::kOverLimit});
  } while (++count < p.aqm_fq_drop_batch && gone < half && f.packets);
}

bool FqCoDel::flowDequeue(const LinkParams& p, uint32_t q, uint64_t now, Frame* out,
                          bool* mark, std::vector<Dropped>* dropped) {
  Flow& f = flows_[q];
  // A frame CoDel drops is followed in the same dequeue by the next of the flow (`waited`).
  bool waited = false;
  while (f.packets) {
    const Frame fr = popFrame(f);
    const CoDel::Verdict v =
        f.codel.head(p, now, now - fr.enqueued, f.bytes, fr.ect, waited, f.emptied);
    f.emptied = false;
    if (v == CoDel::Verdict::kDrop) {
      dropped->push_back(Dropped{fr, Why::kCoDel});
      waited = true;
      continue;
    }
    *out = fr;
    *mark = v == CoDel::Verdict::kMark;
    return true;
  }
  f.emptied = true;
  return false;
}

bool FqCoDel::dequeue(const LinkParams& p, uint64_t now, Frame* out, bool* mark,
                      std::vector<Dropped>* dropped) {
  for (;;) {
    // New flows first; one whose deficit is spent gets a quantum more and turns old.
    while (!new_.empty() && flows_[new_.head].deficit <= 0) {
      const uint32_t q = popFront(new_);
      flows_[q].deficit += p.aqm_fq_quantum;
      flows_[q].status = Status::kOld;
      push(old_, q);
    }
    const bool from_new = !new_.empty();
    if (!from_new) {
      while (!old_.empty() && flows_[old_.head].deficit <= 0) {
        const uint32_t q = popFront(old_);
        flows_[q].deficit += p.aqm_fq_quantum;
        push(old_, q);
      }
      if (old_.empty()) return false;
    }
    List& l = from_new ? new_ : old_;
    const uint32_t q = l.head;
    if (flowDequeue(p, q, now, out, mark, dropped)) {
      flows_[q].deficit -= packetBytes(out->len);
      return true;
    }
    // Found empty: a new flow goes to the end of the old list (so it cannot come back as
    // new at once), an old one leaves.
    popFront(l);
    if (from_new) {
      flows_[q].status = Status::kOld;
      push(old_, q);
    } else {
      flows_[q].status = Status::kInactive;
    }
  }
}

uint32_t FqCoDel::takeSome(Frame* out, uint32_t max) {
  uint32_t n = 0;
  for (uint32_t q : created_)
    while (n < max && flows_[q].packets) out[n++] = popFrame(flows_[q]);
  if (!packets_) {
    for (uint32_t q : created_) flows_[q] = Flow{};
    created_.clear();
    new_ = old_ = List{};
  }
  return n;
}

}  // namespace fastpath
