// SPDX-License-Identifier: GPL-2.0-only
// The worker's capture taps: the capture table switched to at the start of a pass, and
// frames copied into the rings of the taps on their port (a copy that finds its ring full
// is a counted drop of the capture, never a wait). Reached only when a table with taps is
// in use: forwarding without captures pays the one branch on caps_ per batch.
#include "worker/worker.h"

namespace fastpath {

void Worker::switchCaptures() {
  const CaptureTable* t = caps_pub_.newer(caps_version_);
  if (!t) return;
  caps_ = t->taps.empty() ? nullptr : t;
  caps_version_ = t->version;
  caps_pub_.serve(t->version);
}

void Worker::tapFrame(PortId port, uint8_t point, uint64_t addr, uint32_t len, uint8_t verdict,
                      uint8_t reason, uint64_t at) {
  for (const CaptureTap& tap : caps_->taps) {
    if (tap.port != port || !(tap.points & point)) continue;
    // Exceptions: what the classifier did not hand over as DATA (punts, CONTROL frames,
    // on link ports its drops), with the verdict and reason it gave.
    if (tap.exceptions_only && (verdict == 0xff || verdict == FP_VERDICT_DATA)) continue;
    CaptureRecord r;
    r.mono_ns = at ? at : now_ns_;
    r.orig_len = len;
    r.port = port;
    r.point = point;
    r.verdict = verdict;
    r.reason = reason;
    tap.ring->offer(r, umem_->data(addr));
  }
}

void Worker::tapRxBatch(PortId p, uint32_t n) {
  const RxFrame* rx = rx_batch_.data();
  for (uint32_t i = 0; i < n; ++i) {
    const bool meta = rx[i].meta.magic == FP_META_MAGIC;
    tapFrame(p, kCaptureRx, rx[i].addr, rx[i].len, meta ? rx[i].meta.verdict : 0xff,
             meta ? rx[i].meta.reason : 0xff);
  }
}

}  // namespace fastpath
