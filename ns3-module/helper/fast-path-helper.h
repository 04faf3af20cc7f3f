// SPDX-License-Identifier: GPL-2.0-only
// FastPathHelper: a few lines in an ns-3 emulation script make fastpathd the node's data
// plane while the node's routing protocol stays in ns-3.
#pragma once

#include "ns3/attribute.h"
#include "ns3/fast-path-connection.h"
#include "ns3/fast-path-route-mirror.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Attaches an ns-3 node to fastpathd.
 *
 * For each fastpathd port (a real interface or the end of an internal link, named as
 * fastpathd knows it) Install() creates one FdNetDevice on the node, in order: device
 * slot i of the returned container is ports[i]. The device reads and writes that port's
 * control-frame channel (a file descriptor fastpathd hands over its control socket),
 * carries the port's MAC address as fastpathd reports it, and so sees exactly the
 * control frames (ARP, routing protocol, frames for the router's own addresses) and the
 * data frames fastpathd punts. Assign IPv4 and/or IPv6 addresses to the returned devices
 * as in plain ns-3 emulation; the node's routing is mirrored into fastpathd from time 0
 * on (see FastPathRouteMirror). The control rules (frames for the node's own addresses
 * go to ns-3) are taken from the addresses the devices have at time 0; link-local IPv6
 * and ICMPv6 neighbour discovery go to ns-3 without a rule.
 *
 * A fastpathd may hold many nodes (forwarding contexts with their own ports, tables and
 * rules, joined by internal links; fastpathd --topology): SetFastPathNode() or the
 * Install() overload naming a node attach the ns-3 node to one of them, and the port
 * names are then that node's (interfaces or ends of internal links). Several ns-3 nodes
 * of one simulation may be attached to several fastpathd nodes, one connection each.
 * When fastpathd reports a port down (an interface or an internal link set down) the
 * node's IPv4/IPv6 interface on that device goes down until the port is up again
 * (FastPathRouteMirror::SetPortState; ns3::FastPathConnection::FollowPortState).
 *
 * Preconditions (checked, with a clear message): the realtime simulator
 * (SimulatorImplementationType = ns3::RealtimeSimulatorImpl) and ChecksumEnabled = true
 * are set before Install(); fastpathd is reachable and has the named ports. No
 * privilege is needed: only fastpathd is root.
 */
class FastPathHelper
{
  public:
    FastPathHelper();

    /// fastpathd's control socket (default /run/fastpathd/fastpathd.sock).
    void SetSocketPath(const std::string& path);
    /// The fastpathd node Install() attaches to (ns3::FastPathConnection::FastPathNode;
    /// default "": fastpathd's default node).
    void SetFastPathNode(const std::string& name);
    /// Attributes of the ns3::FastPathRouteMirror created per node.
    void SetMirrorAttribute(const std::string& name, const AttributeValue& value);
    /// Attributes of the ns3::FastPathConnection created per node.
    void SetConnectionAttribute(const std::string& name, const AttributeValue& value);
    /// UDP ports whose traffic is always sent to ns-3 (routing protocols). Default:
    /// 698 (OLSR), 520 (RIP), 521 (RIPng), 654 (AODV).
    void SetControlUdpPorts(const std::vector<uint16_t>& ports);

    /**
     * Connects to fastpathd and installs one FdNetDevice per port name on `node`. A node
     * this helper attached before may be given more ports of the same fastpathd node by
     * another Install() before the simulation runs (one connection per node; the new
     * ports' devices are added after the node's others).
     * A name that is no port of the fastpathd node but a real interface of fastpathd's
     * network namespace ("eth1") is attached to the node first (fastpathd 1.5; the process
     * must be an operator of the socket: root or fastpathd --socket-uid), and detached at
     * Simulator::Destroy().
     * The first Install() also makes SIGINT and SIGTERM (when the program has no handler of
     * its own) stop the simulation instead of the process, so that the script goes on to
     * Simulator::Destroy() and what it created in fastpathd is deleted; a second signal
     * has the default action.
     * Aborts with a message saying what to fix when a precondition does not hold.
     */
    NetDeviceContainer Install(Ptr<Node> node, const std::vector<std::string>& ports);
    /**
     * The same, attached to fastpathd node `fastPathNode` (for this call, whatever
     * SetFastPathNode said): `ports` are that node's port names, interfaces or link ports.
     */
    NetDeviceContainer Install(Ptr<Node> node,
                               const std::string& fastPathNode,
                               const std::vector<std::string>& ports);

    /**
     * As Install(node, fastPathNode, ports), with the devices already made: `devices[i]`
     * (on `node`, bound to nothing yet: a FastPathNetDevice, or a device with one aggregated,
     * as FastPathPointToPointNetDevice) is bound to `ports[i]` (its FastPathNetDevice gets
     * the port's file descriptor, MAC and MTU). The emulating helpers of a run of several
     * processes create every node's devices and bind those of the process's own nodes when
     * the run starts; FastPathPointToPointHelper binds its devices so in every run.
     */
    void Bind(Ptr<Node> node,
              const std::string& fastPathNode,
              const std::vector<std::string>& ports,
              const std::vector<Ptr<NetDevice>>& devices);

    /// The objects Install() aggregated to `node` (nullptr if not attached).
    Ptr<FastPathConnection> GetConnection(Ptr<Node> node) const;
    Ptr<FastPathRouteMirror> GetMirror(Ptr<Node> node) const;

    /// Empty when the simulator is set up for the fast path, else what to change.
    static std::string CheckSimulatorPreconditions();

    /// The addresses fastpathd hands to `node`'s ns-3 stack (its control rules at time 0):
    /// every IPv4 and IPv6 address of every interface of the node, whichever device it is
    /// on, except loopback, link-local and unspecified ones.
    static std::vector<fastpath::IpAddress> LocalAddressesOf(Ptr<Node> node);

    /**
     * Waits (wall clock) until every mirror update has been acknowledged by fastpathd.
     * Call after Simulator::Run() returns, before Simulator::Destroy().
     */
    void Flush(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  private:
    struct PerNode
    {
        Ptr<FastPathConnection> connection;
        Ptr<FastPathRouteMirror> mirror;
        /// Shared with the callbacks: a later Install() on the node adds to it.
        std::shared_ptr<std::map<fastpath::PortId, Ptr<NetDevice>>> devices;
        bool started = false;   //!< its connection was started (StartConnection)
        bool hasStack = false;  //!< ... for a node with a stack (not a switch)
    };
    /// `prepared`: the devices to bind (Bind), else new ones are added to the node.
    NetDeviceContainer DoInstall(Ptr<Node> node,
                                 Ptr<FastPathConnection> connection,
                                 const std::vector<std::string>& ports,
                                 const std::vector<Ptr<NetDevice>>* prepared = nullptr);
    /// Mirror sink, reconnect and port state callbacks of a newly attached node.
    static void AttachCallbacks(Ptr<Node> node, const PerNode& per);
    /// The node's exchanges with fastpathd before it runs: control rules, worker thread
    /// (once). Does the node have a stack (a switch has none: nothing to mirror)?
    static bool StartConnection(Ptr<Node> node,
                                const std::shared_ptr<PerNode>& per,
                                const std::vector<uint16_t>& udpPorts);
    /// At time 0, in the node's context: its connection (unless started before the clock)
    /// and its route mirror.
    static void StartNode(Ptr<Node> node,
                          const std::shared_ptr<PerNode>& per,
                          const std::vector<uint16_t>& udpPorts);

    ObjectFactory m_mirrorFactory;
    ObjectFactory m_connectionFactory;
    std::vector<uint16_t> m_udpPorts;
    std::map<uint32_t, std::shared_ptr<PerNode>> m_nodes;
};

} // namespace ns3
