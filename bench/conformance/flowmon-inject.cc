// SPDX-License-Identifier: GPL-2.0-only
// Linked into every example the conformance harness builds, with -Wl,--wrap of
// ns3::Simulator::Run() and FlowMonitorHelper::InstallAll(): the example's calls land here.
// By then the script has built its topology, so FlowMonitorHelper::InstallAll() covers every
// node from time 0 of the run; when Run() returns (before the script's Simulator::Destroy())
// FlowMonitor's XML is written to $FP_CONFORMANCE_FLOWS. The example's source is not
// touched beyond the documented switch, and without the variables this file does nothing.
//
// A FlowMonitor reschedules its loss check forever, and so do the emulating helpers' periodic
// checks: a script without Simulator::Stop() would then never end. So the harness first runs
// the example simulated without a monitor ($FP_CONFORMANCE_END: where Run() ended, in ns), and
// stops the measured runs there ($FP_CONFORMANCE_STOP_NS, an absolute simulation time).
//
// FlowMonitor finds a received packet by the byte tag its probe added when it was sent: a frame
// that crossed fastpathd is rebuilt from its bytes and keeps the tag only if the emulating
// helpers carry it across. So a second count is kept that needs none, written to $FP_CONFORMANCE_FLOWS.ipid as JSON lines (IPv4): each packet a node sends
// (Ipv4L3Protocol SendOutgoing) is remembered by its five-tuple and IP identification, and found
// again by them where it is delivered (LocalDeliver). Simulated, both counts agree (the
// harness notes where they do not); emulated, the second shows what reached the applications.
//
// Both counts measure the program's first Simulator::Run() only. A program may build and run
// several simulations one after the other (cobalt-vs-codel: COBALT, Simulator::Destroy(), then
// CoDel, on new nodes): a FlowMonitor cannot be merged across them, and one installed on the
// first simulation's nodes never sees the second's. So both files are written when the first
// Run() returns, and later Run()s are only stopped at $FP_CONFORMANCE_STOP_NS like the first.
//
// Each line: {"flow":ID,"proto":P,"src":"A","sport":N,"dst":"B","dport":N,"tx_packets":N,
// "tx_bytes":N,"rx_packets":N,"rx_bytes":N,"lost_packets":N,"delay_sum_ns":N}

#include "ns3/flow-monitor-helper.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

extern "C" void __real__ZN3ns39Simulator3RunEv();
// FlowMonitorHelper::InstallAll(), mangled (-Wl,--wrap=_ZN3ns317FlowMonitorHelper10InstallAllEv).
// A member function returning a class: the return slot comes first, then `this` (Itanium ABI).
extern "C" ns3::Ptr<ns3::FlowMonitor> __real__ZN3ns317FlowMonitorHelper10InstallAllEv(
    ns3::FlowMonitorHelper* self);

