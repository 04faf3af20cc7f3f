// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-medium-follower.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathMediumFollower");

FastPathMediumFollower::FastPathMediumFollower(const FastPathMediumPlan& plan,
                                               const FastPathPairTable& table,
                                               Time sampleInterval,
                                               Sink sink)
    : m_plan(plan),
      m_table(table),
      m_sampleInterval(sampleInterval),
      m_sink(std::move(sink))
{
}

FastPathMediumFollower::~FastPathMediumFollower()
{
    Stop();
}

void
FastPathMediumFollower::Start()
{
    if (m_started)
    {
        return;
    }
    m_started = true;
    const uint32_t n = m_plan.GetN();
    m_seen.resize(n);
    m_moved.assign(n, false);
    for (uint32_t i = 0; i < n; ++i)
    {
        m_seen[i] = m_plan.GetMobility(i)->GetPosition();
        // The context names the member: one member function serves them all and can be
        // disconnected again (a lambda could not be compared to disconnect it).
        m_plan.GetMobility(i)->TraceConnect(
            "CourseChange",
            std::to_string(i),
            MakeCallback(&FastPathMediumFollower::CourseChanged, this));
    }
    m_connected = true;
    Hand(m_table.Update(m_plan.ComputeAll()));
    if (m_sampleInterval.IsStrictlyPositive())
    {
        m_sampleEvent = Simulator::Schedule(m_sampleInterval, &FastPathMediumFollower::Sample, this);
    }
}

void
FastPathMediumFollower::Stop()
{
    if (m_connected)
    {
        for (uint32_t i = 0; i < m_plan.GetN(); ++i)
        {
            m_plan.GetMobility(i)->TraceDisconnect(
                "CourseChange",
                std::to_string(i),
                MakeCallback(&FastPathMediumFollower::CourseChanged, this));
        }
        m_connected = false;
    }
    m_sampleEvent.Cancel();
    m_flushEvent.Cancel();
}

void
FastPathMediumFollower::CourseChanged(std::string member, Ptr<const MobilityModel> model)
{
    m_moved.at(std::stoul(member)) = true;
    // Every change of this instant (a script moving several nodes at once) in one batch.
    if (!m_flushEvent.IsRunning())
    {
        m_flushEvent = Simulator::ScheduleNow(&FastPathMediumFollower::Flush, this);
    }
}

void
FastPathMediumFollower::Sample()
{
    for (uint32_t i = 0; i < m_plan.GetN(); ++i)
    {
        const Vector now = m_plan.GetMobility(i)->GetPosition();
        if (now.x != m_seen[i].x || now.y != m_seen[i].y || now.z != m_seen[i].z)
        {
            m_moved[i] = true;
        }
    }
    Flush();
    m_sampleEvent = Simulator::Schedule(m_sampleInterval, &FastPathMediumFollower::Sample, this);
}

void
FastPathMediumFollower::Flush()
{
    m_flushEvent.Cancel();
    std::vector<uint32_t> moved;
    for (uint32_t i = 0; i < m_plan.GetN(); ++i)
    {
        if (m_moved[i])
        {
            moved.push_back(i);
            m_moved[i] = false;
            m_seen[i] = m_plan.GetMobility(i)->GetPosition();
        }
    }
    if (moved.empty())
    {
        return;
    }
    Hand(m_table.Update(m_plan.ComputeOf(moved), moved));
}

void
FastPathMediumFollower::Hand(const std::vector<FastPathPairUpdate>& batch)
{
    if (batch.empty())
    {
        return;
    }
    ++m_batches;
    m_updates += batch.size();
    NS_LOG_DEBUG("batch " << m_batches << ": " << batch.size() << " pairs at "
                          << Simulator::Now().As(Time::S));
    m_sink(batch);
}

const FastPathMediumPlan&
FastPathMediumFollower::GetPlan() const
{
    return m_plan;
}

const FastPathPairTable&
FastPathMediumFollower::GetTable() const
{
    return m_table;
}

uint64_t
FastPathMediumFollower::GetBatches() const
{
    return m_batches;
}

uint64_t
FastPathMediumFollower::GetUpdates() const
{
    return m_updates;
}

} // namespace ns3
