// SPDX-License-Identifier: GPL-2.0-only
// Packet capture requests (protocol 1.6): StartCapture validated and handed to the
// topology (operators only: a capture shows other peers' traffic), StopCapture marks the
// connection's capture for its last batch. The frames themselves are streamed by the
// server (server_capture.cc), which owns the connection's send queue.
#include <cerrno>

#include "dispatcher.h"
#include "fastpath/log.h"
#include "wire_error.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

namespace {

/// A target is a link, segment or port name: 1 to 31 printable characters without '/' or
/// white space (interface names included).
WireStatus targetFromWire(const std::string& t) {
  bool ok = !t.empty() && t.size() <= 31;
  for (char c : t)
    if (c == '/' || static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e)
      ok = false;
  if (!ok)
    return WireError{v1::INVALID_ARGUMENT, "start_capture.target",
                     "start_capture.target: \"" + t +
                         "\" is no link, segment or port name (1 to 31 printable characters, "
                         "no '/' or white space)"};
  return {};
}

}  // namespace

WireStatus captureSpecFromWire(const v1::StartCapture& w, CaptureSpec* spec) {
  if (auto st = targetFromWire(w.target()); !st) return st;
  spec->target = w.target();
  switch (w.direction()) {
    case v1::StartCapture::BOTH: spec->direction = LinkDirection::kBoth; break;
    case v1::StartCapture::A_TO_B: spec->direction = LinkDirection::kAToB; break;
    case v1::StartCapture::B_TO_A: spec->direction = LinkDirection::kBToA; break;
    default:
      return WireError{v1::INVALID_ARGUMENT, "start_capture.direction",
                       "start_capture.direction: " + std::to_string(w.direction()) +
                           " is no direction (BOTH, A_TO_B, B_TO_A)"};
  }
  if (w.snaplen() != 0 && (w.snaplen() < kCaptureMinSnaplen || w.snaplen() > kCaptureMaxSnaplen))
    return WireError{v1::INVALID_ARGUMENT, "start_capture.snaplen",
                     "start_capture.snaplen: " + std::to_string(w.snaplen()) + " is outside " +
                         std::to_string(kCaptureMinSnaplen) + ".." +
                         std::to_string(kCaptureMaxSnaplen) + " (0 = " +
                         std::to_string(kCaptureDefaultSnaplen) + ")"};
  spec->snaplen = w.snaplen() ? w.snaplen() : kCaptureDefaultSnaplen;
  spec->count = w.count();
  spec->exceptions_only = w.exceptions_only();
  return {};
}

void Dispatcher::capture(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  if (req.body_case() == v1::Request::kStopCapture) {
    for (auto& c : s.captures)
      if (c.id == req.stop_capture().capture_id()) {
        c.stopping = true;  // the server sends its last batch (done) and stops it
        return;
      }
    return setError(o, id, v1::NOT_FOUND, "stop_capture.capture_id",
                    "stop_capture.capture_id: " +
                        std::to_string(req.stop_capture().capture_id()) +
                        " is no capture of this connection");
  }
  if (!s.may_change_topology)
    return setOperatorNeeded(o, id, "start_capture",
                             "a capture shows every peer's traffic, so it", s.uid);
  CaptureSpec spec;
  if (auto st = captureSpecFromWire(req.start_capture(), &spec); !st)
    return setError(o, id, st.error());
  if (auto st = optionalNodeFromWire(req.node(), "node"); !st) return setError(o, id, st.error());
  spec.node = req.node().empty() ? s.node : canonicalNode(req.node());
  auto info = topology_.startCapture(spec);
  if (!info)
    return setError(o, id, codeForErrno(info.error().code), "start_capture.target",
                    "start_capture.target: " + info.error().message);
  s.captures.push_back({info->id, false});
  pr_info("ctrl: %s: capture %llu on %s", s.who.c_str(),
          static_cast<unsigned long long>(info->id), info->description.c_str());
  auto* started = rep->mutable_capture_started();
  started->set_capture_id(info->id);
  started->set_snaplen(info->snaplen);
  for (PortId p : info->ports) started->add_ports(p);
  started->set_description(info->description);
}

void Dispatcher::stopCaptures(Session& s) {
  for (const auto& c : s.captures) topology_.stopCapture(c.id);
  s.captures.clear();
}

}  // namespace fastpath::ctrl
