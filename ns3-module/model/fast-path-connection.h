// SPDX-License-Identifier: GPL-2.0-only
// The module's link to fastpathd: one ctrl-bridge client owned by a worker thread, so the
// simulator never blocks on IPC.
#pragma once

#include "fast-path-route-mirror.h"
#include "fast-path-table.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include "fastpath/control_timing.h"
#include "fastpath/control_types.h"
#include "fastpath/result.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fastpath::ctrl
{
class Client;
}

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A connection to fastpathd's control socket.
 *
 * Setup calls (Connect, Ports, OpenControlChannel) are synchronous and made before the
 * simulation runs. Once StartWorker() is called, route mirror updates are queued by
 * Submit() (from the simulator thread) and applied in order by a worker thread; each
 * update is acknowledged by fastpathd before the next one is sent. The worker keeps the
 * state all updates add up to (sent or not: an update can fail while fastpathd is
 * away); after a reconnect (fastpathd restarted) it replays that whole state,
 * re-installs the control rules and reopens the control-frame channels, handing the new
 * descriptors to the reconnect callback.
 *
 * The connection is bound to one fastpathd node (FastPathNode; empty = the default node):
 * ports, routes, neighbours, control rules and events are that node's. With
 * FollowPortState the worker also subscribes to the node's events and hands the state of
 * every watched port to the port state callback: on each port up/down event (an interface
 * set down or up, an internal link set down or up) and after each (re)connect, since
 * events may have been missed meanwhile.
 */
class FastPathConnection : public Object
{
  public:
    static TypeId GetTypeId();
    FastPathConnection();
    ~FastPathConnection() override;

    /// Connects and says Hello. Errors say what failed and what to do.
    fastpath::Status Connect();
    bool IsConnected() const;
    fastpath::Result<std::vector<fastpath::PortInfo>> Ports();
    /// Makes interface `ifname` of fastpathd's namespace a port of this connection's
    /// fastpathd node (protocol 1.5; the process must be an operator of the socket).
    /// Before StartWorker().
    fastpath::Result<fastpath::PortInfo> AttachInterface(const std::string& ifname);
    /// fastpathd's control socket (the SocketPath attribute).
    const std::string& GetSocketPath() const
    {
        return m_socketPath;
    }
    /// Opens the control channel of `port`. `timing`: asked
    /// for; on return, what the channel is (a fastpathd that does not time channels opens
    /// it untimed). A reconnection opens it again with the same timing.
    fastpath::Result<int> OpenControlChannel(fastpath::PortId port,
                                             fastpath::ControlChannelTiming* timing = nullptr);
    /// Adds `rules` to fastpathd's control rule set (existing rules are kept). Synchronous
    /// before StartWorker(), queued after.
    fastpath::Status AddControlRules(const std::vector<fastpath::ControlRule>& rules);

    /// Starts the worker thread; from now on the client belongs to it.
    void StartWorker();
    void StopWorker();
    /// Queues a mirror update (thread-safe).
    void Submit(const FastPathUpdate& update);
    /// Waits until every queued update is acknowledged (or `timeout` passes).
    bool Flush(std::chrono::milliseconds timeout);

    /// Called on the worker thread after a reconnect with port -> new control-channel fd.
    using ReconnectCallback = std::function<void(const std::map<fastpath::PortId, int>&)>;
    void SetReconnectCallback(ReconnectCallback cb);
    /// Ports whose control channel is reopened after a reconnect, and whose state is
    /// reported to the port state callback.
    void WatchPort(fastpath::PortId port);
    /// Called on the worker thread with (port, up) for the watched ports (FollowPortState).
    using PortStateCallback = std::function<void(fastpath::PortId, bool)>;
    void SetPortStateCallback(PortStateCallback cb);
    /// Called on the worker thread with (port, receiver) when a unicast frame a radio
    /// medium port of this node sent was dropped after the station's retries.
    using MediumFailureCallback =
        std::function<void(fastpath::PortId, const fastpath::MacAddress&)>;
    /// Adds `cb` for the failures of `port` (FastPathWifiHelper: the MAC's trace sources).
    void AddMediumFailureCallback(fastpath::PortId port, MediumFailureCallback cb);
    /// The fastpathd node this connection is bound to ("" = the default node).
    std::string GetFastPathNode() const;

    /// Decision-to-acknowledged latencies of applied updates carrying route changes, in
    /// microseconds (ns-3 decided -> fastpathd's workers see the entry).
    std::vector<double> GetRouteLatenciesUs() const;
    uint64_t GetAppliedUpdates() const;
    uint64_t GetFailedUpdates() const;
    uint64_t GetReconnects() const;
    /// Port up/down events received for the watched ports.
    uint64_t GetPortEvents() const;
    /// What fastpathd acknowledged (copy).
    FastPathTable GetAppliedRoutes() const;

  protected:
    void DoDispose() override;

  private:
    void Run();
    void Apply(const FastPathUpdate& update);
    fastpath::Status Replay(fastpath::ctrl::Client& client);
    fastpath::Status MergeRules(fastpath::ctrl::Client& client);
    /// Wakes the worker (Submit, AddControlRules, StopWorker).
    void Wake();
    /// Idle worker: waits for work, an event or EOF from fastpathd, or the heartbeat.
    void Idle(int heartbeatMs);
    /// Reads the events fastpathd sent (bounded per call) and reports port states.
    void HandleEvents();
    /// Reports the current state of every watched port (after a (re)connect).
    fastpath::Status ReportPortStates(fastpath::ctrl::Client& client);

    std::string m_socketPath;
    std::string m_nodeName;
    std::string m_fastPathNode;
    bool m_followPortState = true;
    Time m_heartbeat;
    Time m_routeGracePeriod;
    uint32_t m_reconnectAttempts;

    std::unique_ptr<fastpath::ctrl::Client> m_client;
    std::thread m_worker;
    mutable std::mutex m_mutex;
    int m_wakeFd = -1; //!< eventfd: the worker sleeps in poll() on it and on the socket
    std::condition_variable m_idleCv;
    std::deque<FastPathUpdate> m_queue;
    std::vector<std::vector<fastpath::ControlRule>> m_ruleQueue;
    bool m_busy = false;
    bool m_stop = false;
    bool m_running = false;

    // Worker-thread state (guarded by m_mutex where read from outside).
    FastPathTable m_applied;                //!< acknowledged by fastpathd
    FastPathTable m_target;                 //!< every update applied, sent or not
    FastPathNeighbours m_targetNeighbours;  //!< idem for neighbours
    std::vector<fastpath::ControlRule> m_rules;
    std::vector<fastpath::PortId> m_watched;
    std::map<fastpath::PortId, fastpath::ControlChannelTiming> m_timing; //!< as opened
    ReconnectCallback m_reconnectCb;
    PortStateCallback m_portStateCb;
    std::map<fastpath::PortId, MediumFailureCallback> m_mediumFailureCbs;
    std::vector<double> m_latenciesUs;
    uint64_t m_appliedUpdates = 0;
    uint64_t m_failedUpdates = 0;
    uint64_t m_reconnects = 0;
    uint64_t m_portEvents = 0;
};

} // namespace ns3
