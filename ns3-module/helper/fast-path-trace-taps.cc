// SPDX-License-Identifier: GPL-2.0-only
#include "ns3/fast-path-trace-taps.h"

#include "ns3/fast-path-device-traces.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-trace-writer.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/realtime-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

#include "fastpath/capture_types.h"
#include "fastpath/ctrl/client.h"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathTraceTaps");

namespace
{

int64_t
RealtimeNs()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000ll + ts.tv_nsec;
}

/// One traced device: its port in fastpathd, its files, its capture.
struct Tap
{
    Ptr<NetDevice> device;
    std::string fpNode;
    std::string port;
    std::unique_ptr<FastPathTraceWriter> writer;
    uint64_t captureId = 0;
    bool started = false;
    bool done = false;
    uint64_t dropped = 0; //!< the capture's count so far (fastpathd's ring was full)
};

/// The taps of one emulated simulation: a connection of their own to fastpathd (its
/// reader thread waits on it, the simulation thread never does), the batches handed over.
class Session
{
  public:
    static Session& Get(const std::string& who);
    static Session* Find();

    /// The tap of `nd` (created and started on first use).
    Tap& TapOf(const std::string& who, Ptr<NetDevice> nd, FastPathTraceFraming framing);
    FastPathTraceTaps::Counters Counters() const;

  private:
    explicit Session(FastPathEmulation& e);
    void Start(const std::string& who, Tap& tap);
    /// Time 0: the clock's mapping, the taps of a partitioned run, the reader thread.
    void OnStart();
    void Read();
    /// In the simulation: writes the batches handed over so far.
    void Drain();
    void Write(std::deque<fastpath::ctrl::CaptureBatch>& batches, bool last);
    /// At Simulator::Destroy, before the links go: stops the taps, writes their last frames.
    void Finish();

    FastPathEmulation& m_emulation;
    std::unique_ptr<fastpath::ctrl::Client> m_client;
    std::vector<std::unique_ptr<Tap>> m_taps;
    std::map<uint64_t, Tap*> m_byCapture;
    int64_t m_offsetNs = 0; //!< simulator time = fastpathd's (CLOCK_REALTIME) + this
    bool m_running = false;
    std::thread m_reader;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex; //!< guards m_pending, m_drainScheduled, m_readError
    std::deque<fastpath::ctrl::CaptureBatch> m_pending;
    bool m_drainScheduled = false;
    std::string m_readError;
    FastPathTraceTaps::Counters m_counters;
};

std::unique_ptr<Session> g_session;
FastPathTraceTaps::Counters g_lastCounters;

Session*
Session::Find()
{
    return g_session.get();
}

Session&
Session::Get(const std::string& who)
{
    FastPathEmulation* e = FastPathEmulation::Find();
    if (g_session && e && &g_session->m_emulation == e)
    {
        return *g_session;
    }
    if (!e)
    {
        FastPathEmulation::Refuse(who + ": the device is emulated, but not by this "
                                        "simulation's emulating helpers: nothing can tap its "
                                        "frames");
    }
    g_session.reset(new Session(*e));
    return *g_session;
}

Session::Session(FastPathEmulation& e)
    : m_emulation(e)
{
    Session* self = this;
    // Before the links' and segments' cleanups: the taps' last frames are read from
    // fastpathd while their ports exist.
    e.AddCleanup(
        [self]() {
            self->Finish();
            g_lastCounters = self->Counters();
            if (g_session.get() == self)
            {
                g_session.reset();
            }
        },
        true);
    Simulator::ScheduleNow([self]() { self->OnStart(); });
}

