// SPDX-License-Identifier: GPL-2.0-only
// Client frames of several ports taken in one pass, put in the order the model sends them.
// The relay queues each channel's frames in its own send order (clampSentStamp), but
// channel after channel: ns-3 frames stamped 1 and 3 on one port and 2 on another reach the
// worker as 1, 3, 2. Where two ports feed one emulation (the members of a segment share its
// medium), admitting them so would put the frame sent at 2 behind the one sent at 3, which
// the simulator, running its events in time order, never does. Equal stamps keep the queue
// order, which is the order the simulator wrote them in (its events at one time run in
// scheduling order), as the relay reads each channel's frames in turn.
#pragma once

#include <cstdint>
#include <span>

#include "worker/control_channel.h"

namespace fastpath {

/// The time a client frame is sent at for ordering: its stamp, or (none: a channel without
/// timing, sent when the worker takes it) after every stamped frame of the batch.
inline uint64_t sendKey(const ControlTxFrame& f) { return f.sent ? f.sent : ~0ull; }

/// Puts `frames` in send order (sendKey; equal keys in their order in the span) and returns
/// whether anything moved. A batch already in order — any batch of a single channel — costs
/// one comparison per frame; otherwise an insertion sort of its runs (stable, in place, no
/// allocation), bounded by the batch size.
inline bool orderBySent(std::span<ControlTxFrame*> frames) {
  size_t first = 1;
  while (first < frames.size() && sendKey(*frames[first - 1]) <= sendKey(*frames[first])) ++first;
  if (first >= frames.size()) return false;
  for (size_t i = first; i < frames.size(); ++i) {
    ControlTxFrame* f = frames[i];
    const uint64_t k = sendKey(*f);
    size_t j = i;
    for (; j > 0 && sendKey(*frames[j - 1]) > k; --j) frames[j] = frames[j - 1];
    frames[j] = f;
  }
  return true;
}

}  // namespace fastpath
