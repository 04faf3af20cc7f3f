// SPDX-License-Identifier: GPL-2.0-only
// FastPathTagCarrier without fastpathd: IP packets recorded with a byte tag as a device sends
// them, then rebuilt from their bytes as a receiving device gets them (no tags, TTL or hop
// limit lowered and the checksum rewritten by forwarding, Ethernet padding behind), must
// get back their own tag: packets that differ anywhere never take each other's tags,
// identical packets in flight keep theirs in order, a broadcast's serves every node that
// receives it.
#include "ns3/core-module.h"
#include "ns3/fast-path-tag-carrier.h"
#include "ns3/flow-id-tag.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t kIpv4 = 0x0800;
constexpr uint16_t kIpv6 = 0x86DD;

/// A UDP-sized payload of `bytes`, all `fill` but its last byte, `last`.
Ptr<Packet>
Payload(uint32_t bytes, uint8_t fill, uint8_t last)
{
    std::vector<uint8_t> b(bytes, fill);
    b.back() = last;
    return Create<Packet>(b.data(), bytes);
}

/// An IPv4 packet from `src` to `dst` (identification `id`) around `payload`.
Ptr<Packet>
Ipv4Packet(const char* src, const char* dst, uint16_t id, Ptr<Packet> payload)
{
    Ipv4Header h;
    h.SetSource(Ipv4Address(src));
    h.SetDestination(Ipv4Address(dst));
    h.SetProtocol(17);
    h.SetIdentification(id);
    h.SetTtl(64);
    h.SetPayloadSize(payload->GetSize());
    h.EnableChecksum();
    payload->AddHeader(h);
    return payload;
}

/// An IPv6 packet from `src` to `dst` around `payload`.
Ptr<Packet>
Ipv6Packet(const char* src, const char* dst, Ptr<Packet> payload)
{
    Ipv6Header h;
    h.SetSource(Ipv6Address(src));
    h.SetDestination(Ipv6Address(dst));
    h.SetNextHeader(17);
    h.SetHopLimit(64);
    h.SetPayloadLength(payload->GetSize());
    payload->AddHeader(h);
    return payload;
}

/// `packet` tagged with flow id `tag`, recorded as a device sends it.
void
Send(Ptr<Packet> packet, uint16_t protocol, uint32_t tag)
{
    packet->AddByteTag(FlowIdTag(tag));
    FastPathTagCarrier::Record(packet, protocol);
}

/// `sent` as a device `hops` routers later receives it: its bytes only, the TTL or hop limit
/// lowered by `hops` (and the IPv4 checksum with it), padded to Ethernet's minimum frame.
Ptr<Packet>
Arrived(Ptr<const Packet> sent, uint16_t protocol, uint8_t hops = 1)
{
    std::vector<uint8_t> b(sent->GetSize());
    sent->CopyData(b.data(), b.size());
    if (protocol == kIpv4)
    {
        b[8] -= hops;
        b[10] = b[11] = 0;
        uint32_t sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            sum += uint32_t(b[i]) << 8 | b[i + 1];
        }
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        b[10] = uint8_t(~sum >> 8);
        b[11] = uint8_t(~sum);
    }
    else
    {
        b[7] -= hops;
    }
    b.resize(std::max<std::size_t>(b.size(), 46), 0);
    return Create<Packet>(b.data(), b.size());
}

/// The flow id `packet` carries after Restore at node `node`, `after` from now, or 0 for
/// none.
uint32_t
RestoredAt(Ptr<Packet> packet, uint16_t protocol, uint32_t node, Time after = Seconds(0))
{
    uint32_t out = 0;
    Simulator::ScheduleWithContext(node, after, [&]() {
        FastPathTagCarrier::Restore(packet, protocol);
        FlowIdTag t;
        out = packet->FindFirstMatchingByteTag(t) ? t.GetFlowId() : 0;
    });
    Simulator::Run();
    return out;
}

class TagCarrierTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

