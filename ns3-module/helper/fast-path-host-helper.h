// SPDX-License-Identifier: GPL-2.0-only
// FastPathHostHelper: a real end point (a Linux network namespace with its own stack, for
// ping, iperf3 or any program) attached to an emulated router; in a simulated run an ns-3
// node stands in for it.
#pragma once

#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Hosts at the edge of a script's network, real when emulated.
 *
 * Install(router, "h1", "198.18.1.2/24") gives `router` a host on a subnet of its own:
 *
 * - emulated (global value FastPathEmulation true): fastpathd creates the network
 *   namespace `fp-TAG-h1` (TAG: the global value FastPathTag, as for the nodes) with a veth
 *   pair: `eth0` inside has 198.18.1.2/24, MTU, a default route via the router's address
 *   on the subnet (198.18.1.1 unless given), lo up; the other end is a port of the
 *   router's fastpathd node, and the router gets an FdNetDevice on it (by FastPathHelper,
 *   as for its links) addressed 198.18.1.1/24 here, its routing mirrored as for any port.
 *   Real programs run in the namespace with one root command:
 *   `ip netns exec fp-TAG-h1 ping 198.18.2.2` (the ns-3 process itself needs no privilege:
 *   fastpathd makes the namespace on its request, as an operator of the control socket).
 * - simulated (FastPathEmulation false): an ns-3 node (named "h1" in Names) with the
 *   internet stack stands in for the host, joined to the router by a point-to-point link
 *   (SetDeviceAttribute/SetChannelAttribute; default 10 Gbit/s, no delay, as a veth), the
 *   same addresses and default route. The script runs both ways; GetNode() of the result
 *   is that node (null when emulated).
 *
 * In both runs, when the router runs OLSR the host's subnet is announced as a host network
 * association (HNA) so that every router learns a route to it; the router must then run
 * OLSR in an Ipv4ListRoutingHelper with Ipv4StaticRoutingHelper (priority 0; OLSR 10), as
 * ns-3's OLSR alone routes only to OLSR nodes (checked: Install() aborts saying so). With
 * static routing the script adds the routes itself. The router must have the internet stack installed before
 * Install(). IPv4 only (the namespace may be given IPv6 addresses by fpctl).
 *
 * Cleanup: the hosts are deleted at Simulator::Destroy(). A run stopped by Ctrl-C (SIGINT)
 * or SIGTERM stops the simulation (FastPathHelper's signal handling), so Destroy() runs as
 * usual; the hosts of a run killed with SIGKILL are deleted with its TAG- nodes at the
 * next run's first Install() (fastpathd deletes a node's hosts with it), and all of them
 * when fastpathd stops.
 */
class FastPathHostHelper
{
  public:
    /// What Install() made.
    struct Host
    {
        std::string name;  ///< as given ("h1")
        std::string netns; ///< emulated: the namespace ("fp-TAG-h1"); simulated: empty
        Ptr<Node> node;    ///< simulated: the ns-3 node standing in; emulated: null
        Ptr<NetDevice> routerDevice; ///< the router's device toward the host
        Ipv4Address address;         ///< the host's address
        Ipv4Address gateway;         ///< the router's address on the host's subnet
        uint8_t prefixLength = 24;
    };

    FastPathHostHelper();

    /// MTU of the host's interface and of the router's port (default 1500).
    void SetMtu(uint32_t mtu);
    /// Simulated runs: attributes of the point-to-point link to the stand-in node.
    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * A host `name` (1-18 of [A-Za-z0-9_.-]) on `router` with `address` ("A.B.C.D/LEN",
     * LEN 1..30); the router's address on the subnet is `gateway` ("" = the subnet's first
     * address, or its second when that is the host's). Install before Simulator::Run().
     * Aborts with what to fix on bad input or when fastpathd refuses.
     */
    Host Install(Ptr<Node> router,
                 const std::string& name,
                 const std::string& address,
                 const std::string& gateway = "");

  private:
    uint32_t m_mtu = 1500;
    PointToPointHelper m_p2p;
};

} // namespace ns3
