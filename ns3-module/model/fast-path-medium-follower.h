// SPDX-License-Identifier: GPL-2.0-only
// FastPathMediumFollower: follows the MobilityModels of a medium's members and hands the
// pairs whose quality changed to a sink, as batches.
#pragma once

#include "fast-path-medium-plan.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/vector.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Keeps a medium's pairs current as its members move.
 *
 * Start() hands every pair in range as the first batch. A member has moved when its
 * MobilityModel fires CourseChange (handled at once, in the same simulation instant, one
 * batch for every change of that instant) or when its position differs from the last one
 * seen at a periodic sample (every `sampleInterval`: most models, e.g. RandomWaypoint or
 * ConstantVelocity, fire CourseChange only when the velocity changes, not as the node
 * moves). The pairs of moved members are computed again and those that changed beyond the
 * table's thresholds are handed to the sink in one batch, ordered by (tx, rx); a batch is
 * never empty. Nothing is handed for members that did not move: a loss model that draws
 * (fading) draws again only for pairs with a moved end.
 */
class FastPathMediumFollower
{
  public:
    using Sink = std::function<void(const std::vector<FastPathPairUpdate>&)>;

    FastPathMediumFollower(const FastPathMediumPlan& plan,
                           const FastPathPairTable& table,
                           Time sampleInterval,
                           Sink sink);
    ~FastPathMediumFollower();
    FastPathMediumFollower(const FastPathMediumFollower&) = delete;
    FastPathMediumFollower& operator=(const FastPathMediumFollower&) = delete;

    /// Hands the whole table, connects to CourseChange, starts the periodic sampling.
    void Start();
    /// Disconnects and stops sampling (also done by the destructor).
    void Stop();

    const FastPathMediumPlan& GetPlan() const;
    const FastPathPairTable& GetTable() const;
    uint64_t GetBatches() const;
    uint64_t GetUpdates() const;

  private:
    void CourseChanged(std::string member, Ptr<const MobilityModel> model);
    void Sample();
    void Flush();
    void Hand(const std::vector<FastPathPairUpdate>& batch);

    FastPathMediumPlan m_plan;
    FastPathPairTable m_table;
    Time m_sampleInterval;
    Sink m_sink;
    std::vector<Vector> m_seen;           //!< each member's position when last computed
    std::vector<bool> m_moved;            //!< moved since the last flush
    bool m_connected = false;
    EventId m_sampleEvent;
    EventId m_flushEvent;
    bool m_started = false;
    uint64_t m_batches = 0;
    uint64_t m_updates = 0;
};

} // namespace ns3
