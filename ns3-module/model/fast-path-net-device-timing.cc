// SPDX-License-Identifier: GPL-2.0-only
// FastPathNetDevice's channel (fastpath/control_timing.h when timed): the send stamp on
// each frame written, and the read (on the process's receive thread) that takes each
// frame's arrival stamp and has the device deliver it at that simulator time. fastpathd's stamps are CLOCK_MONOTONIC; the realtime
// simulator's clock is the wall clock since its start: both are read together at each
// frame, so the mapping follows any step or slew of the wall clock.
#include "fast-path-net-device.h"

#include "ns3/log.h"
#include "ns3/realtime-simulator-impl.h"
#include "ns3/simulator.h"

#include "fastpath/control_timing.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <cstdlib>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathNetDeviceTiming");

namespace
{

uint64_t
MonotonicNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

/// fastpathd's clock minus the simulator's wall clock (ns): the monotonic clock read on both
/// sides of the simulator's, its midpoint taken, so a reading is off by at most half its
/// spread. An interrupt or softirq between the reads (several microseconds on a loaded
/// machine) or a preemption (milliseconds) would shift the midpoint, and a frame's send
/// stamp and its arrival are mapped by different readings: the tightest of a few readings
/// is taken when its spread is within kTightNs, else the last tight one is kept (the two
/// clocks move together but for the wall clock's slew and steps).
/// The mapping kept moves only when a tight reading differs from it by more than kTightNs
/// (a slew or step, not the readings' own spread): events at one simulator time get one
/// stamp on every device, so frames the model sends at the same time arrive at the same
/// time wherever their paths meet, and fastpathd orders them as the simulator does, not by
/// each reading's sub-microsecond error.
int64_t
ClockOffsetNs(RealtimeSimulatorImpl* rt)
{
    constexpr uint64_t kTightNs = 1000;
    constexpr int kReadings = 8;
    static std::atomic<int64_t> kept{INT64_MIN};
    int64_t best = 0;
    uint64_t bestSpread = UINT64_MAX;
    for (int i = 0; i < kReadings && bestSpread > kTightNs / 4; ++i)
    {
        const uint64_t a = MonotonicNs();
        const int64_t wall = rt->RealtimeNow().GetNanoSeconds();
        const uint64_t b = MonotonicNs();
        if (b - a < bestSpread)
        {
            bestSpread = b - a;
            best = int64_t(a + (b - a) / 2) - wall;
        }
    }
    const int64_t k = kept.load(std::memory_order_relaxed);
    if (bestSpread <= kTightNs)
    {
        if (k != INT64_MIN && std::llabs(best - k) <= int64_t(kTightNs))
        {
            return k;
        }
        kept.store(best, std::memory_order_relaxed);
        return best;
    }
    return k != INT64_MIN ? k : best;
}

} // namespace

bool
FastPathNetDevice::ReadChannel()
{
    // Frames read per wake-up of one channel: the others' wait at most this many frames.
    constexpr int kBatch = 32;
    RealtimeSimulatorImpl* rt = m_rt;
    for (int i = 0; i < kBatch; ++i)
    {
        auto* buf = static_cast<uint8_t*>(std::malloc(m_readBufferSize));
        fastpath::ControlStamp stamp;
        iovec iov[2] = {{&stamp, fastpath::kControlStampBytes}, {buf, m_readBufferSize}};
        msghdr msg{};
        // An untimed channel carries bare frames (as FdNetDevice's reader reads them).
        msg.msg_iov = m_channelTimed ? iov : iov + 1;
        msg.msg_iovlen = m_channelTimed ? 2 : 1;
        ssize_t len = recvmsg(m_channelFd, &msg, MSG_DONTWAIT);
        if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        {
            std::free(buf);
            return true;
        }
        if (len <= 0)
        {
            // End of the channel (or an error): as FdNetDevice's reader, stop reading.
            std::free(buf);
            NS_LOG_INFO("control channel of node " << m_nodeId << " ended: "
                                                   << (len < 0 ? std::strerror(errno) : "closed"));
            return false;
        }
        int64_t arrival = -1;
        if (m_channelTimed)
        {
            if (size_t(len) < fastpath::kControlStampBytes + 14)
            {
                // Not a stamped Ethernet frame: fastpathd never writes one.
                std::free(buf);
                m_malformedDrops.fetch_add(1, std::memory_order_relaxed);
                continue;
            }
            len -= fastpath::kControlStampBytes;
            if (stamp.time_ns != 0 && rt)
            {
                arrival = int64_t(stamp.time_ns) - ClockOffsetNs(rt);
            }
        }
        // The main thread takes every frame (timed or not) in the order read, so the
        // device's queue of received frames stays in delivery order.
        Simulator::ScheduleWithContext(m_nodeId,
                                       Time(0),
                                       &FastPathNetDevice::Arrived,
                                       this,
                                       buf,
                                       len,
                                       arrival);
    }
    return true;
}

