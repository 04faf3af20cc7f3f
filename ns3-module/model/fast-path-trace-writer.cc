// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-trace-writer.h"

#include "ns3/arp-header.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/icmpv4.h"
#include "ns3/icmpv6-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv6-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-header.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathTraceWriter");

namespace
{

constexpr uint32_t kEthHeader = 14;
constexpr uint32_t kEthMinPayload = 46; // CsmaNetDevice pads shorter packets to this
constexpr uint16_t kIpv4 = 0x0800;
constexpr uint16_t kIpv6 = 0x86DD;
constexpr uint16_t kArp = 0x0806;

uint16_t
EtherType(const uint8_t* data)
{
    return uint16_t(data[12] << 8 | data[13]);
}

/// The length of the network-layer packet behind the Ethernet header (what its own header
/// says; the rest of the frame is padding), at most `avail`.
uint32_t
NetworkLength(uint16_t type, const uint8_t* l3, uint32_t avail)
{
    uint32_t want = avail;
    if (type == kIpv4 && avail >= 20 && (l3[0] >> 4) == 4)
    {
        want = uint32_t(l3[2] << 8 | l3[3]);
    }
    else if (type == kIpv6 && avail >= 40 && (l3[0] >> 4) == 6)
    {
        want = 40 + uint32_t(l3[4] << 8 | l3[5]);
    }
    else if (type == kArp && avail >= 28)
    {
        want = 28;
    }
    return want > avail || want == 0 ? avail : want;
}

/// Headers parsed off a packet, outermost first, each able to add itself to another one.
/// (Shared: Icmpv4Echo owns its data and has no copy.)
using Parsed = std::vector<std::function<void(Ptr<Packet>)>>;

template <typename H>
H&
Take(Ptr<Packet> from, Parsed& parsed)
{
    auto h = std::make_shared<H>();
    from->RemoveHeader(*h);
    parsed.push_back([h](Ptr<Packet> p) { p->AddHeader(*h); });
    return *h;
}

/// The UDP, TCP or ICMP header at the front of `p` (an IP payload; `proto`: the IP
/// protocol number), as ns-3's stacks add them.
void
ParseTransport(Ptr<Packet> p, uint8_t proto, bool v6, Parsed& parsed)
{
    uint8_t b[20];
    const uint32_t n = p->CopyData(b, sizeof(b));
    if (proto == 17 && n >= 8)
    {
        // Its length is written from the packet again when the header is added, as the
        // sending UdpL4Protocol writes it (the parsed value would be taken as a payload size).
        Take<UdpHeader>(p, parsed).ForcePayloadSize(0);
    }
    else if (proto == 6 && n >= 20 && (b[12] >> 4) * 4u >= 20 && (b[12] >> 4) * 4u <= p->GetSize())
    {
        Take<TcpHeader>(p, parsed);
    }
    else if (!v6 && proto == 1 && n >= 8 && (b[0] == 0 || b[0] == 8))
    {
        // Echo request and reply (ping): Icmpv4Header and Icmpv4Echo, as V4Ping adds them.
        Take<Icmpv4Header>(p, parsed);
        Take<Icmpv4Echo>(p, parsed);
    }
    else if (!v6 && proto == 1 && n >= 4)
    {
        Take<Icmpv4Header>(p, parsed);
    }
    else if (v6 && proto == 58 && n >= 8 && (b[0] == 128 || b[0] == 129))
    {
        Take<Icmpv6Echo>(p, parsed);
    }
    else if (v6 && proto == 58 && n >= 4)
    {
        Take<Icmpv6Header>(p, parsed);
    }
}

/// The network-layer packet `l3[0..len)` rebuilt with its headers added as ns-3 adds them
/// (so that it prints as ns-3 prints it), then its payload.
Ptr<Packet>
ParseNetwork(uint16_t type, const uint8_t* l3, uint32_t len)
{
    // Parsed from a scratch packet (a packet made of bytes has no header in its metadata:
    // removing one leaves its metadata wrong), then a fresh one is built.
    Ptr<Packet> scratch = Create<Packet>(l3, len);
    Parsed parsed;
    if (type == kIpv4 && len >= 20 && (l3[0] >> 4) == 4 && (l3[0] & 0xf) * 4u <= len)
    {
        const Ipv4Header& ip = Take<Ipv4Header>(scratch, parsed);
        if (ip.GetFragmentOffset() == 0)
        {
            ParseTransport(scratch, ip.GetProtocol(), false, parsed);
        }
    }
    else if (type == kIpv6 && len >= 40 && (l3[0] >> 4) == 6)
    {
        const Ipv6Header& ip = Take<Ipv6Header>(scratch, parsed);
        ParseTransport(scratch, ip.GetNextHeader(), true, parsed);
    }
    else if (type == kArp && len >= 28 && l3[4] == 6 && l3[5] == 4)
    {
        Take<ArpHeader>(scratch, parsed);
    }
    if (parsed.empty())
    {
        return scratch;
    }
    const uint32_t rest = scratch->GetSize();
    Ptr<Packet> p = Create<Packet>();
    if (rest > 0)
    {
        std::vector<uint8_t> bytes(rest);
        scratch->CopyData(bytes.data(), rest);
        p = Create<Packet>(bytes.data(), rest);
    }
    for (auto it = parsed.rbegin(); it != parsed.rend(); ++it)
    {
        (*it)(p);
    }
    return p;
}

/// `inner` framed as a CsmaNetDevice frames it: padding (the frame's own, then zeros up to
/// 46 bytes), Ethernet header from the frame, Ethernet trailer.
Ptr<Packet>
EthernetFramed(Ptr<Packet> inner, const uint8_t* data, uint32_t len, uint32_t l3len)
{
    const uint32_t own = len - kEthHeader - l3len;
    uint32_t pad = own;
    if (l3len + pad < kEthMinPayload)
    {
        pad = kEthMinPayload - l3len;
    }
    if (pad)
    {
        std::vector<uint8_t> bytes(pad, 0);
        std::copy(data + kEthHeader + l3len, data + len, bytes.begin());
        inner->AddAtEnd(Create<Packet>(bytes.data(), pad));
    }
    EthernetHeader eth(false);
    Mac48Address dst;
    Mac48Address src;
    dst.CopyFrom(data);
    src.CopyFrom(data + 6);
    eth.SetDestination(dst);
    eth.SetSource(src);
    eth.SetLengthType(EtherType(data));
    inner->AddHeader(eth);
    EthernetTrailer trailer;
    trailer.EnableFcs(Node::ChecksumEnabled());
    trailer.CalcFcs(inner);
    inner->AddTrailer(trailer);
    return inner;
}

Ptr<Packet>
Frame(FastPathTraceFraming framing, const uint8_t* data, uint32_t len, bool parse)
{
    if (len < kEthHeader)
    {
        return nullptr;
    }
    const uint16_t type = EtherType(data);
    const uint8_t* l3 = data + kEthHeader;
    const uint32_t l3len = NetworkLength(type, l3, len - kEthHeader);
    if (framing == FastPathTraceFraming::PPP)
    {
        if (type != kIpv4 && type != kIpv6)
        {
            return nullptr; // ARP and others: PointToPointNetDevice carries IP only
        }
        Ptr<Packet> p = parse ? ParseNetwork(type, l3, l3len) : Create<Packet>(l3, l3len);
        PppHeader ppp;
        ppp.SetProtocol(type == kIpv4 ? 0x0021 : 0x0057);
        p->AddHeader(ppp);
        return p;
    }
    Ptr<Packet> inner = parse ? ParseNetwork(type, l3, l3len) : Create<Packet>(l3, l3len);
    return EthernetFramed(inner, data, len, l3len);
}

} // namespace

