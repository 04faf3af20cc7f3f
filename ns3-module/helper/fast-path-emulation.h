// SPDX-License-Identifier: GPL-2.0-only
// FastPathEmulation: what the emulating helpers (FastPathPointToPointHelper,
// FastPathCsmaHelper) share in one simulation — the switch, the connection to fastpathd,
// the fastpathd node of each ns-3 node, the attachment of the ns-3 nodes, following
// Config::Set changes, and the cleanup.
#pragma once

#include "ns3/attribute.h"
#include "ns3/fast-path-clock-check.h"
#include "ns3/fast-path-helper.h"
#include "ns3/fast-path-hosts-file.h"
#include "ns3/fast-path-partition.h"
#include "ns3/fast-path-realtime-simulator-impl.h"
#include "ns3/fast-path-trace-taps.h"
#include "ns3/ipv4.h"
#include "ns3/ipv4-interface.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"

#include "fastpath/link_params.h"
#include "fastpath/net_types.h"
#include "fastpath/result.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
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
 * helpers' followers (which hand interfaces set down or up to fastpathd; parameter changes
 * are notified, see FastPathEmulatedSet). At
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
    /// Refuses the script at start: prints `message` (what cannot be emulated, and what to
    /// use instead) on stderr, removes what the emulation created in fastpathd
    /// and exits with status 1 (std::_Exit: no Simulator::Destroy, no static destructors).
    /// A refusal, not an abort: no core dump.
    [[noreturn]] static void Refuse(const std::string& message);
    /// Empty when every device of every node can be emulated (an emulating helper's or
    /// FastPathHelper's device, a real device of the host, loopback, tunnels, bridges); else
    /// one message naming each other device (/NodeList/N/DeviceList/I), its type and
    /// channel, why and what to use instead. Checked at time 0 of an emulated run, which is
    /// refused with it.
    static std::string WhyNotEmulated();
    /// Empty unless a bridge (BridgeHelper's BridgeNetDevice) has emulated devices among its
    /// ports and cannot be made in fastpathd (a port that is no emulated CSMA device,
    /// learning off); else one message naming each such bridge and why. Checked with
    /// WhyNotEmulated() at time 0; the others are made then (FastPathCsmaHelper::PlanBridges).
    static std::string WhyNotBridged();
    /// Why `bridge` (a BridgeNetDevice over emulated devices) cannot be made in fastpathd:
    /// "" when every port is a FastPathCsmaHelper device and it learns.
    static std::string WhyNotBridge(Ptr<NetDevice> bridge);
    /// The bridges (BridgeHelper's BridgeNetDevice) whose ports are all FastPathCsmaHelper
    /// devices, created in fastpathd as learning bridges over those segment ports
    /// (ExpirationTime as the ageing time): frames then cross them as simulated. Called at
    /// time 0 of an emulated run, after the checks; "" when done, else why not (the run is
    /// refused with it). (fast-path-csma-bridges.cc)
    static std::string PlanBridges();

    fastpath::ctrl::Client& Client();
    /// TAG: prefix of every fastpathd name this simulation creates.
    const std::string& Tag() const;
    /// The fastpathd node of `node`, created on first use (TAG-NAME).
    std::string NodeOf(Ptr<Node> node);
    /// The fastpathd node of `node` ("" if none yet).
    std::string FindNode(Ptr<Node> node) const;
    /// The FastPathHelper attaching the ns-3 nodes (one connection per node).
    FastPathHelper& Attach();

    // Several processes (FastPathRanks: mpirun, --FastPathPartition=i/K). Each process
    // builds the whole script; rank 0 alone creates it in fastpathd; at Simulator::Run(),
    // before the clock starts, the nodes are placed (FastPathPartition), each process
    // attaches its own nodes, and all start together. The others' nodes stay inert: their
    // devices are bound to nothing and their applications never start.

    /// The run has several processes.
    bool IsPartitioned() const;
    /// This process creates and deletes the fastpathd objects (the only one, or rank 0).
    bool Creates() const;
    /// A device on `node` for port `port` of fastpathd node `fpNode`: attached now (one
    /// process), or bound at Simulator::Run() if `node` is this process's (with the MAC
    /// `mac` meanwhile: the one the port is created with). The device is `device` (on
    /// `node` already, with a FastPathNetDevice aggregated: FastPathPointToPointNetDevice),
    /// else a new FastPathNetDevice added to `node`.
    Ptr<NetDevice> AddPort(Ptr<Node> node,
                           const std::string& fpNode,
                           const std::string& port,
                           uint16_t mtu,
                           const fastpath::MacAddress& mac,
                           Ptr<NetDevice> device = nullptr);
    /// The MAC ns-3's own helper would give the next device it installs
    /// (Mac48Address::Allocate, called in the same order), for the fastpathd port that
    /// stands in for it: emulated devices then have the MACs, IPv6 link-local addresses and
    /// FlowMonitor flows of the simulated ones. Unique within the run; ns-3's allocator
    /// gives globally administered 00:00:... addresses, which no Linux-generated MAC of a
    /// real host (locally administered) can equal.
    static fastpath::MacAddress AllocateMac();
    /// `create` with the MACs ns-3 allocated; if fastpathd refuses them because another
    /// port of its (another run's) has one, warns on stderr and calls `create` again with
    /// the MACs cleared (fastpathd generates them). `what` names the object in the warning.
    static fastpath::Status CreateWithMacs(const std::string& what,
                                           const std::function<void()>& clearMacs,
                                           const std::function<fastpath::Status()>& create);
    /// `a` and `b` are joined by a link or medium (the graph the placement partitions).
    void AddEdge(Ptr<Node> a, Ptr<Node> b);
    // Several hosts (global value FastPathHosts, a FastPathHostsFile): process i runs on
    // the file's i-th host and talks to that host's fastpathd. Nothing is created at
    // Install(): at Simulator::Run(), once the nodes are placed, each process declares its
    // host and wires, creates its nodes, the links among them and its ends of the links to
    // other hosts (ports on the wire), and the start barrier waits for every host.
    /// The run spans several hosts.
    bool IsMultiHost() const;
    /// Multi-host: link `spec` between `a` and `b` is created at Simulator::Run(), on the
    /// host (or the two hosts) of its nodes.
    void CreateLinkLater(const fastpath::LinkSpec& spec, Ptr<Node> a, Ptr<Node> b);
    /// This process made link `name` as a link between two hosts (its end on this host).
    bool IsCrossHostLink(const std::string& name) const;
    /// Multi-host: this process's host's clock offset as its fastpathd read it (chrony,
    /// PTP), known from Simulator::Run() on; printed there beside the links' delay budgets
    /// (FastPathClockCheck). Unknown (source "not a run over several hosts") otherwise.
    static FastPathClockOffset GetHostClockOffset();
    /// `node`'s control plane runs in this process (always, with one process). A
    /// partitioned run knows it from Simulator::Run() on.
    bool IsLocal(Ptr<Node> node) const;
    /// The same for scripts: true when nothing is emulated or the run has one process.
    static bool IsLocalNode(Ptr<Node> node);
    /// This process's rank and the number of processes (0 and 1 without a partition).
    static uint32_t GetRank();
    static uint32_t GetRanks();
    /// Called every FastPathFollowInterval, in the order added.
    void AddFollower(std::function<void()> follow);
    /// Called at Simulator::Destroy(), before the nodes are deleted; `first`: before the
    /// cleanups added so far (the trace taps read the ports' last frames before the links
    /// and segments are deleted).
    void AddCleanup(std::function<void()> cleanup, bool first = false);
    /// fastpathd's socket (the global value FastPathSocket when the emulation was created).
    const std::string& Socket() const;
    /// The fastpathd node and port of a device AddPort() returned; false for any other.
    bool PortOf(Ptr<NetDevice> device, std::string& fpNode, std::string& port) const;
    /// A change (notified, or found by a follower) was acknowledged by fastpathd now.
    void NoteFollowAck();
    uint64_t GetFollowedChanges() const;
    std::chrono::steady_clock::time_point GetLastFollowAck() const;
    /// The loss probability per frame of `device`'s ReceiveErrorModel when it is an
    /// enabled RateErrorModel (per packet; per byte or bit over an MTU-sized frame), else 0.
    static double ReceiveLoss(Ptr<NetDevice> device);
    /// Where InterfaceUp found a device's IPv4 interface: ns-3 never removes an interface
    /// nor changes its index, so a follower asking every FastPathFollowInterval looks it up
    /// once instead of each time.
    struct InterfaceOf
    {
        Ptr<Ipv4> ipv4;
        int32_t index = -1; //!< -1: not found yet, looked up again at the next call
        /// The interface itself where `ipv4` is ns-3's Ipv4L3Protocol: asked directly, as
        /// the followers ask about every link end each time they look.
        Ptr<Ipv4Interface> iface;
    };
    /// The IPv4 interface of `device` on `node` is up (or the device has none yet); the
    /// interface found is kept in `where`.
    static bool InterfaceUp(Ptr<Node> node, Ptr<NetDevice> device, InterfaceOf& where);
    /// Sets `p`'s drop-tail limit to `queue`'s MaxSize (packets or bytes, the other 0).
    static void SetQueueLimit(fastpath::LinkParams& p, Ptr<QueueBase> queue);
    /// Deletes `names` in fastpathd with `del` (a warning for each refused), `kind` ("link",
    /// "segment") naming them in the log.
    void DeleteAll(const std::string& kind,
                   const std::vector<std::string>& names,
                   const std::function<fastpath::Status(const std::string&)>& del);

    ~FastPathEmulation();

  private:
    /// A port whose device waits for the placement (partitioned runs).
    struct PendingPort
    {
        Ptr<Node> node;
        std::string fpNode;
        std::string port;
        Ptr<NetDevice> device;
    };

    /// A link of a multi-host run, created once the nodes are placed.
    struct PendingLink
    {
        fastpath::LinkSpec spec;
        Ptr<Node> a;
        Ptr<Node> b;
    };
    FastPathEmulation() = default;
    /// Multi-host (FastPathHosts set): reads the hosts file, one host per process, and
    /// talks to this process's host's fastpathd; aborts the run (`who` says whose) when the
    /// file is bad or lists another number of hosts than processes.
    void ReadHosts(const std::string& who, const std::string& hostsFile);
    /// Several processes: checks the simulator that starts their clocks together and hooks
    /// StartPartition before its clock starts.
    void HookPartitionedStart(const std::string& who);
    /// Multi-host, before the start barrier: this host declared, its nodes, links and
    /// cross-host link ends created on its fastpathd.
    void CreateHostPart();
    /// The run's tag for fastpathd's interfaces (1-6 of a-z 0-9, from the tag).
    std::string RunTag() const;
    /// Before the clock starts (partitioned): placement, this process's nodes attached,
    /// the others inert, the start barrier.
    void StartPartition();
    /// Without the launcher's barrier: waits until rank 0 has created every node of the plan.
    void WaitForPlan();
    void RemoveLeftovers();
    void Follow();
    void Clear();
    /// At time 0: refuses the run if WhyNotEmulated() says so (in an event: fastpathd's
    /// objects are deleted and the process exits, as Simulator::Destroy cannot run here).
    void CheckEmulated();

    std::unique_ptr<fastpath::ctrl::Client> m_client;
    std::string m_tag;
    std::string m_socket;
    std::map<uint32_t, std::string> m_nodes; //!< ns-3 node id -> fastpathd node
    FastPathHelper m_attach;
    std::vector<std::function<void()>> m_followers;
    EventId m_followEvent;        //!< the next Follow(), while there are followers
    bool m_followStarted = false; //!< Follow() ran (the run started)
    std::vector<std::function<void()>> m_cleanups;
    std::chrono::steady_clock::time_point m_lastFollowAck;
    uint64_t m_followChanges = 0;
    FastPathPartition::Rank m_rank;
    std::vector<PendingPort> m_pending;
    /// Every device AddPort() returned: its fastpathd node and port.
    std::map<const NetDevice*, std::pair<std::string, std::string>> m_ports;
    std::vector<FastPathPartition::Edge> m_edges; //!< ns-3 node ids
    std::vector<uint32_t> m_placement;            //!< rank of each ns-3 node id, once placed
    std::string m_hostsFile;                      //!< FastPathHosts
    std::vector<FastPathHostsFile::Host> m_hosts; //!< by rank (multi-host)
    std::vector<PendingLink> m_links;             //!< multi-host, created at Run()
    std::set<std::string> m_createdNodes;         //!< what this process created, deleted at the end
    std::set<std::string> m_createdLinks;
    std::set<std::string> m_crossLinks;
    FastPathClockOffset m_clock{false, 0, "not a run over several hosts"};
};

