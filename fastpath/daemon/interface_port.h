// SPDX-License-Identifier: GPL-2.0-only
// An interface port: a real interface (NIC, or a host's veth) of a node, with its XDP
// classifier, its control channel, the emulation of its egress (one shaper per worker)
// and, when it was attached at run time, its own tuning. Its AF_XDP sockets are the
// workers' (one per worker, on its UMEM). Destroyed in the order that is safe: tuning
// restored while XDP is still on, then XDP off, then the channel.
#pragma once

#include <memory>
#include <vector>

#include "daemon/port_tuning.h"
#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"
#include "link/link_shaper.h"
#include "worker/control_channel.h"

namespace fastpath {

class Node;

struct InterfacePort {
  PortInfo info;  ///< as read at attach time; `up` as last seen by checkLinks()
  Node* node = nullptr;
  /// The interface was deleted or replaced since: the port stays down for good (its
  /// sockets were bound to the old device).
  bool gone = false;
  /// Attached at run time (attachInterface, hosts): may be detached again.
  bool runtime = false;
  std::unique_ptr<ControlChannel> channel;
  std::unique_ptr<Classifier> classifier;
  std::vector<LinkShaper*> egress;      ///< per worker, when info.egress shapes
  std::unique_ptr<PortTuning> tuning;  ///< ports attached at run time: their own settings

  /// The port as it is now: the interface's up flag read again (unless it is gone).
  PortInfo current() const;
};

}  // namespace fastpath
