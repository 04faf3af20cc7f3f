// SPDX-License-Identifier: GPL-2.0-only
// FastPathConnection: its attributes, the setup calls made before the simulation runs and
// the thread-safe queue the simulator fills; the worker thread that drains it is in
// fast-path-connection-worker.cc.
#include "fast-path-connection.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/eventfd.h>
#include <unistd.h>

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

static void RaiseDescriptorLimit();

/// ns-3's FdNetDevice (a plain one a script adds; FastPathNetDevices are read by the
/// process's receive thread with epoll) reads each device in a thread of its own with
/// select(), which takes descriptors below FD_SETSIZE only: the connection's own
/// descriptors go above that range (when RLIMIT_NOFILE allows), leaving it to such devices.
static int
AboveSelectRange(int fd)
{
    if (fd < 0 || fd >= FD_SETSIZE)
    {
        return fd;
    }
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, FD_SETSIZE);
    if (high < 0)
    {
        return fd;
    }
    ::close(fd);
    return high;
}

FastPathConnection::FastPathConnection()
    : m_wakeFd((RaiseDescriptorLimit(), AboveSelectRange(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))))
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
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_mediumFailureCbs.clear(); // they hold the devices they report to
    }
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
FastPathConnection::OpenControlChannel(fastpath::PortId port,
                                       fastpath::ControlChannelTiming* timing)
{
    NS_ABORT_MSG_IF(!m_client || m_running,
                    "FastPathConnection::OpenControlChannel: connect first, and call it "
                    "before StartWorker()");
    fastpath::ControlChannelTiming asked = timing ? *timing : fastpath::ControlChannelTiming{};
    auto fd = m_client->openControlChannel(port, {}, asked);
    if (!fd.ok() && asked.timed && fd.error().code == -EPROTONOSUPPORT)
    {
        NS_LOG_WARN("port " << port << ": " << fd.error().message
                            << "; frames are delivered when they reach the simulator");
        asked = {};
        fd = m_client->openControlChannel(port, {}, asked);
    }
    if (!fd.ok())
    {
        return fd;
    }
    if (timing)
    {
        *timing = asked;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_timing[port] = asked;
    }
    return fd;
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
FastPathConnection::AddMediumFailureCallback(fastpath::PortId port, MediumFailureCallback cb)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_mediumFailureCbs[port] = std::move(cb);
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
