// SPDX-License-Identifier: GPL-2.0-only
// FastPathEmulation: what the emulating helpers (FastPathPointToPointHelper,
// FastPathCsmaHelper) share in one simulation — the switch, the connection to fastpathd,
// the fastpathd node of each ns-3 node, the attachment of the ns-3 nodes, following
// Config::Set changes, and the cleanup.
#pragma once

#include "ns3/fast-path-helper.h"
#include "ns3/net-device.h"
#include "ns3/node.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fastpath::ctrl
{
class Client;
}

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The emulation of one simulation in fastpathd, shared by the emulating helpers.
 *
 * Created by the first Install() of an emulating helper with the global value
 * FastPathEmulation true: it connects to fastpathd (global value FastPathSocket), deletes
 * what a crashed run with the same tag left (links, segments and nodes named TAG-...;
 * TAG: the global value FastPathTag, default the program's name), and creates a fastpathd
 * node TAG-NAME for each ns-3 node on first use. Every FastPathFollowInterval it calls the
 * helpers' followers (which hand Config::Set changes to fastpathd). At
 * Simulator::Destroy() the helpers' cleanups delete their links and segments, then the
 * nodes are deleted and the connection closed.
 */
class FastPathEmulation
{
  public:
    /// The value of the global value FastPathEmulation.
    static bool IsEnabled();
    /// The emulation of the current simulation, created (connected, leftovers removed)
    /// on first use; aborts with a message naming `who` when it cannot be.
    static FastPathEmulation& Get(const std::string& who);
    /// The current emulation, or nullptr (not emulated, or nothing installed yet).
    static FastPathEmulation* Find();

    fastpath::ctrl::Client& Client();
    /// TAG: prefix of every fastpathd name this simulation creates.
    const std::string& Tag() const;
    /// The fastpathd node of `node`, created on first use (TAG-NAME).
    std::string NodeOf(Ptr<Node> node);
    /// The fastpathd node of `node` ("" if none yet).
    std::string FindNode(Ptr<Node> node) const;
    /// The FastPathHelper attaching the ns-3 nodes (one connection per node).
    FastPathHelper& Attach();
    /// Called every FastPathFollowInterval, in the order added.
    void AddFollower(std::function<void()> follow);
    /// Called at Simulator::Destroy(), before the nodes are deleted.
    void AddCleanup(std::function<void()> cleanup);
    /// A change found by a follower was acknowledged by fastpathd now.
    void NoteFollowAck();
    uint64_t GetFollowedChanges() const;
    std::chrono::steady_clock::time_point GetLastFollowAck() const;
    /// The loss probability per frame of `device`'s ReceiveErrorModel when it is an
    /// enabled RateErrorModel (per packet; per byte or bit over an MTU-sized frame), else 0.
    static double ReceiveLoss(Ptr<NetDevice> device);
    /// The IPv4 interface of `device` on `node` is up (or the device has none).
    static bool InterfaceUp(Ptr<Node> node, Ptr<NetDevice> device);

    ~FastPathEmulation();

  private:
    FastPathEmulation() = default;
    void RemoveLeftovers();
    void Follow();
    void Clear();

    std::unique_ptr<fastpath::ctrl::Client> m_client;
    std::string m_tag;
    std::string m_socket;
    std::map<uint32_t, std::string> m_nodes; //!< ns-3 node id -> fastpathd node
    FastPathHelper m_attach;
    std::vector<std::function<void()>> m_followers;
    std::vector<std::function<void()>> m_cleanups;
    std::chrono::steady_clock::time_point m_lastFollowAck;
    uint64_t m_followChanges = 0;
};

} // namespace ns3
