// SPDX-License-Identifier: GPL-2.0-only
// A bridge: a learning bridge (ns-3's BridgeNetDevice) over segment ports of one node. It
// owns its ports' membership (not the ports: they stay their segments') and one learning
// table and counters per worker (BridgeState), reached by the workers through their link
// tables (BridgeSlot).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/net_types.h"
#include "link/bridge_state.h"

namespace fastpath {

struct Bridge {
  std::string name;
  std::string node;
  std::vector<PortId> ports;  ///< bridge port i is segment port ports[i]
  uint64_t ageing_ns = 0;
  std::vector<std::unique_ptr<BridgeState>> states;  ///< per worker
};

}  // namespace fastpath