/**
 * \ingroup fastpath
 * \brief What one emulating helper created in the current emulation (its links, its
 * segments): Items with a name, the parameters they had last handed to fastpathd.
 *
 * Derived implements Push (an item's changes to fastpathd), Delete (one item in fastpathd)
 * and, where fastpathd follows them, PushState (its interfaces' states). The item's
 * parameter holders (watched ns-3 objects, FastPathWatched) call Changed() when a script
 * sets one of their attributes: the item is pushed once at the end of the current
 * simulator event (before the clock starts, for changes made before the run). Current()
 * creates the
 * set with the emulation, hands the interfaces' states every FastPathFollowInterval (ns-3
 * tells no one when Ipv4::SetDown is called) and deletes every item at the emulation's
 * cleanup, before the nodes.
 */
template <typename Item>
class FastPathEmulatedSet
{
  public:
    virtual ~FastPathEmulatedSet() = default;
    /// Hands `item`'s parameters and state to fastpathd where they changed.
    virtual void Push(Item& item) = 0;
    /// Hands the states (up, down) of `item`'s ns-3 interfaces to fastpathd where they
    /// changed; reads nothing else. By default nothing: items whose interfaces' states
    /// fastpathd does not follow (a radio medium's members).
    virtual void PushState(Item&)
    {
    }