Tap&
Session::TapOf(const std::string& who, Ptr<NetDevice> nd, FastPathTraceFraming framing)
{
    for (auto& t : m_taps)
    {
        if (t->device == nd)
        {
            return *t;
        }
    }
    auto tap = std::make_unique<Tap>();
    tap->device = nd;
    const std::string path = "/NodeList/" + std::to_string(nd->GetNode()->GetId()) +
                             "/DeviceList/" + std::to_string(nd->GetIfIndex());
    if (m_running)
    {
        // The taps' connection is the reader thread's once the simulation runs.
        FastPathEmulation::Refuse(who + ": device " + path +
                                  " is emulated and the simulation runs: enable its tracing "
                                  "before Simulator::Run()");
    }
    if (!m_emulation.PortOf(nd, tap->fpNode, tap->port))
    {
        FastPathEmulation::Refuse(who + ": device " + path +
                                  " is emulated, but by no port this simulation's emulating "
                                  "helpers created: nothing can tap its frames");
    }
    tap->writer = std::make_unique<FastPathTraceWriter>(nd, framing);
    // A script's Config::Connect on the stand-in's trace sources is fed from the same frames.
    FastPathDeviceTraces::SetObserved(nd);
    m_taps.push_back(std::move(tap));
    Tap& t = *m_taps.back();
    if (!m_emulation.IsPartitioned())
    {
        // Tapped now: nothing the port carries from time 0 on is missed.
        Start(who, t);
    }
    return t;
}

void
Session::Start(const std::string& who, Tap& tap)
{
    const std::string path = "/NodeList/" + std::to_string(tap.device->GetNode()->GetId()) +
                             "/DeviceList/" + std::to_string(tap.device->GetIfIndex());
    const std::string where = " (fastpathd node " + tap.fpNode + ", port " + tap.port + ")";
    if (!m_client)
    {
        auto c = fastpath::ctrl::Client::connect(m_emulation.Socket());
        if (!c.ok())
        {
            FastPathEmulation::Refuse(who + ": cannot connect to fastpathd at " +
                                      m_emulation.Socket() + " to tap device " + path + ": " +
                                      c.error().message);
        }
        m_client = std::move(c.value());
    }
    fastpath::CaptureSpec spec;
    spec.target = tap.port;
    spec.node = tap.fpNode;
    // Whole frames: the device's MTU, its Ethernet header and a VLAN tag.
    spec.snaplen = std::max<uint32_t>(fastpath::kCaptureMinSnaplen,
                                      std::min<uint32_t>(fastpath::kCaptureMaxSnaplen,
                                                         tap.device->GetMtu() + 18));
    auto info = m_client->startCapture(spec);
    if (!info.ok())
    {
        const auto& err = info.error();
        FastPathEmulation::Refuse(
            who + ": cannot tap device " + path + where + ": " + err.message +
            (err.code == -ENOSYS ? " (fastpathd before protocol 1.6 has no packet capture: "
                                   "upgrade it)"
             : err.code == -ENOSPC
                 ? " (each traced device takes one of fastpathd's captures: trace fewer "
                   "devices, e.g. EnablePcap on chosen devices instead of EnablePcapAll)"
                 : ""));
    }
    if (info.value().description.rfind("port ", 0) != 0)
    {
        // The port shares its name with a link or segment, which the capture took instead.
        (void)m_client->stopCapture(info.value().id);
        FastPathEmulation::Refuse(who + ": cannot tap device " + path + where +
                                  " alone: fastpathd took the name for " +
                                  info.value().description);
    }
    tap.captureId = info.value().id;
    tap.started = true;
    m_byCapture[tap.captureId] = &tap;
    m_counters.devices++;
    NS_LOG_INFO("tracing " << path << ": " << info.value().description << ", capture "
                           << tap.captureId);
}

void
Session::OnStart()
{
    // fastpathd stamps frames with CLOCK_REALTIME; the realtime simulator's clock is the
    // wall clock since time 0: one offset maps the first onto the second.
    Ptr<RealtimeSimulatorImpl> rt = DynamicCast<RealtimeSimulatorImpl>(Simulator::GetImplementation());
    const int64_t sim = rt ? rt->RealtimeNow().GetNanoSeconds() : Simulator::Now().GetNanoSeconds();
    m_offsetNs = sim - RealtimeNs();
    for (auto& t : m_taps)
    {
        if (!t->started && FastPathEmulation::IsLocalNode(t->device->GetNode()))
        {
            Start("FastPath tracing", *t);
        }
    }
    if (!m_client)
    {
        return;
    }
    m_running = true;
    m_reader = std::thread([this]() { Read(); });
}

