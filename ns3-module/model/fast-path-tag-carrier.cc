// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-tag-carrier.h"

#include "ns3/ipv4-header.h"
#include "ns3/ipv6-header.h"
#include "ns3/nix-vector.h"
#include "ns3/simulator.h"
#include "ns3/tag.h"

#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

constexpr uint16_t kIpv4 = 0x0800;
constexpr uint16_t kIpv6 = 0x86DD;
constexpr std::size_t kMaxRecords = 65536;
const Time kMaxAge = Seconds(10);

struct SavedTag
{
    std::shared_ptr<Tag> tag;
    uint32_t start;
    uint32_t end;
};

struct TagRecord
{
    std::vector<SavedTag> tags;
    Time at;
};

std::map<std::string, TagRecord> g_records;
std::deque<std::pair<Time, std::string>> g_order; //!< keys by age, for expiry

/// The fields that identify `packet` end to end (unchanged by forwarding), or "".
std::string
KeyOf(Ptr<const Packet> packet, uint16_t protocol)
{
    std::string key;
    auto put = [&key](const void* p, std::size_t n) {
        key.append(static_cast<const char*>(p), n);
    };
    if (protocol == kIpv4)
    {
        Ipv4Header h;
        if (packet->GetSize() < 20 || packet->PeekHeader(h) == 0)
        {
            return "";
        }
        uint32_t s = h.GetSource().Get(), d = h.GetDestination().Get();
        uint16_t id = h.GetIdentification(), frag = h.GetFragmentOffset();
        uint8_t proto = h.GetProtocol();
        put("4", 1);
        put(&s, 4), put(&d, 4), put(&id, 2), put(&frag, 2), put(&proto, 1);
        return key;
    }
    if (protocol == kIpv6)
    {
        Ipv6Header h;
        if (packet->GetSize() < 40 || packet->PeekHeader(h) == 0)
        {
            return "";
        }
        uint8_t buf[16];
        put("6", 1);
        h.GetSource().GetBytes(buf), put(buf, 16);
        h.GetDestination().GetBytes(buf), put(buf, 16);
        uint16_t len = h.GetPayloadLength();
        uint8_t next = h.GetNextHeader();
        put(&len, 2), put(&next, 1);
        // IPv6 has no identification: the payload's first bytes tell packets apart.
        const uint32_t n = std::min<uint32_t>(len, std::min<uint32_t>(packet->GetSize() - 40, 64));
        uint8_t head[40 + 64];
        packet->CopyData(head, 40 + n);
        put(head + 40, n);
        return key;
    }
    return "";
}

void
Expire(Time now)
{
    while (!g_order.empty() &&
           (g_order.size() > kMaxRecords || now - g_order.front().first > kMaxAge))
    {
        auto it = g_records.find(g_order.front().second);
        if (it != g_records.end() && it->second.at == g_order.front().first)
        {
            g_records.erase(it);
        }
        g_order.pop_front();
    }
}

} // namespace

void
FastPathTagCarrier::Record(Ptr<const Packet> packet, uint16_t protocol)
{
    ByteTagIterator it = packet->GetByteTagIterator();
    if (!it.HasNext())
    {
        return;
    }
    std::string key = KeyOf(packet, protocol);
    if (key.empty())
    {
        return;
    }
    TagRecord r;
    r.at = Simulator::Now();
    while (it.HasNext())
    {
        ByteTagIterator::Item item = it.Next();
        Callback<ObjectBase*> make = item.GetTypeId().GetConstructor();
        std::shared_ptr<Tag> tag(dynamic_cast<Tag*>(make()));
        if (!tag)
        {
            continue;
        }
        item.GetTag(*tag);
        r.tags.push_back({tag, item.GetStart(), item.GetEnd()});
    }
    Expire(r.at);
    g_records[key] = std::move(r);
    g_order.emplace_back(Simulator::Now(), key);
}

void
FastPathTagCarrier::Restore(Ptr<Packet> packet, uint16_t protocol)
{
    if ((protocol == kIpv4 || protocol == kIpv6) && !packet->GetNixVector())
    {
        // Nix-vector routing forwards a packet along the NixVector its source gave it and
        // asserts it has one. fastpathd may have forwarded the frame through nodes whose
        // ns-3 never saw it, so no vector would be right here: one of an epoch that never
        // matches makes Nix-vector routing build the path from this node on.
        Ptr<NixVector> stale = Create<NixVector>();
        stale->SetEpoch(std::numeric_limits<uint32_t>::max());
        packet->SetNixVector(stale);
    }
    if (g_records.empty())
    {
        return;
    }
    auto it = g_records.find(KeyOf(packet, protocol));
    if (it == g_records.end())
    {
        return;
    }
    for (const auto& t : it->second.tags)
    {
        packet->AddByteTag(*t.tag, t.start, t.end);
    }
}

std::size_t
FastPathTagCarrier::GetNRecords()
{
    return g_records.size();
}

} // namespace ns3
