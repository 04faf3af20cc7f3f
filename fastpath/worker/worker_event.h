// SPDX-License-Identifier: GPL-2.0-only
// An event a worker raises for the control thread (route miss, neighbour needed, a radio
// medium's unicast that exhausted its retries), passed on an SPSC ring.
#pragma once

#include "fastpath/control_types.h"

namespace fastpath {

struct WorkerEvent {
  FastPathEvent::Kind kind = FastPathEvent::Kind::kRouteMiss;
  PortId port = 0;
  IpAddress address;
  MacAddress mac;  ///< kMediumRetryLimit: the receiver that did not acknowledge
};

}  // namespace fastpath