void
Session::Read()
{
    while (!m_stop.load())
    {
        auto b = m_client->nextCaptureBatch(50);
        if (!b.ok())
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_readError = b.error().message;
            return;
        }
        if (!b.value())
        {
            continue;
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        m_pending.push_back(std::move(*b.value()));
        if (!m_drainScheduled)
        {
            m_drainScheduled = true;
            // The realtime simulator takes events from other threads (as FdNetDevice's
            // reader does).
            Simulator::ScheduleWithContext(Simulator::NO_CONTEXT, Seconds(0), [this]() {
                Drain();
            });
        }
    }
}

void
Session::Drain()
{
    std::deque<fastpath::ctrl::CaptureBatch> batches;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::swap(batches, m_pending);
        m_drainScheduled = false;
    }
    Write(batches, false);
}

void
Session::Write(std::deque<fastpath::ctrl::CaptureBatch>& batches, bool last)
{
    struct Record
    {
        int64_t time;
        Tap* tap;
        const fastpath::CapturedFrame* frame;
    };
    std::vector<Record> records;
    for (const auto& b : batches)
    {
        auto it = m_byCapture.find(b.capture_id);
        if (it == m_byCapture.end())
        {
            continue;
        }
        Tap* tap = it->second;
        tap->dropped = std::max(tap->dropped, b.dropped);
        tap->done = tap->done || b.done;
        for (const auto& f : b.frames)
        {
            records.push_back({int64_t(f.time_ns) + m_offsetNs, tap, &f});
        }
    }
    std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
        return a.time < b.time;
    });
    const int64_t end = Simulator::Now().GetNanoSeconds();
    for (const auto& r : records)
    {
        ++m_counters.frames;
        // Before time 0 nothing of the simulation ran; after its last event (the last
        // hand-over, at Simulator::Destroy) a simulated device would have carried nothing.
        if (r.time < 0 || (last && r.time > end))
        {
            ++m_counters.outsideRun;
            continue;
        }
        const auto dir = r.frame->where == fastpath::CaptureWhere::kTx
                             ? FastPathFrameDirection::TX
                             : FastPathFrameDirection::RX;
        const auto* data = reinterpret_cast<const uint8_t*>(r.frame->data.data());
        const auto len = uint32_t(r.frame->data.size());
        if (r.tap->writer->Write(NanoSeconds(r.time), dir, data, len))
        {
            ++m_counters.written;
        }
        else
        {
            ++m_counters.unrepresentable;
        }
        if (!last)
        {
            FastPathDeviceTraces::Observe(r.tap->device, dir, Create<Packet>(data, len));
        }
    }
}

void
Session::Finish()
{
    if (m_running)
    {
        m_stop.store(true);
        m_reader.join();
        m_running = false;
    }
    std::deque<fastpath::ctrl::CaptureBatch> batches;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::swap(batches, m_pending);
    }
    if (m_client)
    {
        size_t open = 0;
        for (auto& t : m_taps)
        {
            if (t->started && !t->done && m_client->stopCapture(t->captureId).ok())
            {
                ++open;
            }
        }
        // Each stopped capture ends with a last batch (done).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (open > 0 && std::chrono::steady_clock::now() < deadline)
        {
            auto b = m_client->nextCaptureBatch(200);
            if (!b.ok())
            {
                m_readError = b.error().message;
                break;
            }
            if (!b.value())
            {
                continue;
            }
            auto it = m_byCapture.find(b.value()->capture_id);
            if (b.value()->done && it != m_byCapture.end() && !it->second->done)
            {
                --open;
            }
            batches.push_back(std::move(*b.value()));
        }
    }
    Write(batches, true);
    for (auto& t : m_taps)
    {
        m_counters.droppedReaderSlow += t->dropped;
        FastPathDeviceTraces::SetObserved(t->device, false);
    }
    if (!m_readError.empty())
    {
        std::cerr << "FastPath tracing: reading the taps stopped: " << m_readError
                  << "; the trace files end there" << std::endl;
    }
    if (m_counters.droppedReaderSlow > 0)
    {
        std::cerr << "FastPath tracing: " << m_counters.droppedReaderSlow
                  << " frame(s) fastpathd carried on traced devices are missing from the trace "
                     "files: the taps' rings were full (the simulation read them too slowly)"
                  << std::endl;
    }
    m_client.reset();
}

