// SPDX-License-Identifier: GPL-2.0-only
// The emulation's switch (FastPathEmulation) and its companion global values. Setting the
// switch selects what emulation needs before the first node exists: the realtime simulator
// whose clock starts once the emulation is set up (with several processes, together) and
// real checksums.
#include "fast-path-emulation-switch.h"

#include "fast-path-forwarding-checker.h"

#include "ns3/fast-path-partition.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/string.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace ns3
{

namespace
{

/// The number of processes of the run from the value of FastPathPartition and the
/// launcher's environment (1 when malformed: the value's checker refuses it).
uint32_t
RanksOf(const std::string& option)
{
    auto r = FastPathPartition::Detect(option, [](const char* n) { return std::getenv(n); });
    return r.ok() ? r.value().size : 1;
}

/// The realtime simulator whose clock starts once the emulation is set up; with several
/// processes it also runs only this process's nodes and starts their clocks together.
void
BindRealtime(uint32_t ranks)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue("ns3::FastPathRealtimeSimulatorImpl"));
    // Fail-safe: set from NS_GLOBAL_VALUE, the switch is checked while the libraries'
    // types register; the simulator then holds every node's events until Run() (correct,
    // one check more per event).
    Config::SetDefaultFailSafe("ns3::FastPathRealtimeSimulatorImpl::Partitioned",
                               BooleanValue(ranks > 1));
}

/// The values the switches' checkers last accepted. Each checker binds the simulator from
/// both without reading the other global value: NS_GLOBAL_VALUE runs a checker while the
/// global values are still being constructed, when the other may not exist yet.
struct Switches
{
    bool emulation = false;
    std::string partition;
};

Switches&
SwitchState()
{
    static Switches s;
    return s;
}

/// A checker of `Inner`'s type (a bool, a string) that also runs OnValue on every value
/// the inner checker accepts: a global value whose setting selects more (FastPathEmulation,
/// FastPathPartition).
class HookedChecker : public FastPathForwardingChecker
{
  public:
    using FastPathForwardingChecker::FastPathForwardingChecker;

    bool Check(const AttributeValue& value) const override
    {
        return FastPathForwardingChecker::Check(value) && OnValue(value);
    }

  protected:
    /// false refuses the value.
    virtual bool OnValue(const AttributeValue& value) const = 0;
};

/// FastPathPartition's checker: "" or i/K; with emulation on, K > 1 selects the simulator
/// that starts the processes' clocks together (the order of the two options is free).
class PartitionChecker : public HookedChecker
{
  public:
    PartitionChecker()
        : HookedChecker(MakeStringChecker())
    {
    }

  protected:
    bool OnValue(const AttributeValue& value) const override
    {
        auto s = dynamic_cast<const StringValue*>(&value);
        if (!s)
        {
            return false;
        }
        if (!s->Get().empty())
        {
            auto r = FastPathPartition::Parse(s->Get());
            if (!r.ok())
            {
                std::cerr << r.error().message << std::endl;
                return false;
            }
        }
        SwitchState().partition = s->Get();
        if (SwitchState().emulation)
        {
            BindRealtime(RanksOf(s->Get()));
        }
        return true;
    }
};

/// A bool checker that, when the value is set to true, also selects what emulation needs
/// (the realtime simulator, real checksums): the one switch of a script.
class EmulationChecker : public HookedChecker
{
  public:
    EmulationChecker()
        : HookedChecker(MakeBooleanChecker())
    {
    }

  protected:
    bool OnValue(const AttributeValue& value) const override
    {
        auto b = dynamic_cast<const BooleanValue*>(&value);
        if (b)
        {
            SwitchState().emulation = b->Get();
        }
        if (b && b->Get())
        {
            BindRealtime(RanksOf(SwitchState().partition));
            GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
        }
        return true;
    }
};

GlobalValue g_emulation("FastPathEmulation",
                        "Links of FastPathPointToPointHelper and segments of FastPathCsmaHelper "
                        "are emulated by fastpathd (true; also selects the realtime simulator "
                        "and checksums) or simulated by ns-3 (false)",
                        BooleanValue(false),
                        Ptr<const AttributeChecker>(new EmulationChecker(), false));
GlobalValue g_partition("FastPathPartition",
                        "This process's part of a run of several processes, i/K (rank i of "
                        "K); empty: from the launcher's environment (Open MPI's mpirun, PMI, "
                        "srun), else the only process",
                        StringValue(""),
                        Ptr<const AttributeChecker>(new PartitionChecker(), false));
GlobalValue g_socket("FastPathSocket",
                     "fastpathd's control socket (the emulating helpers)",
                     StringValue("/run/fastpathd/fastpathd.sock"),
                     MakeStringChecker());
GlobalValue g_hosts("FastPathHosts",
                    "A run over several hosts: the hosts file (one line per host in rank order: "
                    "HOST SOCKET PEER=INTERFACE...; see FastPathHostsFile). Process i talks to "
                    "the fastpathd of the i-th host (FastPathSocket is not used); empty: one "
                    "host",
                    StringValue(""),
                    MakeStringChecker());
GlobalValue g_follow("FastPathFollowInterval",
                     "How often the emulating helpers look for ns-3 interfaces of their links "
                     "and segments set down or up (Ipv4::SetDown tells no one), to hand the "
                     "change to fastpathd (0: never). Parameters set by Config::Set (DataRate, "
                     "Delay, queue MaxSize, error model) are handed at once, without looking",
                     TimeValue(MilliSeconds(2)),
                     MakeTimeChecker());
GlobalValue g_tag("FastPathTag",
                  "Prefix of the fastpathd nodes, links and segments the emulating helpers "
                  "create (1-12 of [A-Za-z0-9_.-]; empty: the program's name). Names with "
                  "this prefix are deleted at the first Install()",
                  StringValue(""),
                  MakeStringChecker());

} // namespace

namespace fastpathswitch
{

std::string
GlobalString(const std::string& name)
{
    // Fail-safe: a value read before it is constructed (static construction) is empty.
    StringValue v;
    return GlobalValue::GetValueByNameFailSafe(name, v) ? v.Get() : std::string();
}

std::string
TagOfProgram()
{
    std::string tag = GlobalString("FastPathTag");
    if (tag.empty())
    {
        std::ifstream("/proc/self/comm") >> tag;
    }
    std::string out;
    for (char c : tag)
    {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')
        {
            out += c;
        }
    }
    out = out.substr(0, 12);
    return out.empty() ? "ns3" : out;
}

} // namespace fastpathswitch

} // namespace ns3