    /// A parameter of item `index` was set: it is pushed once, after the current event.
    void Changed(size_t index)
    {
        if (!m_dirty.insert(index).second || m_dirty.size() > 1)
        {
            return;
        }
        // Changes a script makes before the run are pushed before the clock starts.
        FastPathRealtimeSimulatorImpl::RunBeforeClockOrNow([this]() {
            std::set<size_t> dirty;
            std::swap(dirty, m_dirty);
            for (size_t i : dirty)
            {
                if (i < items.size())
                {
                    ++m_pushes;
                    Push(items[i]);
                }
            }
        });
    }

    /// Items pushed after a change was notified (a test's window on the notifications).
    uint64_t GetNotifiedPushes() const
    {
        return m_pushes;
    }
    /// Deletes the fastpathd object `name`.
    virtual fastpath::Status Delete(const std::string& name) = 0;

    /// The set of the current emulation kept in `slot` (a helper's global), created on
    /// first use; `who` names the helper when the emulation cannot be created.
    template <typename Derived>
    static Derived& Current(std::shared_ptr<Derived>& slot,
                            const std::string& who,
                            const std::string& kind)
    {
        FastPathEmulation& e = FastPathEmulation::Get(who);
        if (slot && slot->emulation == &e)
        {
            return *slot;
        }
        auto set = std::make_shared<Derived>();
        set->emulation = &e;
        set->m_kind = kind;
        slot = set;
        Derived* raw = set.get();
        e.AddFollower([raw]() {
            for (auto& item : raw->items)
            {
                raw->PushState(item);
            }
        });
        std::shared_ptr<Derived>* at = &slot;
        e.AddCleanup([at]() {
            if (*at)
            {
                (*at)->Clear();
                at->reset();
            }
        });
        return *set;
    }

