// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-connection.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathConnection");
NS_OBJECT_ENSURE_REGISTERED(FastPathConnection);

TypeId
FastPathConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FastPathConnection")
            .SetParent<Object>()
            .SetGroupName("FastPath")
            .AddConstructor<FastPathConnection>()
            .AddAttribute("SocketPath",
                          "fastpathd's control socket.",
                          StringValue(fastpath::ctrl::kDefaultSocketPath),
                          MakeStringAccessor(&FastPathConnection::m_socketPath),
                          MakeStringChecker())
            .AddAttribute("NodeName",
                          "Name sent to fastpathd in Hello (shown in its log); the owner "
                          "of the route lease (RouteGracePeriod).",
                          StringValue("ns-3"),
                          MakeStringAccessor(&FastPathConnection::m_nodeName),
                          MakeStringChecker())
            .AddAttribute("FastPathNode",
                          "The fastpathd node to attach to: a forwarding context of a "
                          "fastpathd that holds many (e.g. from its --topology file), with "
                          "its own ports (interfaces and ends of internal links), routes, "
                          "neighbours, control rules and events. Empty = fastpathd's "
                          "default node (its --port interfaces).",
                          StringValue(""),
                          MakeStringAccessor(&FastPathConnection::m_fastPathNode),
                          MakeStringChecker())
            .AddAttribute("FollowPortState",
                          "Subscribe to the node's events and report the state of the "
                          "watched ports (port down/up: an interface or an internal "
                          "link set down or up) to the port state callback; the helper "
                          "then takes the ns-3 interface down and up with the port.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathConnection::m_followPortState),
                          MakeBooleanChecker())
            .AddAttribute("HeartbeatInterval",
                          "When idle, check the connection this often (a restarted "
                          "fastpathd is noticed within this bound).",
                          TimeValue(MilliSeconds(250)),
                          MakeTimeAccessor(&FastPathConnection::m_heartbeat),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("ReconnectAttempts",
                          "Connection attempts (exponential backoff) per reconnect.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&FastPathConnection::m_reconnectAttempts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RouteGracePeriod",
                          "Route lease sent in Hello: when this simulation exits (its "
                          "connection closes), fastpathd keeps forwarding with the routes "
                          "and neighbours this node installed for this long, then withdraws "
                          "them. Reconnecting within it (a restarted simulation with the "
                          "same NodeName) keeps them. 0 = they stay forever.",
                          TimeValue(Seconds(5)),
                          MakeTimeAccessor(&FastPathConnection::m_routeGracePeriod),
                          MakeTimeChecker(Seconds(0), Seconds(3600)));
    return tid;
}

FastPathConnection::FastPathConnection()
    : m_wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    NS_ABORT_MSG_IF(m_wakeFd < 0, "FastPathConnection: eventfd failed: " << std::strerror(errno));
}

FastPathConnection::~FastPathConnection()
{
    StopWorker();
    ::close(m_wakeFd);
}

void
FastPathConnection::DoDispose()
{
    StopWorker();
    m_client.reset();
    Object::DoDispose();
}

/// A script attaching many nodes holds one connection per node and one descriptor per
/// port (its control channel): the soft RLIMIT_NOFILE (often 1024) is raised to the hard
/// limit once, as fastpathd does for itself.
static void
RaiseDescriptorLimit()
{
    static bool done = false;
    if (done)
    {
        return;
    }
    done = true;
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max)
    {
        rlimit raised = rl;
        raised.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
        {
            NS_LOG_INFO("RLIMIT_NOFILE raised from " << rl.rlim_cur << " to " << rl.rlim_max);
        }
    }
}

fastpath::Status
FastPathConnection::Connect()
{
    RaiseDescriptorLimit();
    fastpath::ctrl::ClientOptions opt;
    opt.node_name = m_nodeName;
    opt.node = m_fastPathNode;
    opt.client_name = "ns-3";
    opt.route_grace_period_ms = static_cast<uint32_t>(m_routeGracePeriod.GetMilliSeconds());
    opt.reply_timeout_ms = 10000;
    opt.auto_reconnect = true;
    opt.reconnect_attempts = static_cast<int>(m_reconnectAttempts);
    opt.on_reconnect = [this](fastpath::ctrl::Client& c) { return Replay(c); };
    auto r = fastpath::ctrl::Client::connect(m_socketPath, opt);
    if (!r.ok() && r.error().code == -ENOENT && !m_fastPathNode.empty())
    {
        return fastpath::makeError(r.error().code,
                                   "cannot attach to fastpathd node '" + m_fastPathNode +
                                       "' at " + m_socketPath + ": " + r.error().message +
                                       "; declare the node in fastpathd's --topology file "
                                       "(or create it with fpctl), or fix ns3::"
                                       "FastPathConnection::FastPathNode");
    }
    if (!r.ok())
    {
        return fastpath::makeError(r.error().code,
                                   "cannot reach fastpathd at " + m_socketPath + ": " +
                                       r.error().message +
                                       "; start fastpathd or set ns3::FastPathConnection::"
                                       "SocketPath");
    }
    m_client = std::move(r.value());
    NS_LOG_INFO("connected to " << m_client->serverInfo().daemon_name << " at " << m_socketPath
                                << ", node " << m_client->boundNode());
    return {};
}

