// SPDX-License-Identifier: GPL-2.0-only
// FlowQueue-CoDel (RFC 8290) as ns-3's FqCoDelQueueDisc runs it: frames are hashed on their
// 5-tuple into `flows` queues, each a FIFO with its own CoDel (codel.h, the same state
// machine as the single-queue discipline); a deficit round robin of `quantum` bytes serves
// new flows (those that just became active) before old ones; over the limit, frames are
// dropped from the head of the flow holding the most bytes, up to `drop batch` of them or
// half its bytes.
//
// Why this discipline decides at dequeue time, when CoDel and COBALT decide at admission
// (aqm_queue.h): with one FIFO, a frame's dequeue time is known when it comes. With flow
// queues it is not — which frame leaves next depends on frames of other flows that arrive
// while it waits (a new flow goes ahead of it). So the frames stay here until the link's
// device queue has room, and the shaper (link_shaper.h) asks for the next frame at that
// model time: its own "next dequeue" time, which the worker's due order wakes for as for
// an arrival. Nothing here reads a clock; every time comes from the caller.
//
// Sizes are what ns-3's queue disc sees, the network-layer packet: the frame without its
// 14-byte Ethernet header (quantum, limits and CoDel's MinBytes count these bytes).
//
// The hash is ns-3's: MurmurHash3 (x86, 32-bit, seed 0x8BADF00D) over source, destination,
// protocol, ports and the perturbation, big-endian; modulo `flows`, or set-associative
// (ns-3's EnableSetAssociativeHash: the first queue of the hash's set that is unused,
// inactive or tagged with the same hash, else the set's first).
//
// No allocation per frame: frames sit in a pool of `capacity` nodes linked per flow, and
// flows are linked into the new and old lists by index.
#pragma once

#include <cstdint>
#include <vector>

#include "fastpath/link_params.h"
#include "link/codel.h"

namespace fastpath {

class FqCoDel {
 public:
  /// A frame held by the discipline.
  struct Frame {
    uint64_t addr = 0;
    uint64_t enqueued = 0;  ///< when it entered (ns), for its sojourn
    uint32_t len = 0;       ///< the whole frame's bytes
    uint32_t from = 0;      ///< given back with it (the shaper's `from`)
    bool ect = false;       ///< ECN-capable
  };
  enum class Why : uint8_t {
    kOverLimit,  ///< over the discipline's limit, dropped from the fattest flow
    kCoDel,      ///< dropped by its flow's CoDel at dequeue
  };
  struct Dropped {
    Frame frame;
    Why why;
  };

  /// `capacity`: frames held at most (the shaper's); more are refused (enqueue false).
  /// `flows`: the flow queues to set up now (a different LinkParams::aqm_fq_flows later
  /// sets them up again once the discipline is empty).
  explicit FqCoDel(uint32_t capacity, uint32_t flows = 1024);

  /// A frame of flow hash `hash` (flowHash()) enters at `now`. Over the limit, frames of
  /// the fattest flow (possibly this one) go to `dropped`. False: the emulation holds
  /// `capacity` frames already (the frame does not enter; nothing else changes).
  bool enqueue(const LinkParams& p, uint64_t now, uint32_t hash, const Frame& f,
               std::vector<Dropped>* dropped);
  /// The device has room at `now`: the next frame by DRR, through its flow's CoDel (frames
  /// CoDel drops on the way go to `dropped`). False: no frame left. `*mark`: CoDel marks
  /// it CE (ECN) rather than dropping it, or its sojourn passed the CE threshold.
  bool dequeue(const LinkParams& p, uint64_t now, Frame* out, bool* mark,
               std::vector<Dropped>* dropped);

  uint32_t size() const { return packets_; }  ///< frames held
  uint64_t bytes() const { return bytes_; }   ///< their network-layer bytes
  bool empty() const { return packets_ == 0; }
  /// Takes up to `max` frames out (link deleted); once none is left, every flow's state
  /// is reset. Returns how many.
  uint32_t takeSome(Frame* out, uint32_t max);
  /// Room for `capacity` frames (a larger shaper took this one over).
  void reserve(uint32_t capacity);
  /// Takes `old`'s frames, flows and state into this discipline's own storage, without
  /// allocating or freeing (a worker hands a retired shaper's discipline on with it; the
  /// memory is the control thread's to free). False, and nothing taken, when this one has
  /// fewer frame nodes or another flow count, or too little room for the created-flow list.
  bool adopt(FqCoDel& old);

  /// The flow queue a hash maps to, as the next enqueue would (set-associative: may claim
  /// a queue of the set for it).
  uint32_t queueOf(const LinkParams& p, uint32_t hash);
  /// Frames and bytes in flow queue `q`; its deficit; whether it is on the new list.
  uint32_t flowPackets(uint32_t q) const { return q < flows_.size() ? flows_[q].packets : 0; }
  uint64_t flowBytes(uint32_t q) const { return q < flows_.size() ? flows_[q].bytes : 0; }
  int64_t flowDeficit(uint32_t q) const { return q < flows_.size() ? flows_[q].deficit : 0; }
  const CoDel* flowCoDel(uint32_t q) const { return q < flows_.size() ? &flows_[q].codel : nullptr; }

  /// The network-layer bytes of a frame of `len` bytes (what ns-3's queue disc counts).
  static uint32_t packetBytes(uint32_t len) { return len > kEthHeader ? len - kEthHeader : len; }
  /// ns-3's flow hash of an Ethernet frame (IPv4 or IPv6; TCP and UDP ports when the
  /// packet is not a later fragment); 0 for anything else, as ns-3's default item hash.
  static uint32_t flowHash(const uint8_t* frame, uint32_t len, uint32_t perturbation);
  /// MurmurHash3 x86 32-bit, exposed for its test vectors.
  static uint32_t murmur3(const uint8_t* data, uint32_t len, uint32_t seed);

 private:
  static constexpr uint32_t kNil = ~0u;
  static constexpr uint32_t kEthHeader = 14;
  enum class Status : uint8_t { kInactive, kNew, kOld };
  struct Flow {
    uint32_t head = kNil, tail = kNil;  // its frames (pool nodes), oldest first
    uint32_t packets = 0;
    uint64_t bytes = 0;
    int64_t deficit = 0;
    uint32_t next = kNil;  // in the new or old list
    Status status = Status::kInactive;
    bool created = false;  // ns-3 created its queue (set-associative hashing looks)
    bool emptied = false;  // its last dequeue found it empty (CoDel leaves its drop state)
    uint32_t tag = 0;      // set-associative: the hash that last claimed it
    bool tagged = false;
    CoDel codel;
  };
  struct List {
    uint32_t head = kNil, tail = kNil;
    bool empty() const { return head == kNil; }
  };
  struct Node {
    Frame frame;
    uint32_t next;
  };
  void push(List& l, uint32_t q);
  uint32_t popFront(List& l);
  Frame popFrame(Flow& f);
  // One dequeue of flow `q`'s CoDel (ns-3's child CoDelQueueDisc::Dequeue).
  bool flowDequeue(const LinkParams& p, uint32_t q, uint64_t now, Frame* out, bool* mark,
                   std::vector<Dropped>* dropped);
  void dropFattest(const LinkParams& p, std::vector<Dropped>* dropped);
  void fitFlows(const LinkParams& p);

  std::vector<Node> pool_;
  uint32_t free_ = kNil;
  std::vector<Flow> flows_;
  std::vector<uint32_t> created_;  // flow queues in the order ns-3 created them
  List new_, old_;
  uint32_t packets_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace fastpath
