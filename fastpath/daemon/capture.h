// SPDX-License-Identifier: GPL-2.0-only
// A capture as the daemon holds it: what it taps (ports and points), one ring per worker
// (each worker is the only writer of its ring) and what it delivered to its reader.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fastpath/capture_types.h"
#include "worker/capture_tap.h"

namespace fastpath {

struct PacketCapture {
  CaptureInfo info;
  CaptureSpec spec;
  struct Point {
    PortId port = 0;
    uint8_t points = 0;  ///< kCaptureRx | kCaptureTx
  };
  std::vector<Point> points;
  std::vector<std::unique_ptr<CaptureRing>> rings;  ///< per worker
  uint64_t delivered = 0;
  /// CLOCK_REALTIME - CLOCK_MONOTONIC when the capture started: the workers stamp frames
  /// with the monotonic time of their pass; pcap wants wall-clock time.
  int64_t realtime_offset_ns = 0;
};

}  // namespace fastpath