std::string
FastPathConnection::GetFastPathNode() const
{
    return m_fastPathNode;
}

bool
FastPathConnection::IsConnected() const
{
    return m_client != nullptr;
}

fastpath::Result<std::vector<fastpath::PortInfo>>
FastPathConnection::Ports()
{
    NS_ABORT_MSG_IF(!m_client || m_running, "FastPathConnection::Ports: connect first, and "
                                            "call it before StartWorker()");
    return m_client->ports();
}

fastpath::Result<fastpath::PortInfo>
FastPathConnection::AttachInterface(const std::string& ifname)
{
    NS_ABORT_MSG_IF(!m_client || m_running,
                    "FastPathConnection::AttachInterface: connect first, and call it before "
                    "StartWorker()");
    return m_client->attachInterface(
        m_fastPathNode.empty() ? std::string(fastpath::kDefaultNodeName) : m_fastPathNode,
        ifname);
}

fastpath::Result<int>
FastPathConnection::OpenControlChannel(fastpath::PortId port)
{
    NS_ABORT_MSG_IF(!m_client || m_running,
                    "FastPathConnection::OpenControlChannel: connect first, and call it "
                    "before StartWorker()");
    return m_client->openControlChannel(port);
}

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

fastpath::Status
FastPathConnection::AddControlRules(const std::vector<fastpath::ControlRule>& rules)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_running)
    {
        m_rules.insert(m_rules.end(), rules.begin(), rules.end());
        lock.unlock();
        return m_client ? MergeRules(*m_client) : fastpath::Status{};
    }
    m_ruleQueue.push_back(rules);
    lock.unlock();
    Wake();
    return {};
}

void
FastPathConnection::Wake()
{
    uint64_t one = 1;
    // EAGAIN: the counter is already non-zero, the worker wakes anyway.
    (void)!::write(m_wakeFd, &one, sizeof(one));
}

void
FastPathConnection::SetReconnectCallback(ReconnectCallback cb)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_reconnectCb = std::move(cb);
}

void
FastPathConnection::WatchPort(fastpath::PortId port)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_watched.push_back(port);
}

void
FastPathConnection::SetPortStateCallback(PortStateCallback cb)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_portStateCb = std::move(cb);
}

void
FastPathConnection::StartWorker()
{
    NS_ABORT_MSG_IF(!m_client, "FastPathConnection::StartWorker: not connected");
    if (m_running)
    {
        return;
    }
    m_running = true;
    m_stop = false;
    m_worker = std::thread(&FastPathConnection::Run, this);
}

void
FastPathConnection::StopWorker()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_running)
        {
            return;
        }
        m_stop = true;
    }
    Wake();
    if (m_worker.joinable())
    {
        m_worker.join();
    }
    m_running = false;
}

void
FastPathConnection::Submit(const FastPathUpdate& update)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(update);
    }
    Wake();
}

bool
FastPathConnection::Flush(std::chrono::milliseconds timeout)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_running)
    {
        return m_queue.empty();
    }
    return m_idleCv.wait_for(lock, timeout, [this] {
        return m_queue.empty() && m_ruleQueue.empty() && !m_busy;
    });
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
    ReconnectCallback cb;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        watched = m_watched;
        cb = m_reconnectCb;
    }
    for (auto port : watched)
    {
        auto fd = client.openControlChannel(port);
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

std::vector<double>
FastPathConnection::GetRouteLatenciesUs() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_latenciesUs;
}

uint64_t
FastPathConnection::GetAppliedUpdates() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_appliedUpdates;
}

uint64_t
FastPathConnection::GetFailedUpdates() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_failedUpdates;
}

uint64_t
FastPathConnection::GetReconnects() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_reconnects;
}

uint64_t
FastPathConnection::GetPortEvents() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_portEvents;
}

FastPathTable
FastPathConnection::GetAppliedRoutes() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_applied;
}

} // namespace ns3
