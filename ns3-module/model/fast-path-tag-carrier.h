// SPDX-License-Identifier: GPL-2.0-only
// FastPathTagCarrier: carries a packet's byte tags across fastpathd, from the emulated
// device that sends it to the emulated device that receives it, so that what ns-3 keeps in
// byte tags (FlowMonitor's FlowIdTag above all) works emulated as simulated.
#pragma once

#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Byte tags of the IP packets emulated devices send, restored where they arrive.
 *
 * Simulated, a packet object travels from device to device and keeps its byte tags;
 * FlowMonitor's probes find the flow and packet ids they added at the first transmission in
 * a FlowIdTag when the packet is forwarded and received. Emulated, the frame crosses
 * fastpathd as bytes and arrives at another device of the same process without them: every
 * packet would be sent and none received. Record() keeps the byte tags of an IPv4 or IPv6
 * packet a device sends, under the packet's bytes that forwarding leaves unchanged (all of
 * them but the TTL or hop limit and the IPv4 header checksum); Restore() puts them back on
 * that packet where a device receives it. Packets that are byte for byte the same are told
 * apart by their order: each receiving node takes the oldest of their records it has not
 * taken yet. Packets without byte tags cost a check; records live 10 s of simulation time
 * (at most 65536 of them, 32 MiB of packet bytes), long after any emulated delay.
 *
 * A received IP packet also gets what Nix-vector routing needs to forward it from the
 * receiving node on (a NixVector it rebuilds), as a simulated packet carries its source's.
 */
class FastPathTagCarrier
{
  public:
    /// `packet` (a network-layer packet of EtherType `protocol`) leaves an emulated device.
    static void Record(Ptr<const Packet> packet, uint16_t protocol);
    /// `packet` arrived at an emulated device of the node of the simulator's current context:
    /// adds the byte tags it left with, if any, and an out-of-date NixVector if it has none.
    static void Restore(Ptr<Packet> packet, uint16_t protocol);
    /// Records held now (for tests).
    static std::size_t GetNRecords();
};

} // namespace ns3
