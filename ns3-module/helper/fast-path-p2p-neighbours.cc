// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-p2p-neighbours.h"

#include "ns3/callback.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/simulator.h"

namespace ns3
{

namespace
{

/// Static entries for every device of `channel` towards the others (an entry already there
/// is kept). The channel is in ChannelList for the whole run: a plain pointer, so that the
/// devices' callbacks do not keep it alive.
void
Populate(Channel* channel)
{
    NeighborCacheHelper().PopulateNeighborCache(Ptr<Channel>(channel));
}

} // namespace

void
KeepPointToPointNeighbours(Ptr<Channel> channel, const NetDeviceContainer& devices)
{
    Channel* raw = PeekPointer(channel);
    Simulator::ScheduleNow([raw, devices]() {
        for (auto it = devices.Begin(); it != devices.End(); ++it)
        {
            (*it)->AddLinkChangeCallback(MakeBoundCallback(&Populate, raw));
        }
        Populate(raw);
    });
}

} // namespace ns3
