// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/interface_port.h"

#include "daemon/daemon_internal.h"

namespace fastpath {

PortInfo InterfacePort::current() const {
  PortInfo p = info;
  if (gone) return p;  // stays down: its name may now be another interface
  if (auto now = readPortInfo(p.ifname, p.id); now) p.up = now->up;
  return p;
}

}  // namespace fastpath
