// SPDX-License-Identifier: GPL-2.0-only
// A backend whose captures yield the frames a test queues (on the server thread): link
// "l1" (ports 300 and 301) is the one target it knows. For the capture IPC tests and
// fpctl's.
#pragma once

#include <cerrno>
#include <deque>
#include <set>

#include "table_backend.h"

namespace fastpath::ctrl::testing {

class CaptureBackend : public TableBackend {
 public:
  Result<CaptureInfo> startCapture(const CaptureSpec& spec) override {
    if (spec.target != "l1") return Error{-ENOENT, "capture " + spec.target + ": no such link"};
    last_spec = spec;
    CaptureInfo info;
    info.id = ++next_id;
    info.snaplen = spec.snaplen;
    info.ports = {300, 301};
    info.description = "link l1 (both)";
    open.insert(info.id);
    return info;
  }
  CaptureCounters readCapture(uint64_t id, std::vector<CapturedFrame>* out, size_t max) override {
    CaptureCounters c;
    while (!queued.empty() && out->size() < max) {
      out->push_back(queued.front());
      queued.pop_front();
      ++delivered;
    }
    c.captured = delivered + dropped;
    c.dropped = dropped;
    c.delivered = delivered;
    c.done = last_spec.count && delivered >= last_spec.count;
    (void)id;
    return c;
  }
  void stopCapture(uint64_t id) override {
    open.erase(id);
    stopped.insert(id);
  }

  CaptureSpec last_spec;
  std::deque<CapturedFrame> queued;
  uint64_t next_id = 0, delivered = 0, dropped = 0;
  std::set<uint64_t> open, stopped;
};

}  // namespace fastpath::ctrl::testing
