// SPDX-License-Identifier: GPL-2.0-only
// The client's packet capture calls (protocol 1.6): start and stop a capture, and the
// batches of captured frames the server streams meanwhile, buffered like events while a
// call waits for its reply.
#include "client_connection.h"

namespace fastpath::ctrl {

namespace {

v1::StartCapture::Direction directionToWire(LinkDirection d) {
  switch (d) {
    case LinkDirection::kAToB: return v1::StartCapture::A_TO_B;
    case LinkDirection::kBToA: return v1::StartCapture::B_TO_A;
    default: return v1::StartCapture::BOTH;
  }
}

}  // namespace

void Client::Impl::bufferCapture(v1::CaptureFrames& w) {
  CaptureBatch b;
  b.capture_id = w.capture_id();
  b.captured = w.captured();
  b.dropped = w.dropped();
  b.done = w.done();
  b.frames.reserve(std::size_t(w.frames_size()));
  for (auto& f : *w.mutable_frames()) {
    CapturedFrame c;
    c.time_ns = f.time_ns();
    c.orig_len = f.orig_len();
    c.port = PortId(f.port());
    c.where = f.tx() ? CaptureWhere::kTx : CaptureWhere::kRx;
    c.verdict = uint8_t(f.verdict());
    c.reason = uint8_t(f.reason());
    c.data = std::move(*f.mutable_data());
    b.frames.push_back(std::move(c));
  }
  captures.push_back(std::move(b));
}

Result<CaptureInfo> Client::startCapture(const CaptureSpec& spec) {
  return impl_->query(
      *this, {kAnyVersion, "start_capture"},
      [&](v1::Request& q) {
        q.set_node(spec.node);
        auto* s = q.mutable_start_capture();
        s->set_target(spec.target);
        s->set_direction(directionToWire(spec.direction));
        s->set_snaplen(spec.snaplen);
        s->set_count(spec.count);
        s->set_exceptions_only(spec.exceptions_only);
      },
      [](const v1::Reply& r) {
        CaptureInfo info;
        const auto& s = r.capture_started();
        info.id = s.capture_id();
        info.snaplen = s.snaplen();
        for (uint32_t p : s.ports()) info.ports.push_back(PortId(p));
        info.description = s.description();
        return info;
      });
}

Status Client::stopCapture(uint64_t id) {
  return impl_->command(*this, {kAnyVersion, "stop_capture"},
                        [&](v1::Request& q) { q.mutable_stop_capture()->set_capture_id(id); });
}

Result<std::optional<CaptureBatch>> Client::nextCaptureBatch(int timeout_ms) {
  Impl& d = *impl_;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  for (;;) {
    if (!d.captures.empty()) {
      CaptureBatch b = std::move(d.captures.front());
      d.captures.pop_front();
      return std::optional<CaptureBatch>(std::move(b));
    }
    if (d.fd < 0) return makeError(-ENOTCONN, "not connected to fastpathd");
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    auto m = d.readMessage(wait);
    if (!m) return m.error();
    if (!m.value()) return std::optional<CaptureBatch>();
    if (m.value()->has_event()) d.bufferEvent(m.value()->event());
    if (m.value()->has_capture()) d.bufferCapture(*m.value()->mutable_capture());
  }
}

}  // namespace fastpath::ctrl
