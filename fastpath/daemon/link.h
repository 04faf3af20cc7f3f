// SPDX-License-Identifier: GPL-2.0-only
// An internal link: two link ports (ends a and b, each in its node) and the state both
// share (up/down); each end also has its own (LinkPort::port_state). Each end holds the
// emulation of the direction it sends into.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "link/link_ports.h"

namespace fastpath {

struct Link {
  std::string name;
  PortId a = 0, b = 0;
  std::unique_ptr<LinkState> state;
};

}  // namespace fastpath
