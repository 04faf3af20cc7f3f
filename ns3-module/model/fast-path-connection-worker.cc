// SPDX-License-Identifier: GPL-2.0-only
// FastPathConnection's worker thread: what it sends to fastpathd (updates, control rules,
// the replay after a reconnect) and what it reads back (port events). The setup calls and
// the thread-safe queue the simulator fills are in fast-path-connection.cc.
#include "fast-path-connection.h"

#include "ns3/log.h"

#include "fastpath/ctrl/client.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathConnectionWorker");

static bool
SameRule(const fastpath::ControlRule& a, const fastpath::ControlRule& b)
{
    return a.kind == b.kind && a.ethertype == b.ethertype && a.ip_proto == b.ip_proto &&
           a.port == b.port && a.address == b.address && a.pass_to_kernel == b.pass_to_kernel;
}

fastpath::Status
FastPathConnection::MergeRules(fastpath::ctrl::Client& client)
{
    if (m_rules.empty())
    {
        return {};
    }
    auto existing = client.controlRules();
    if (!existing.ok())
    {
        return existing.error();
    }
    std::vector<fastpath::ControlRule> merged = existing.value();
    bool changed = false;
    for (const auto& r : m_rules)
    {
        bool have = false;
        for (const auto& e : merged)
        {
            have |= SameRule(e, r);
        }
        if (!have)
        {
            merged.push_back(r);
            changed = true;
        }
    }
    return changed ? client.setControlRules(merged) : fastpath::Status{};
}


// Called by the client (on the worker thread) after it reconnected: fastpathd may have
// restarted with an empty table, and updates may have failed while it was away, so push
// the whole state the mirror's updates add up to.
fastpath::Status
FastPathConnection::Replay(fastpath::ctrl::Client& client)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_reconnects;
    }
    NS_LOG_WARN("reconnected to fastpathd at " << m_socketPath << ": replaying "
                                              << m_target.Size() << " routes, "
                                              << m_targetNeighbours.Size() << " neighbours");
    fastpath::Status s = MergeRules(client);
    if (!s.ok())
    {
        return s;
    }
    for (const auto& n : m_targetNeighbours.ToVector())
    {
        s = client.addNeighbour(n);
        if (!s.ok())
        {
            return s;
        }
    }
    s = client.replaceAllRoutes(m_target.ToVector());
    if (!s.ok())
    {
        return s;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_applied = m_target;
    }
    std::map<fastpath::PortId, int> fds;
    std::vector<fastpath::PortId> watched;
    std::map<fastpath::PortId, fastpath::ControlChannelTiming> timing;
    ReconnectCallback cb;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        watched = m_watched;
        timing = m_timing;
        cb = m_reconnectCb;
    }
    for (auto port : watched)
    {
        // The device frames its channel as first opened: the same timing again (a
        // fastpathd that does not confirm it is refused).
        auto fd = client.openControlChannel(port, {}, timing[port]);
        if (!fd.ok())
        {
            for (auto& kv : fds)
            {
                ::close(kv.second);
            }
            return fd.error();
        }
        fds[port] = fd.value();
    }
    if (cb)
    {
        cb(fds);
    }
    else
    {
        for (auto& kv : fds)
        {
            ::close(kv.second);
        }
    }
    // A port may have gone down or come back while we were away.
    return ReportPortStates(client);
}

fastpath::Status
FastPathConnection::ReportPortStates(fastpath::ctrl::Client& client)
{
    PortStateCallback cb;
    std::vector<fastpath::PortId> watched;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        cb = m_portStateCb;
        watched = m_watched;
    }
    if (!cb || !m_followPortState)
    {
        return {};
    }
    auto ports = client.ports();
    if (!ports.ok())
    {
        return ports.error();
    }
    for (const auto& p : ports.value())
    {
        if (std::find(watched.begin(), watched.end(), p.id) != watched.end())
        {
            cb(p.id, p.up);
        }
    }
    return {};
}

void
FastPathConnection::HandleEvents()
{
    PortStateCallback cb;
    std::vector<fastpath::PortId> watched;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        cb = m_portStateCb;
        watched = m_watched;
    }
    // Bounded, so that queued updates are not held back by a flood of route misses.
    for (int i = 0; i < 256; ++i)
    {
        // With auto_reconnect, a connection that is gone (EOF) is reconnected and replayed
        // here.
        auto e = m_client->nextEvent(0);
        if (!e.ok())
        {
            NS_LOG_WARN("fastpathd at " << m_socketPath << ": " << e.error().message);
            return;
        }
        if (!e.value())
        {
            return;
        }
        const fastpath::FastPathEvent& ev = *e.value();
        if (ev.kind == fastpath::FastPathEvent::Kind::kMediumRetryLimit)
        {
            MediumFailureCallback failed;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                auto it = m_mediumFailureCbs.find(ev.port);
                failed = it == m_mediumFailureCbs.end() ? nullptr : it->second;
            }
            if (failed)
            {
                failed(ev.port, ev.mac);
            }
            continue;
        }
        // Route misses and neighbour requests need no answer: the punted packet itself
        // reaches ns-3, which forwards it (resolve-on-miss) or resolves the neighbour.
        if (ev.kind != fastpath::FastPathEvent::Kind::kPortUp &&
            ev.kind != fastpath::FastPathEvent::Kind::kPortDown)
        {
            continue;
        }
        if (std::find(watched.begin(), watched.end(), ev.port) == watched.end())
        {
            continue;
        }
        bool up = ev.kind == fastpath::FastPathEvent::Kind::kPortUp;
        NS_LOG_INFO("fastpathd node " << m_client->boundNode() << ": port " << ev.port
                                      << (up ? " up" : " down"));
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            ++m_portEvents;
        }
        if (cb)
        {
            cb(ev.port, up);
        }
    }
}