FastPathTraceTaps::Counters
Session::Counters() const
{
    return m_counters;
}

/// The framing of a stand-in type; false: not one the taps write.
bool
FramingOf(TypeId deviceType, FastPathTraceFraming& framing)
{
    if (deviceType.GetName() == "ns3::PointToPointNetDevice")
    {
        framing = FastPathTraceFraming::PPP;
        return true;
    }
    if (deviceType.GetName() == "ns3::CsmaNetDevice")
    {
        framing = FastPathTraceFraming::ETHERNET;
        return true;
    }
    return false;
}

/// `nd` is an emulated device (an FdNetDevice is, or is aggregated to it) presenting a
/// `deviceType` (itself, or a stand-in aggregated to it).
bool
IsEmulated(Ptr<NetDevice> nd, TypeId deviceType)
{
    return nd->GetObject<FdNetDevice>() && nd->GetObject<Object>(deviceType);
}

} // namespace

bool
FastPathTraceTaps::EnablePcap(const std::string& who,
                              Ptr<NetDevice> nd,
                              TypeId deviceType,
                              const std::string& prefix,
                              bool promiscuous,
                              bool explicitFilename)
{
    FastPathTraceFraming framing = FastPathTraceFraming::PPP;
    if (!IsEmulated(nd, deviceType) || !FramingOf(deviceType, framing))
    {
        return false;
    }
    Tap& tap = Session::Get(who).TapOf(who, nd, framing);
    PcapHelper pcap;
    // Named after the emulated device (its node, its index or Names), as the simulated
    // device of the same node and index is.
    const std::string file = explicitFilename ? prefix : pcap.GetFilenameFromDevice(prefix, nd);
    tap.writer->AddPcap(pcap.CreateFile(file, std::ios::out,
                                        framing == FastPathTraceFraming::PPP
                                            ? PcapHelper::DLT_PPP
                                            : PcapHelper::DLT_EN10MB),
                        promiscuous);
    return true;
}

bool
FastPathTraceTaps::EnableAscii(const std::string& who,
                               Ptr<NetDevice> nd,
                               TypeId deviceType,
                               Ptr<OutputStreamWrapper> stream,
                               const std::string& prefix,
                               bool explicitFilename)
{
    FastPathTraceFraming framing = FastPathTraceFraming::PPP;
    if (!IsEmulated(nd, deviceType) || !FramingOf(deviceType, framing))
    {
        return false;
    }
    // The packets print their headers (as the stock helpers enable it).
    Packet::EnablePrinting();
    Tap& tap = Session::Get(who).TapOf(who, nd, framing);
    if (stream)
    {
        tap.writer->AddAscii(stream,
                             "/NodeList/" + std::to_string(nd->GetNode()->GetId()) +
                                 "/DeviceList/" + std::to_string(nd->GetIfIndex()));
        return true;
    }
    AsciiTraceHelper ascii;
    const std::string file = explicitFilename ? prefix : ascii.GetFilenameFromDevice(prefix, nd);
    tap.writer->AddAscii(ascii.CreateFileStream(file), "");
    return true;
}

void
FastPathTraceTaps::ObserveConnected()
{
    const std::string who = "FastPath trace sources";
    for (Ptr<NetDevice> nd : FastPathDeviceTraces::Unobserved())
    {
        const bool p2p = nd->GetObject<PointToPointNetDevice>() != nullptr;
        Session::Get(who).TapOf(who,
                                nd,
                                p2p ? FastPathTraceFraming::PPP : FastPathTraceFraming::ETHERNET);
    }
}

FastPathTraceTaps::Counters
FastPathTraceTaps::GetCounters()
{
    Session* s = Session::Find();
    return s ? s->Counters() : g_lastCounters;
}

} // namespace ns3
