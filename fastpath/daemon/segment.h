// SPDX-License-Identifier: GPL-2.0-only
// A segment: a shared medium (ns-3's CsmaChannel) joining one port of each attached node;
// it owns its state, its parameters and one shaper per worker.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "link/link_ports.h"

namespace fastpath {

/// A shared medium: its ports (link ports without a peer), one state, one emulation.
struct Segment {
  std::string name;
  std::vector<PortId> ports;
  std::unique_ptr<LinkState> state;
  LinkParams params;
  std::vector<LinkShaper*> shapers;  ///< per worker, when `params` shape
};

}  // namespace fastpath
