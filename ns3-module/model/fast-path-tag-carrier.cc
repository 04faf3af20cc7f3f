// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-tag-carrier.h"

#include "ns3/nix-vector.h"
#include "ns3/simulator.h"
#include "ns3/tag.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

constexpr uint16_t kIpv4 = 0x0800;
constexpr uint16_t kIpv6 = 0x86DD;
constexpr std::size_t kMaxRecords = 65536;
constexpr std::size_t kMaxKeyBytes = 32 << 20; //!< the keys' bytes held, at most
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
    std::vector<uint32_t> restoredBy; //!< the nodes (simulator contexts) that restored it
};

// A packet's key is every byte of it that forwarding leaves as its sender wrote it: the
// network-layer packet up to the length its header declares (Ethernet padding a receiver
// may see is not part of it), its TTL or hop limit and the IPv4 header checksum zeroed
// (every router rewrites them). It is the packet, not a sample of it, so two different
// packets never share a key: a key made of some of its fields (IPv6 has no identification)
// and its first payload bytes let packets that differ further on take each other's tags.
// Packets that do share a key are byte for byte the same, and nothing that crosses
// fastpathd tells them apart but their order. So a key holds its records in the order
// they were sent, and each node that receives the packet takes the oldest record of the
// key it has not taken yet: two identical packets in flight keep their own tags (in order),
// and a broadcast's one record serves every node that receives it.
std::unordered_map<std::string, std::deque<TagRecord>> g_records;
/// One entry a record, oldest first, for expiry: when it was made and its key (the map's
/// own string: its nodes do not move).
std::deque<std::pair<Time, const std::string*>> g_order;
std::size_t g_keyBytes = 0;

/// The key of `packet` (see above), or "" when it is not an IP packet.
std::string
KeyOf(Ptr<const Packet> packet, uint16_t protocol)
{
    uint8_t head[8];
    if (packet->CopyData(head, sizeof(head)) < sizeof(head))
    {
        return "";
    }
    uint32_t length = 0;
    uint32_t minimum = 0;
    if (protocol == kIpv4 && head[0] >> 4 == 4)
    {
        length = uint32_t(head[2]) << 8 | head[3]; // total length
        minimum = 20;
    }
    else if (protocol == kIpv6 && head[0] >> 4 == 6)
    {
        length = 40 + (uint32_t(head[4]) << 8 | head[5]); // header and payload length
        minimum = 40;
    }
    length = std::min(length, packet->GetSize());
    if (length < minimum)
    {
        return "";
    }
    std::string key(length, '\0');
    packet->CopyData(reinterpret_cast<uint8_t*>(key.data()), length);
    if (minimum == 20)
    {
        key[8] = 0;  // TTL
        key[10] = 0; // header checksum
        key[11] = 0;
    }
    else
    {
        key[7] = 0; // hop limit
    }
    return key;
}

/// Drops the records older than kMaxAge at `now`, and the oldest beyond the size limits.
void
Expire(Time now)
{
    while (!g_order.empty() && (g_order.size() > kMaxRecords || g_keyBytes > kMaxKeyBytes ||
                                now - g_order.front().first > kMaxAge))
    {
        // g_order and every key's records are in the order they were made: the first entry
        // is its key's first record.
        auto it = g_records.find(*g_order.front().second);
        g_keyBytes -= it->first.size();
        it->second.pop_front();
        if (it->second.empty())
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
    auto at = g_records.try_emplace(std::move(key)).first;
    at->second.push_back(std::move(r));
    g_order.emplace_back(Simulator::Now(), &at->first);
    g_keyBytes += at->first.size();
    Expire(Simulator::Now());
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
    Expire(Simulator::Now());
    auto it = g_records.find(KeyOf(packet, protocol));
    if (it == g_records.end())
    {
        return;
    }
    const uint32_t node = Simulator::GetContext();
    for (auto& record : it->second)
    {
        if (std::find(record.restoredBy.begin(), record.restoredBy.end(), node) !=
            record.restoredBy.end())
        {
            continue;
        }
        record.restoredBy.push_back(node);
        for (const auto& t : record.tags)
        {
            packet->AddByteTag(*t.tag, t.start, t.end);
        }
        return;
    }
}

std::size_t
FastPathTagCarrier::GetNRecords()
{
    return g_order.size();
}

} // namespace ns3