FastPathTraceWriter::FastPathTraceWriter(Ptr<NetDevice> device, FastPathTraceFraming framing)
    : m_framing(framing)
{
    if (Mac48Address::IsMatchingType(device->GetAddress()))
    {
        m_address = Mac48Address::ConvertFrom(device->GetAddress());
    }
}

void
FastPathTraceWriter::AddPcap(Ptr<PcapFileWrapper> file, bool promiscuous)
{
    m_pcaps.push_back({file, promiscuous});
}

void
FastPathTraceWriter::AddAscii(Ptr<OutputStreamWrapper> stream, const std::string& context)
{
    m_asciis.push_back({stream, context});
}

Ptr<Packet>
FastPathTraceWriter::Framed(FastPathTraceFraming framing, const uint8_t* data, uint32_t len)
{
    return Frame(framing, data, len, false);
}

Ptr<Packet>
FastPathTraceWriter::Printable(FastPathTraceFraming framing, const uint8_t* data, uint32_t len)
{
    return Frame(framing, data, len, true);
}

bool
FastPathTraceWriter::ForThisHost(const uint8_t* data, uint32_t len) const
{
    if (len < 6 || (data[0] & 1))
    {
        return true; // broadcast and multicast are every host's
    }
    Mac48Address dst;
    dst.CopyFrom(data);
    return dst == m_address;
}

std::string
FastPathTraceWriter::TypeName() const
{
    return m_framing == FastPathTraceFraming::PPP ? "PointToPointNetDevice" : "CsmaNetDevice";
}

bool
FastPathTraceWriter::Write(Time time,
                           FastPathFrameDirection direction,
                           const uint8_t* data,
                           uint32_t len)
{
    Ptr<Packet> wire = Framed(m_framing, data, len);
    if (!wire)
    {
        ++m_unrepresentable;
        return false;
    }
    const bool tx = direction == FastPathFrameDirection::TX;
    // What the device's Sniffer and MacRx see of a received frame: on a shared medium only
    // the frames for this host; on a point-to-point link every frame.
    const bool forHost = tx || m_framing == FastPathTraceFraming::PPP || ForThisHost(data, len);
    for (const auto& pcap : m_pcaps)
    {
        if (pcap.promiscuous || forHost)
        {
            pcap.file->Write(time, wire);
        }
    }
    if (forHost && !m_asciis.empty())
    {
        Ptr<Packet> printable = Printable(m_framing, data, len);
        const std::string type = "/$ns3::" + TypeName() + "/";
        for (const auto& a : m_asciis)
        {
            std::ostream& os = *a.stream->GetStream();
            // As AsciiTraceHelper's default sinks print: kind, seconds, [context,] packet.
            auto line = [&](const char* kind, const char* source) {
                os << kind << " " << time.GetSeconds() << " ";
                if (!a.context.empty())
                {
                    os << a.context << type << source << " ";
                }
                os << *printable << std::endl;
            };
            if (tx)
            {
                line("+", "TxQueue/Enqueue");
                line("-", "TxQueue/Dequeue");
            }
            else
            {
                line("r", "MacRx");
            }
        }
    }
    ++m_written;
    return true;
}

FastPathTraceFraming
FastPathTraceWriter::GetFraming() const
{
    return m_framing;
}

uint64_t
FastPathTraceWriter::GetWritten() const
{
    return m_written;
}

uint64_t
FastPathTraceWriter::GetUnrepresentable() const
{
    return m_unrepresentable;
}

} // namespace ns3