namespace
{

ns3::FlowMonitorHelper* g_helper = nullptr;
/// Set once the first Run() has been measured and its files written.
bool g_measured = false;

void
WriteFlows(const char* path)
{
    // FlowMonitor's own XML (IPv4 and IPv6 classifiers, every flow's statistics and its
    // delay histogram, 1 ms bins); it checks for lost packets first.
    g_helper->SerializeToXmlFile(path, true, false);
}

/// One flow as the identification-based count keeps it.
struct IdFlow
{
    uint64_t txPackets = 0, txBytes = 0, rxPackets = 0, rxBytes = 0;
    int64_t delaySumNs = 0;
    std::map<uint16_t, int64_t> inFlight; ///< IP identification -> send time (ns)
};

using FiveTuple = std::tuple<uint8_t, uint32_t, uint16_t, uint32_t, uint16_t>;
std::map<FiveTuple, IdFlow> g_idFlows;

FiveTuple
TupleOf(const ns3::Ipv4Header& ip, ns3::Ptr<const ns3::Packet> payload)
{
    uint16_t sport = 0, dport = 0;
    uint8_t bytes[4] = {};
    // Ports are the first four bytes of TCP and UDP; the first fragment carries them.
    if ((ip.GetProtocol() == 6 || ip.GetProtocol() == 17) && ip.GetFragmentOffset() == 0 &&
        payload->CopyData(bytes, 4) == 4)
    {
        sport = (bytes[0] << 8) | bytes[1];
        dport = (bytes[2] << 8) | bytes[3];
    }
    return {ip.GetProtocol(), ip.GetSource().Get(), sport, ip.GetDestination().Get(), dport};
}

void
IdSent(const ns3::Ipv4Header& ip, ns3::Ptr<const ns3::Packet> payload, uint32_t)
{
    IdFlow& f = g_idFlows[TupleOf(ip, payload)];
    f.txPackets++;
    f.txBytes += payload->GetSize() + ip.GetSerializedSize();
    f.inFlight[ip.GetIdentification()] = ns3::Simulator::Now().GetNanoSeconds();
}

void
IdDelivered(const ns3::Ipv4Header& ip, ns3::Ptr<const ns3::Packet> payload, uint32_t)
{
    IdFlow& f = g_idFlows[TupleOf(ip, payload)];
    f.rxPackets++;
    f.rxBytes += payload->GetSize() + ip.GetSerializedSize();
    auto it = f.inFlight.find(ip.GetIdentification());
    if (it != f.inFlight.end())
    {
        f.delaySumNs += ns3::Simulator::Now().GetNanoSeconds() - it->second;
        f.inFlight.erase(it);
    }
}

void
InstallIdCount()
{
    for (auto n = ns3::NodeList::Begin(); n != ns3::NodeList::End(); ++n)
    {
        if (auto ip = (*n)->GetObject<ns3::Ipv4L3Protocol>())
        {
            ip->TraceConnectWithoutContext("SendOutgoing", ns3::MakeCallback(&IdSent));
            ip->TraceConnectWithoutContext("LocalDeliver", ns3::MakeCallback(&IdDelivered));
        }
    }
}

void
WriteIdFlows(const std::string& path)
{
    std::ofstream out(path, std::ios::trunc);
    uint32_t id = 0;
    for (const auto& [t, f] : g_idFlows)
    {
        // Packets a node delivers to itself without sending them (none on these examples)
        // or of a flow that only arrived are written all the same: the comparison sees them.
        // Packets still in flight when the run stops count as lost, as in FlowMonitor.
        out << "{\"flow\":" << ++id << ",\"proto\":" << unsigned(std::get<0>(t)) << ",\"src\":\""
            << ns3::Ipv4Address(std::get<1>(t)) << "\",\"sport\":" << std::get<2>(t)
            << ",\"dst\":\"" << ns3::Ipv4Address(std::get<3>(t)) << "\",\"dport\":" << std::get<4>(t)
            << ",\"tx_packets\":" << f.txPackets << ",\"tx_bytes\":" << f.txBytes
            << ",\"rx_packets\":" << f.rxPackets << ",\"rx_bytes\":" << f.rxBytes
            << ",\"lost_packets\":" << (f.txPackets > f.rxPackets ? f.txPackets - f.rxPackets : 0)
            << ",\"delay_sum_ns\":" << f.delaySumNs << "}\n";
    }
}

} // namespace

// Two FlowMonitors on one node do not both count: a probe leaves a packet that already carries
// another probe's tag alone. So when the example installs its own (all of them call
// InstallAll), that one is measured and no other is added.
extern "C" ns3::Ptr<ns3::FlowMonitor>
__wrap__ZN3ns317FlowMonitorHelper10InstallAllEv(ns3::FlowMonitorHelper* self)
{
    if (g_helper == nullptr)
    {
        g_helper = self;
    }
    return __real__ZN3ns317FlowMonitorHelper10InstallAllEv(self);
}

extern "C" void
__wrap__ZN3ns39Simulator3RunEv()
{
    const char* path = std::getenv("FP_CONFORMANCE_FLOWS");
    const char* stop = std::getenv("FP_CONFORMANCE_STOP_NS");
    const char* end = std::getenv("FP_CONFORMANCE_END");
    if (stop != nullptr)
    {
        ns3::Simulator::Stop(ns3::NanoSeconds(std::strtoll(stop, nullptr, 10)) -
                             ns3::Simulator::Now());
    }
    const bool measure = path != nullptr && !g_measured;
    if (measure && g_helper == nullptr)
    {
        // Never freed: the helper must outlive the script's Simulator::Destroy().
        g_helper = new ns3::FlowMonitorHelper;
        __real__ZN3ns317FlowMonitorHelper10InstallAllEv(g_helper);
    }
    if (measure)
    {
        InstallIdCount();
    }
    __real__ZN3ns39Simulator3RunEv();
    if (measure)
    {
        // Written now, before the script's Simulator::Destroy(): a helper of the script's
        // own may not outlive it, and a later Run() must not add to these counts.
        WriteFlows(path);
        WriteIdFlows(std::string(path) + ".ipid");
        g_measured = true;
    }
    if (end != nullptr)
    {
        std::ofstream(end, std::ios::trunc) << ns3::Simulator::Now().GetNanoSeconds() << "\n";
    }
}
