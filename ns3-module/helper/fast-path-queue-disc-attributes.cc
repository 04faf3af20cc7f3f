// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-queue-disc-attributes.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"

namespace ns3
{

double
QueueDiscDouble(Ptr<QueueDisc> qd, const std::string& name)
{
    DoubleValue v;
    qd->GetAttribute(name, v);
    return v.Get();
}

bool
QueueDiscBool(Ptr<QueueDisc> qd, const std::string& name)
{
    BooleanValue v;
    qd->GetAttribute(name, v);
    return v.Get();
}

uint64_t
QueueDiscNanoseconds(Ptr<QueueDisc> qd, const std::string& name)
{
    TimeValue v;
    qd->GetAttribute(name, v);
    const Time t = v.Get();
    return t.IsNegative() ? 0 : uint64_t(t.GetNanoSeconds());
}

uint64_t
QueueDiscAqmTime(Ptr<QueueDisc> qd, const std::string& name)
{
    TimeValue v;
    qd->GetAttribute(name, v);
    const Time t = v.Get();
    if (t >= Seconds(60) || t.IsNegative())
    {
        return name == "CeThreshold" ? 0 : 60000000000ULL;
    }
    return uint64_t(t.GetNanoSeconds());
}

void
MirrorQueueDiscLimit(Ptr<QueueDisc> qd, fastpath::LinkParams& p)
{
    const QueueSize max = qd->GetMaxSize();
    const bool packets = max.GetUnit() == QueueSizeUnit::PACKETS;
    p.aqm_limit_packets = packets ? max.GetValue() : 0;
    p.aqm_limit_bytes = packets ? 0 : max.GetValue();
}

} // namespace ns3
