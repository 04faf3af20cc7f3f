// SPDX-License-Identifier: GPL-2.0-only
// The batch of received frames the worker is processing, and when the model has the node
// send each of them on. Interface ports and link ports fill the same batch (a frame's
// descriptor, its classifier metadata, its arrival time); process() hands the frames on
// in batch order, and the egress dispatch asks for each one's arrival time through one
// cursor that is valid exactly while the batch is being processed.
#pragma once

#include <cstdint>
#include <span>

#include "fp_abi.h"
#include "table/forward.h"

namespace fastpath {

/// One received frame between receive()'s two passes (lookups first, then decisions).
struct RxFrame {
  uint64_t addr;
  const FwdEntry* route;  // lookupRoute's (or the batch's nextHops4) answer
  uint32_t len;
  fp_xdp_meta meta;
  /// Its arrival time at this node, which is when the model has the node send it on: a
  /// link port's model arrival (0: not emulated); an interface port's classifier stamp,
  /// when the frame reached XDP (0: no metadata).
  uint64_t sent;
};

/// The arrival times of the batch being processed, looked up by frame address. Frames are
/// handed on in batch order, so each lookup resumes where the previous one stopped: a
/// batch costs at most one step per frame, however many of its frames ask. Outside a
/// Scope (no batch, or a frame that is not one of the batch's) the answer is 0: now.
class BatchSendTimes {
 public:
  /// Opens the cursor on `frames` for the life of the scope: one process() call. Scopes
  /// nest as a stack: a batch processed while another one is open (none is today) has the
  /// cursor to itself and hands the outer batch its cursor back where it stood, so the
  /// outer batch's remaining frames keep their times instead of silently becoming "now".
  class Scope {
   public:
    Scope(BatchSendTimes& times, std::span<const RxFrame> frames)
        : times_(times), outer_frames_(times.frames_), outer_pos_(times.pos_) {
      times_.frames_ = frames;
      times_.pos_ = 0;
    }
    ~Scope() {
      times_.frames_ = outer_frames_;
      times_.pos_ = outer_pos_;
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BatchSendTimes& times_;
    std::span<const RxFrame> outer_frames_;  // empty: no batch was open
    size_t outer_pos_;
  };

  /// When the model has the node send the frame at `addr` on: its arrival time if it is
  /// one of the open batch's frames at or after the previous answer, else 0.
  uint64_t sentAt(uint64_t addr) {
    while (pos_ < frames_.size()) {
      const RxFrame& f = frames_[pos_++];
      if (f.addr == addr) return f.sent;
    }
    return 0;
  }

  /// Whether a batch is open (for checks in tests).
  bool open() const { return !frames_.empty(); }

 private:
  std::span<const RxFrame> frames_;
  size_t pos_ = 0;
};

}  // namespace fastpath