    /// Deletes every item in fastpathd.
    void Clear()
    {
        std::vector<std::string> names;
        for (const auto& item : items)
        {
            names.push_back(item.name);
        }
        emulation->DeleteAll(m_kind, names, [this](const std::string& n) { return Delete(n); });
        items.clear();
    }

    FastPathEmulation* emulation = nullptr;
    std::vector<Item> items;
    uint32_t next = 0; //!< the number of the next item's name

  private:
    std::string m_kind;
    std::set<size_t> m_dirty;
    uint64_t m_pushes = 0;
};

/**
 * \ingroup fastpath
 * \brief An ns-3 helper `Base` (PointToPointHelper, CsmaHelper) that keeps its own copy of
 * the queue, device and channel settings: `Base` keeps its factories private, and the
 * emulated objects (the parameters' holders, never on a node) are created from them.
 */
template <typename Base>
class FastPathEmulatingHelper : public Base
{
  public:
    /// As Base::SetQueue (the queue's MaxSize is the emulated limit).
    template <typename... Ts>
    void SetQueue(std::string type, Ts&&... args)
    {
        Base::SetQueue(type, args...);
        QueueBase::AppendItemTypeIfNotPresent(type, "Packet");
        m_queueFactory.SetTypeId(type);
        m_queueFactory.Set(std::forward<Ts>(args)...);
    }