TEST_F(TagCarrierTest, AForwardedPacketGetsItsTagBack)
{
    Ptr<Packet> v4 = Ipv4Packet("198.18.1.1", "198.18.2.1", 7, Payload(8, 0, 1));
    Send(v4, kIpv4, 11);
    Ptr<Packet> v6 = Ipv6Packet("2001:2::1", "2001:2:0:1::1", Payload(100, 0, 1));
    Send(v6, kIpv6, 12);
    EXPECT_EQ(RestoredAt(Arrived(v4, kIpv4, 3), kIpv4, 1), 11u);
    EXPECT_EQ(RestoredAt(Arrived(v6, kIpv6, 3), kIpv6, 1), 12u);
    // Another packet (another identification) and a non-IP frame get none.
    Ptr<Packet> other = Ipv4Packet("198.18.1.1", "198.18.2.1", 8, Payload(8, 0, 1));
    EXPECT_EQ(RestoredAt(Arrived(other, kIpv4), kIpv4, 1), 0u);
    EXPECT_EQ(RestoredAt(Arrived(v4, kIpv4), 0x0806, 1), 0u);
}

TEST_F(TagCarrierTest, IPv6PacketsThatDifferOnlyFarIntoTheirPayloadKeepTheirOwnTags)
{
    // The same addresses, length and first 199 payload bytes: they differ in the last one.
    Ptr<Packet> first = Ipv6Packet("2001:2::2", "2001:2:0:1::2", Payload(200, 0xab, 1));
    Ptr<Packet> second = Ipv6Packet("2001:2::2", "2001:2:0:1::2", Payload(200, 0xab, 2));
    Send(first, kIpv6, 21);
    Send(second, kIpv6, 22);
    EXPECT_EQ(RestoredAt(Arrived(first, kIpv6), kIpv6, 1), 21u);
    EXPECT_EQ(RestoredAt(Arrived(second, kIpv6), kIpv6, 1), 22u);
}

TEST_F(TagCarrierTest, IdenticalPacketsInFlightKeepTheirTagsInOrder)
{
    // Byte for byte the same (an echo of one size without checksum): sent twice before the
    // first arrives; each arrival takes the next record; the node never takes one twice.
    Ptr<Packet> a = Ipv6Packet("2001:2::3", "2001:2:0:1::3", Payload(64, 0, 0));
    Ptr<Packet> b = Ipv6Packet("2001:2::3", "2001:2:0:1::3", Payload(64, 0, 0));
    Send(a, kIpv6, 31);
    Send(b, kIpv6, 32);
    EXPECT_EQ(RestoredAt(Arrived(a, kIpv6), kIpv6, 1), 31u);
    EXPECT_EQ(RestoredAt(Arrived(b, kIpv6), kIpv6, 1), 32u);
    EXPECT_EQ(RestoredAt(Arrived(b, kIpv6), kIpv6, 1), 0u) << "a third copy was never sent";
}

TEST_F(TagCarrierTest, OneRecordServesEveryNodeThatReceivesIt)
{
    Ptr<Packet> bcast = Ipv4Packet("198.18.3.1", "198.18.3.255", 9, Payload(20, 0, 0));
    Send(bcast, kIpv4, 41);
    for (uint32_t node : {1u, 2u, 3u})
    {
        EXPECT_EQ(RestoredAt(Arrived(bcast, kIpv4, 0), kIpv4, node), 41u) << "node " << node;
    }
}

TEST_F(TagCarrierTest, RecordsExpireAfterTenSeconds)
{
    Ptr<Packet> p = Ipv4Packet("198.18.4.1", "198.18.4.2", 10, Payload(20, 0, 0));
    Ptr<Packet> late = Arrived(p, kIpv4);
    Send(p, kIpv4, 51);
    const std::size_t held = FastPathTagCarrier::GetNRecords();
    EXPECT_GE(held, 1u);
    EXPECT_EQ(RestoredAt(late, kIpv4, 1, Seconds(10.5)), 0u);
    EXPECT_LT(FastPathTagCarrier::GetNRecords(), held);
}

} // namespace
