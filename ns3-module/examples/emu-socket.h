// SPDX-License-Identifier: GPL-2.0-only
// Example support (not part of the library): an AF_PACKET socket on a real interface for
// plain ns-3 emulation nodes. Debian's EmuFdNetDeviceHelper looks for its raw-socket
// creator at a path the package does not install, so the examples open the socket
// themselves (this needs CAP_NET_RAW; the fast-path router itself does not).
// Kept out of line: <linux/if_packet.h> defines PACKET_HOST & co., which clash with
// ns3::NetDevice::PacketType.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{
namespace fastpathexamples
{

/// Opens an AF_PACKET socket bound to `ifname` (promiscuous, own transmissions ignored)
/// and reads the interface's MAC. With `onlyUdpPort` != 0, a socket filter keeps only ARP
/// and IPv4 UDP to that port (the routing protocol): a peer sharing its interface with
/// the host kernel then never spends time on the host's data frames. Returns the fd, or
/// -1 with `why` set.
int OpenPacketSocket(const std::string& ifname,
                     std::array<uint8_t, 6>& mac,
                     std::string& why,
                     uint16_t onlyUdpPort = 0);

} // namespace fastpathexamples
} // namespace ns3
