// SPDX-License-Identifier: GPL-2.0-only
// Example support: plain ns-3 emulation devices (FdNetDevice on an AF_PACKET socket per
// interface), for baselines and for the routing peers of the demos. Needs CAP_NET_RAW.
#pragma once

#include "ns3/net-device-container.h"
#include "ns3/node.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace fastpathexamples
{

/// One FdNetDevice per interface, with the interface's MAC. With `onlyUdpPort` != 0 the
/// devices see only ARP and that UDP port (see OpenPacketSocket). Exits with a message
/// naming `program` when a socket cannot be opened.
NetDeviceContainer InstallEmulationDevices(const std::string& program,
                                           Ptr<Node> node,
                                           const std::vector<std::string>& interfaces,
                                           uint16_t onlyUdpPort = 0);

} // namespace fastpathexamples
} // namespace ns3
