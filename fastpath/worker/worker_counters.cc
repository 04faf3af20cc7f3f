// SPDX-License-Identifier: GPL-2.0-only
#include "worker/worker_counters.h"

namespace fastpath {

const char* workerDropName(WorkerDrop drop) {
  switch (drop) {
    case WorkerDrop::kControlChannelFull: return "control_channel_full";
    case WorkerDrop::kNoControlClient: return "no_control_client";
    case WorkerDrop::kPuntPolicy: return "punt_policy_drop";
    case WorkerDrop::kTxRingFull: return "tx_ring_full";
    case WorkerDrop::kNoEgress: return "no_egress_socket";
    case WorkerDrop::kPortDown: return "port_down";
    case WorkerDrop::kCtrlTxNoFrame: return "ctrl_tx_no_frame";
    case WorkerDrop::kCtrlTxRingFull: return "ctrl_tx_ring_full";
    case WorkerDrop::kPuntRateLimited: return "punt_rate_limited";
    case WorkerDrop::kPuntHeadroom: return "punt_headroom";
    case WorkerDrop::kLinkDown: return "link_down";
    case WorkerDrop::kLinkQueueFull: return "link_queue_full";
    case WorkerDrop::kLinkClassifier: return "link_classifier";
    case WorkerDrop::kLinkPass: return "link_pass";
    case WorkerDrop::kLinkLoss: return "link_loss";
    case WorkerDrop::kLinkQueueDrop: return "link_queue_drop";
    case WorkerDrop::kLinkAqmDrop: return "link_aqm_drop";
    case WorkerDrop::kLinkBackoffDrop: return "link_backoff_drop";
    case WorkerDrop::kBridgeLocal: return "bridge_local";
    case WorkerDrop::kBridgeNoFrame: return "bridge_no_frame";
    case WorkerDrop::kBridgeLoop: return "bridge_loop";
    case WorkerDrop::kLinkEmulationFull: return "link_emulation_full";
    case WorkerDrop::kSegmentUnknownDst: return "segment_unknown_dst";
    case WorkerDrop::kSegmentNoFrame: return "segment_no_frame";
    case WorkerDrop::kMediumQueueFull: return "medium_queue_full";
    case WorkerDrop::kMediumRetryLimit: return "medium_retry_limit";
    case WorkerDrop::kMediumNoFrame: return "medium_no_frame";
    case WorkerDrop::kMediumUnknownDst: return "medium_unknown_dst";
    case WorkerDrop::kMediumExpired: return "medium_expired";
    case WorkerDrop::kMax: break;
  }
  return "unknown";
}

}  // namespace fastpath
