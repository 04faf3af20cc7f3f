// SPDX-License-Identifier: GPL-2.0-only
// What fastpathd says when a worker handed emulated frames on late: whose lateness it was.
// A frame a timed ns-3 client stamps with its model send time may already be past its
// arrival time when the worker takes it (the simulator runs behind real time); only a
// frame that was still ahead of its arrival time and left late is the worker's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fastpath {

/// What a worker counted since the last check (link_late_frames and link_late_on_arrival
/// grew by `late` and `on_arrival`), its lateness, and the host's clock offset as text.
struct LatenessReport {
  size_t worker = 0;
  uint64_t late = 0;        ///< frames handed on more than warn_ns after their arrival time
  uint64_t on_arrival = 0;  ///< of those, frames already that late when the worker took them
  uint64_t warn_ns = 0;
  uint64_t p99_ns = 0, max_ns = 0;
  std::string clock;
};

/// The warning's text, naming the worker, the sending ns-3 processes, or both.
std::string latenessWarning(const LatenessReport& r);

}  // namespace fastpath