void
FastPathConnection::Idle(int heartbeatMs)
{
    // Sleep until Submit() wakes us, fastpathd sends something (an event, or EOF when it
    // is gone) or the heartbeat is due. Events may already be buffered in the client (they
    // arrive between replies).
    pollfd fds[2] = {{m_wakeFd, POLLIN, 0}, {m_client->fd(), POLLIN, 0}};
    bool buffered = m_client->hasBufferedEvents();
    int n = buffered ? 1 : ::poll(fds, 2, heartbeatMs);
    uint64_t count;
    while (::read(m_wakeFd, &count, sizeof(count)) > 0)
    {
    }
    if (n < 0)
    {
        return; // EINTR
    }
    if (buffered || fds[1].revents != 0)
    {
        HandleEvents();
    }
    else if (n == 0)
    {
        // Idle: a cheap call notices a dead connection (and reconnects + replays).
        auto r = m_client->ports();
        if (!r.ok())
        {
            NS_LOG_WARN("fastpathd at " << m_socketPath << " unreachable: " << r.error().message);
            m_client->reconnect();
        }
    }
}

void
FastPathConnection::Apply(const FastPathUpdate& u)
{
    fastpath::Status s;
    // The target moves whatever happens to this update: a replay after a reconnect must
    // carry it even if sending it now fails.
    for (const auto& n : u.neighboursAdd)
    {
        m_targetNeighbours.Add(n);
    }
    for (const auto& n : u.neighboursRemove)
    {
        m_targetNeighbours.Remove(n);
    }
    m_target.Apply(u.routes);
    // Neighbours first, so a new route's next hop is resolvable when the route lands.
    for (const auto& n : u.neighboursAdd)
    {
        s = m_client->addNeighbour(n);
        if (!s.ok())
        {
            break;
        }
    }
    if (s.ok() && (!u.routes.add.empty() || !u.routes.remove.empty()))
    {
        fastpath::RouteBatch batch = u.routes;
        batch.ignore_missing = true; // a replay may already have removed them
        s = m_client->applyRoutes(batch);
        if (s.ok())
        {
            double us = std::chrono::duration<double, std::micro>(
                            std::chrono::steady_clock::now() - u.decided)
                            .count();
            std::lock_guard<std::mutex> lock(m_mutex);
            m_applied.Apply(batch);
            m_latenciesUs.push_back(us);
        }
    }
    if (s.ok())
    {
        for (const auto& n : u.neighboursRemove)
        {
            fastpath::Status d = m_client->deleteNeighbour(n.ip, n.port);
            if (!d.ok() && d.error().code != -ENOENT)
            {
                s = d;
                break;
            }
        }
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    if (s.ok())
    {
        ++m_appliedUpdates;
    }
    else
    {
        ++m_failedUpdates;
        NS_LOG_WARN("fastpathd rejected update " << u.sequence << ": " << s.error().message);
    }
}

void
FastPathConnection::Run()
{
    const int heartbeatMs = static_cast<int>(std::max<int64_t>(1, m_heartbeat.GetMilliSeconds()));
    bool follow;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        follow = m_followPortState && m_portStateCb;
    }
    if (follow)
    {
        // The node's events (a reconnect subscribes again), then the ports' current state:
        // a port may be down already, or have changed since Install() listed it.
        fastpath::Status s = m_client->subscribe();
        if (s.ok())
        {
            s = ReportPortStates(*m_client);
        }
        if (!s.ok())
        {
            NS_LOG_WARN("cannot follow the port state of fastpathd node "
                        << m_client->boundNode() << ": " << s.error().message);
        }
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop)
    {
        if (m_queue.empty() && m_ruleQueue.empty())
        {
            lock.unlock();
            Idle(heartbeatMs);
            lock.lock();
            continue;
        }
        m_busy = true;
        auto rules = std::move(m_ruleQueue);
        m_ruleQueue.clear();
        std::deque<FastPathUpdate> work;
        work.swap(m_queue);
        lock.unlock();
        for (auto& r : rules)
        {
            m_rules.insert(m_rules.end(), r.begin(), r.end());
        }
        if (!rules.empty())
        {
            fastpath::Status s = MergeRules(*m_client);
            if (!s.ok())
            {
                NS_LOG_WARN("control rules rejected: " << s.error().message);
            }
        }
        for (const auto& u : work)
        {
            Apply(u);
        }
        lock.lock();
        m_busy = false;
        if (m_queue.empty() && m_ruleQueue.empty())
        {
            m_idleCv.notify_all();
        }
    }
    m_idleCv.notify_all();
}


} // namespace ns3
