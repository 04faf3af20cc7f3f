// SPDX-License-Identifier: GPL-2.0-only
// Packet capture as the control plane sees it: what to capture (a port, a link or one of
// its directions, a segment), the frames a capture delivers and its counters. Plain
// structs, C++17-clean (the ns-3 module includes them through the client library).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/control_types.h"

namespace fastpath {

/// Bounds of a capture (the IPC validates them; fastpathd clamps the snap length to its
/// frame size).
inline constexpr uint32_t kCaptureDefaultSnaplen = 65535;
inline constexpr uint32_t kCaptureMinSnaplen = 14;
inline constexpr uint32_t kCaptureMaxSnaplen = 65535;
/// Captures open at once in one fastpathd.
inline constexpr size_t kMaxCaptures = 16;

struct CaptureSpec {
  /// A link's name, a segment's name, or the name of a port of `node` (interface or link
  /// port), tried in that order.
  std::string target;
  /// The node of a port target; empty = the default node (the request's node on the IPC).
  std::string node;
  /// Links only: one direction (frames sent into the link at end a, or at end b) or both.
  LinkDirection direction = LinkDirection::kBoth;
  uint32_t snaplen = kCaptureDefaultSnaplen;
  /// The capture ends after this many frames; 0 = until stopped.
  uint64_t count = 0;
  /// Only frames the classifier did not hand over as DATA (punts, CONTROL frames and, on
  /// link ports, its drops), with the verdict and reason it gave.
  bool exceptions_only = false;
};

/// Where a captured frame was seen.
enum class CaptureWhere : uint8_t { kRx = 1, kTx = 2 };

struct CapturedFrame {
  uint64_t time_ns = 0;   ///< CLOCK_REALTIME, ns
  uint32_t orig_len = 0;  ///< the frame's length on the wire (data may be shorter)
  PortId port = 0;
  CaptureWhere where = CaptureWhere::kRx;
  /// RX: the classifier's verdict and reason (fp_abi.h FP_VERDICT_*, FP_REASON_*);
  /// 0xff: none (TX, or a frame without metadata).
  uint8_t verdict = 0xff;
  uint8_t reason = 0xff;
  std::string data;       ///< the first snaplen bytes
};

/// What a capture copied and lost so far.
struct CaptureCounters {
  uint64_t captured = 0;  ///< copied by the workers
  uint64_t dropped = 0;   ///< not copied: the capture's ring was full (reader too slow)
  uint64_t delivered = 0; ///< handed to the reader
  bool done = false;      ///< the count is reached (or the capture ended)
};

/// What startCapture() set up.
struct CaptureInfo {
  uint64_t id = 0;
  uint32_t snaplen = 0;          ///< as applied (clamped to the daemon's frame size)
  std::vector<PortId> ports;     ///< the ports tapped
  std::string description;       ///< "link r1-r2 a-to-b", "port eth0 of node r1", ...
};

}  // namespace fastpath
