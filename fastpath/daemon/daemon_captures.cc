// SPDX-License-Identifier: GPL-2.0-only
// Packet capture in the daemon: a target (link, segment or a node's port) resolved to the
// ports and points to tap, one ring per worker, the workers' capture tables published (and
// retired through the epoch), and the rings drained for the reader in time order.
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "daemon/daemon.h"
#include "fastpath/log.h"

namespace fastpath {
namespace {

/// Slots of a capture's ring in each worker: a burst of this many frames waits for a
/// reader that looks every few milliseconds.
constexpr uint32_t kCaptureRingSlots = 4096;

int64_t realtimeOffsetNs() {
  timespec r, m;
  clock_gettime(CLOCK_REALTIME, &r);
  clock_gettime(CLOCK_MONOTONIC, &m);
  return (int64_t(r.tv_sec) - int64_t(m.tv_sec)) * 1000000000ll + (r.tv_nsec - m.tv_nsec);
}

const char* directionName(LinkDirection d) {
  return d == LinkDirection::kAToB ? "a-to-b" : d == LinkDirection::kBToA ? "b-to-a" : "both";
}

}  // namespace

Result<CaptureInfo> Daemon::startCapture(const CaptureSpec& spec) {
  if (captures_.size() >= kMaxCaptures)
    return Error{-ENOSPC, "capture " + spec.target + ": " + std::to_string(kMaxCaptures) +
                              " captures are open already; stop one first"};
  auto cap = std::make_unique<PacketCapture>();
  cap->spec = spec;
  // A link's direction is what its sending end puts into it; a segment's frames are taken
  // as each port sends them (every frame once, before the fan-out copies it).
  if (auto l = net_.links.find(spec.target); l != net_.links.end()) {
    const Link& link = l->second;
    if (spec.direction != LinkDirection::kBToA) cap->points.push_back({link.a, kCaptureTx});
    if (spec.direction != LinkDirection::kAToB) cap->points.push_back({link.b, kCaptureTx});
    cap->info.description = "link " + link.name + " (" + directionName(spec.direction) + ")";
  } else if (spec.direction != LinkDirection::kBoth) {
    return Error{-EINVAL, "capture " + spec.target + ": a direction (" +
                              directionName(spec.direction) +
                              ") is for links only, and there is no link of that name"};
  } else if (auto s = net_.segments.find(spec.target); s != net_.segments.end()) {
    for (PortId p : s->second.ports) cap->points.push_back({p, kCaptureTx});
    cap->info.description = "segment " + s->second.name;
  } else {
    Node* node = net_.findNode(spec.node);
    if (!node) return Error{-ENOENT, "capture: node \"" + spec.node + "\": no such node"};
    auto port = node->portByName(spec.target);
    if (!port)
      return Error{-ENOENT, "capture " + spec.target + ": no link or segment of that name, and " +
                                port.error().message};
    cap->points.push_back({*port, uint8_t(kCaptureRx | kCaptureTx)});
    cap->info.description = "port " + spec.target + " of node " + node->name();
  }
  // A frame is never longer than a UMEM frame.
  cap->info.snaplen = std::min(spec.snaplen, config_.frame_size);
  for (const PacketCapture::Point& p : cap->points) cap->info.ports.push_back(p.port);
  for (size_t w = 0; w < workers_.size(); ++w)
    cap->rings.push_back(std::make_unique<CaptureRing>(kCaptureRingSlots, cap->info.snaplen));
  cap->realtime_offset_ns = realtimeOffsetNs();
  cap->info.id = next_capture_id_++;
  const CaptureInfo info = cap->info;
  captures_.emplace(info.id, std::move(cap));
  publishCaptureTables();
  pr_info("capture %llu: %s, snap length %u", static_cast<unsigned long long>(info.id),
          info.description.c_str(), info.snaplen);
  return info;
}

CaptureCounters Daemon::readCapture(uint64_t id, std::vector<CapturedFrame>* out, size_t max) {
  CaptureCounters c;
  auto it = captures_.find(id);
  if (it == captures_.end()) {
    c.done = true;
    return c;
  }
  PacketCapture& cap = *it->second;
  const size_t first = out->size();
  size_t room = max;
  if (cap.spec.count) room = std::min<uint64_t>(room, cap.spec.count - cap.delivered);
  // Each worker's ring is in time order; the workers' frames are merged below.
  for (auto& ring : cap.rings) {
    const uint8_t* data = nullptr;
    while (out->size() - first < room) {
      const CaptureRecord* r = ring->front(&data);
      if (!r) break;
      CapturedFrame f;
      f.time_ns = uint64_t(int64_t(r->mono_ns) + cap.realtime_offset_ns);
      f.orig_len = r->orig_len;
      f.port = r->port;
      f.where = r->point == kCaptureTx ? CaptureWhere::kTx : CaptureWhere::kRx;
      f.verdict = r->verdict;
      f.reason = r->reason;
      f.data.assign(reinterpret_cast<const char*>(data), r->cap_len);
      out->push_back(std::move(f));
      ring->consume();
    }
  }
  if (cap.rings.size() > 1)
    std::stable_sort(out->begin() + long(first), out->end(),
                     [](const CapturedFrame& a, const CapturedFrame& b) {
                       return a.time_ns < b.time_ns;
                     });
  cap.delivered += out->size() - first;
  for (auto& ring : cap.rings) {
    c.captured += ring->captured();
    c.dropped += ring->dropped();
  }
  c.delivered = cap.delivered;
  c.done = cap.spec.count && cap.delivered >= cap.spec.count;
  return c;
}

void Daemon::stopCapture(uint64_t id) {
  auto it = captures_.find(id);
  if (it == captures_.end()) return;
  std::unique_ptr<PacketCapture> cap = std::move(it->second);
  captures_.erase(it);
  // The rings are freed only once no worker can be copying into them.
  publishCaptureTables();
  for (const auto& ring : cap->rings) closed_captures_dropped_ += ring->dropped();
  pr_info("capture %llu stopped: %llu frames delivered", static_cast<unsigned long long>(id),
          static_cast<unsigned long long>(cap->delivered));
}

void Daemon::captureCounters(std::vector<CounterSet>& out) const {
  uint64_t dropped = closed_captures_dropped_;
  for (const auto& [id, cap] : captures_) {
    CounterSet cs;
    cs.scope = "capture " + std::to_string(id);
    uint64_t captured = 0, lost = 0;
    for (const auto& ring : cap->rings) {
      captured += ring->captured();
      lost += ring->dropped();
    }
    dropped += lost;
    // dropped_reader_slow: the capture's ring was full (its reader fell behind); the
    // frame itself was forwarded as always.
    cs.counters = {{"captured", captured}, {"dropped_reader_slow", lost},
                   {"delivered", cap->delivered}};
    out.push_back(std::move(cs));
  }
  out.push_back(CounterSet{"captures", {{"open", captures_.size()}, {"dropped_reader_slow", dropped}}});
}

void Daemon::publishCaptureTables() {
  capture_tables_.resize(workers_.size());
  ++capture_table_version_;
  std::vector<std::unique_ptr<CaptureTable>> old;
  for (size_t w = 0; w < workers_.size(); ++w) {
    auto t = std::make_unique<CaptureTable>();
    t->version = capture_table_version_;
    for (const auto& [id, cap] : captures_)
      for (const PacketCapture::Point& p : cap->points)
        t->taps.push_back({p.port, p.points, cap->spec.exceptions_only, cap->rings[w].get()});
    workers_[w]->publishCaptures(t.get());
    old.push_back(std::move(capture_tables_[w]));
    capture_tables_[w] = std::move(t);
  }
  // Every worker passed a quiescent state after the publication: none reads the old
  // tables (nor the rings of a stopped capture) any more.
  epoch_.synchronize();
}

}  // namespace fastpath