    /// As Base::SetDeviceAttribute (DataRate, Mtu, ReceiveErrorModel...).
    void SetDeviceAttribute(std::string name, const AttributeValue& value)
    {
        Base::SetDeviceAttribute(name, value);
        m_deviceFactory.Set(name, value);
    }

    /// As Base::SetChannelAttribute (DataRate, Delay).
    void SetChannelAttribute(std::string name, const AttributeValue& value)
    {
        Base::SetChannelAttribute(name, value);
        m_channelFactory.Set(name, value);
    }

    /// The value of the global value FastPathEmulation.
    static bool IsEmulated()
    {
        return FastPathEmulation::IsEnabled();
    }

  protected:
    FastPathEmulatingHelper(const std::string& device, const std::string& channel,
                            const std::string& name)
        : m_name(name)
    {
        m_queueFactory.SetTypeId("ns3::DropTailQueue<Packet>");
        m_deviceFactory.SetTypeId(device);
        m_channelFactory.SetTypeId(channel);
    }

    ObjectFactory m_queueFactory;
    ObjectFactory m_deviceFactory;
    ObjectFactory m_channelFactory;

  private:
    // Base's pcap and ascii tracing (EnablePcap*, EnableAscii*, their All and container
    // forms all end here, one device at a time). Simulated, the device is Base's own and
    // is traced as Base traces it (Base's tracing keeps no state of the helper, so a plain
    // Base does it). Emulated, the same files are written from the frames fastpathd carries
    // on the device's port (FastPathTraceTaps).
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override
    {
        if (FastPathTraceTaps::EnablePcap(m_name + "::EnablePcap", nd,
                                          m_deviceFactory.GetTypeId(), prefix, promiscuous,
                                          explicitFilename))
        {
            return;
        }
        Base plain;
        plain.EnablePcap(prefix, nd, promiscuous, explicitFilename);
    }

    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override
    {
        if (FastPathTraceTaps::EnableAscii(m_name + "::EnableAscii", nd,
                                           m_deviceFactory.GetTypeId(), stream, prefix,
                                           explicitFilename))
        {
            return;
        }
        Base plain;
        if (stream)
        {
            plain.EnableAscii(stream, nd);
        }
        else
        {
            plain.EnableAscii(prefix, nd, explicitFilename);
        }
    }

    std::string m_name; //!< the helper's class in messages
};

} // namespace ns3
