// SPDX-License-Identifier: GPL-2.0-only
// A radio medium: an ad hoc Wi-Fi channel joining one port of each member node; it owns
// its state, its PHY and one model of the channel per worker (medium/radio_medium.h).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "link/link_ports.h"
#include "medium/radio_medium.h"

namespace fastpath {

struct Medium {
  std::string name;
  std::vector<PortId> ports;       ///< member i's port
  std::vector<std::string> nodes;  ///< member i's node
  std::unique_ptr<LinkState> state;
  MediumPhy phy;
  /// Per worker: each worker decides for the frames it handles (one worker: one channel).
  std::vector<std::unique_ptr<medium::RadioMedium>> models;
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
};

}  // namespace fastpath
