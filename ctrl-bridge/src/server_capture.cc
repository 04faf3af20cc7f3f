// SPDX-License-Identifier: GPL-2.0-only
// The control server's capture streams: every few milliseconds while a connection has
// captures open, their frames are drained from the data plane and sent in batches
// (ServerMessage.capture). A connection whose send queue is already long is skipped: its
// captures' rings fill and the workers count the frames they could not copy, so a slow
// reader costs frames of its own capture, never forwarding or the daemon's memory.
#include "server_impl.h"

#include "fastpath/log.h"

namespace fastpath::ctrl {

namespace {

/// Frames per batch message (at most snaplen bytes each).
constexpr std::size_t kCaptureBatch = 256;
/// A connection with this much queued is not given more capture frames this round.
constexpr std::size_t kCaptureQueueBytes = 4u << 20;

}  // namespace

bool ControlServer::Impl::capturesOpen() const {
  for (const auto& [fd, c] : conns)
    if (!c->session.captures.empty()) return true;
  return false;
}

void ControlServer::Impl::pumpCaptures() {
  std::vector<CapturedFrame> frames;
  for (auto& [fd, cp] : conns) {
    Conn& c = *cp;
    auto& caps = c.session.captures;
    for (std::size_t i = 0; i < caps.size() && !c.dead && !c.closing;) {
      const uint64_t id = caps[i].id;
      const bool stopping = caps[i].stopping;
      if (!stopping && c.queued_cost >= kCaptureQueueBytes) break;  // slow reader: rings fill
      frames.clear();
      const CaptureCounters n = backend.readCapture(id, &frames, kCaptureBatch);
      const bool done = n.done || stopping;
      if (frames.empty() && !done) {
        ++i;
        continue;
      }
      v1::ServerMessage m;
      auto* batch = m.mutable_capture();
      batch->set_capture_id(id);
      for (auto& f : frames) {
        auto* w = batch->add_frames();
        w->set_time_ns(f.time_ns);
        w->set_orig_len(f.orig_len);
        w->set_port(f.port);
        w->set_tx(f.where == CaptureWhere::kTx);
        w->set_verdict(f.verdict);
        w->set_reason(f.reason);
        w->set_data(std::move(f.data));
      }
      batch->set_captured(n.captured);
      batch->set_dropped(n.dropped);
      batch->set_done(done);
      enqueue(c, m);
      if (!done) {
        ++i;
        continue;
      }
      backend.stopCapture(id);
      pr_info("ctrl: %s: capture %llu done (%llu captured, %llu dropped)", c.who().c_str(),
              static_cast<unsigned long long>(id), static_cast<unsigned long long>(n.captured),
              static_cast<unsigned long long>(n.dropped));
      caps.erase(caps.begin() + long(i));
    }
  }
}

}  // namespace fastpath::ctrl
