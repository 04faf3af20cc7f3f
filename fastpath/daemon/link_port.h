// SPDX-License-Identifier: GPL-2.0-only
// A link port: a node's port on an internal link (its peer is the other end) or on a
// segment (no peer: the segment fans out). It has a MAC, an MTU, the userspace twin of the
// XDP classifier, a control channel created on first use and one inbound queue per worker.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "link/link_ports.h"
#include "fastpath/userspace_classifier.h"
#include "worker/control_channel.h"

namespace fastpath {

class Node;

struct LinkPort {
  PortInfo info;
  PortId peer = 0;  ///< link ports: the other end; segment ports: itself
  Node* node = nullptr;
  LinkState* state = nullptr;  ///< the link's or the segment's
  std::unique_ptr<UserspaceClassifier> classifier;
  std::unique_ptr<ControlChannel> channel;  ///< created when a client first opens it
  std::vector<LinkQueue*> inbound;          ///< per worker: frames arriving here
  LinkParams params;                        ///< emulation of frames sent here (to the peer)
  std::vector<LinkShaper*> shapers;         ///< per worker, when `params` shape
  std::string segment;                      ///< segment ports: the segment (no peer)
  std::string medium;                       ///< radio medium ports: the medium (no peer)
  /// The port's own up/down (link and segment ports): an ns-3 interface set down at one
  /// end; the link's or segment's `state` is the medium's.
  std::unique_ptr<LinkState> port_state;

  /// Passes frames: its link or segment is up, and the port itself.
  bool passes() const {
    return state->up.load(std::memory_order_relaxed) &&
           (!port_state || port_state->up.load(std::memory_order_relaxed));
  }
};

}  // namespace fastpath