void
FastPathNetDevice::Arrived(uint8_t* buf, ssize_t len, int64_t arrivalNs)
{
    if (m_stopped)
    {
        DropStopped(buf);
        return;
    }
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (arrivalNs >= 0)
    {
        if (arrivalNs >= now)
        {
            ++m_onTime;
            if (arrivalNs > now)
            {
                Simulator::Schedule(NanoSeconds(arrivalNs - now),
                                    &FastPathNetDevice::Deliver,
                                    this,
                                    buf,
                                    len);
                return;
            }
        }
        else
        {
            ++m_late;
            m_maxLatenessNs = std::max(m_maxLatenessNs, now - arrivalNs);
            NS_LOG_LOGIC("frame of " << len << " bytes " << (now - arrivalNs)
                                     << " ns after its arrival time");
        }
    }
    Deliver(buf, len);
}

void
FastPathNetDevice::Deliver(uint8_t* buf, ssize_t len)
{
    if (m_stopped)
    {
        // Held for its arrival time while the device stopped.
        DropStopped(buf);
        return;
    }
    // FdNetDevice queues it and forwards it up at the current simulator time (an event
    // scheduled from this thread takes the current time, not the wall clock).
    ReceiveCallback(buf, len);
}

ssize_t
FastPathNetDevice::Write(uint8_t* buffer, size_t length)
{
    ssize_t n;
    if (!m_channelTimed)
    {
        // FdNetDevice's write, on the device's own descriptor.
        n = ::write(m_channelFd, buffer, length);
    }
    else
    {
        // The send time: the simulator's time of this event on fastpathd's clock, however
        // late the simulator's thread runs it.
        fastpath::ControlStamp stamp;
        auto* rt =
            dynamic_cast<RealtimeSimulatorImpl*>(PeekPointer(Simulator::GetImplementation()));
        if (rt)
        {
            const int64_t sent = Simulator::Now().GetNanoSeconds() + ClockOffsetNs(rt);
            stamp.time_ns = sent > 0 ? uint64_t(sent) : 0;
        }
        iovec iov[2] = {{&stamp, fastpath::kControlStampBytes}, {buffer, length}};
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = 2;
        n = sendmsg(m_channelFd, &msg, MSG_NOSIGNAL);
        if (n >= 0)
        {
            n -= fastpath::kControlStampBytes;
        }
    }
    m_written = n > 0 ? length : 0;
    return n;
}

bool
FastPathNetDevice::GetTimedDelivery() const
{
    return m_timedDelivery;
}

uint64_t
FastPathNetDevice::GetDeliveryLeadNs() const
{
    const int64_t ns = m_deliveryLead.GetNanoSeconds();
    return ns > 0 ? uint64_t(ns) : 0;
}

void
FastPathNetDevice::SetChannelTimed(bool timed)
{
    m_channelTimed = timed;
}

bool
FastPathNetDevice::IsChannelTimed() const
{
    return m_channelTimed;
}

uint64_t
FastPathNetDevice::GetOnTimeReceived() const
{
    return m_onTime;
}

uint64_t
FastPathNetDevice::GetLateReceived() const
{
    return m_late;
}

Time
FastPathNetDevice::GetMaxLateness() const
{
    return NanoSeconds(m_maxLatenessNs);
}

} // namespace ns3
