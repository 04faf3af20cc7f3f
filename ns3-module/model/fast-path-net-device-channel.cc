// SPDX-License-Identifier: GPL-2.0-only
// FastPathNetDevice's control channel and its life: the device owns the descriptor, so
// FdNetDevice's start never makes its reader (a thread and a select() per device); the
// process's one receive thread reads every device's channel instead. Start and Stop follow
// FdNetDevice's attributes of those names; the link comes up at start, as FdNetDevice's.
#include "fast-path-net-device.h"
#include "fast-path-receive-thread.h"

#include "ns3/log.h"
#include "ns3/realtime-simulator-impl.h"
#include "ns3/simulator.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathNetDeviceChannel");

void
FastPathNetDevice::SetFileDescriptor(int fd)
{
    // As FdNetDevice's: set once, a valid descriptor only.
    if (m_channelFd == -1 && fd > 0)
    {
        m_channelFd = fd;
    }
}

void
FastPathNetDevice::ReplaceFileDescriptor(int fd)
{
    const bool started = m_receiveId != 0 || m_linkUp;
    // The frames read from the old channel and not yet forwarded up are still the link's:
    // they are delivered, not dropped as at a stop.
    CloseChannel();
    SetFileDescriptor(fd);
    if (started)
    {
        StartChannel();
    }
}

void
FastPathNetDevice::DoInitialize()
{
    // FdNetDevice's own start finds no descriptor and does nothing.
    FdNetDevice::DoInitialize();
    TimeValue start;
    TimeValue stop;
    GetAttribute("Start", start);
    GetAttribute("Stop", stop);
    m_initialized = true;
    m_startEvent = Simulator::Schedule(start.Get(), &FastPathNetDevice::StartChannel, this);
    if (stop.Get() != Seconds(0) || m_stopAtStart)
    {
        m_stopEvent = Simulator::Schedule(stop.Get(), &FastPathNetDevice::StopChannel, this);
    }
}

void
FastPathNetDevice::Start(Time tStart)
{
    NS_LOG_FUNCTION(this << tStart);
    if (!m_initialized)
    {
        // Scheduled from the initialization, as the attribute is (FdNetDevice's would
        // start the device twice, at tStart and at its Start attribute).
        SetAttribute("Start", TimeValue(tStart));
        return;
    }
    m_startEvent.Cancel();
    m_startEvent = Simulator::Schedule(tStart, &FastPathNetDevice::StartChannel, this);
}

void
FastPathNetDevice::Stop(Time tStop)
{
    NS_LOG_FUNCTION(this << tStop);
    if (!m_initialized)
    {
        SetAttribute("Stop", TimeValue(tStop));
        m_stopAtStart = tStop.IsZero();
        return;
    }
    m_stopEvent.Cancel();
    m_stopEvent = Simulator::Schedule(tStop, &FastPathNetDevice::StopChannel, this);
}

void
FastPathNetDevice::StartChannel()
{
    if (m_channelFd == -1)
    {
        NS_LOG_DEBUG("no control channel: the device does not start");
        return;
    }
    // Taken here, in the simulator's thread, for the receive thread.
    m_nodeId = GetNode() ? GetNode()->GetId() : 0;
    // As FdNetDevice's reader: the MTU plus an Ethernet header and an LLC/SNAP header.
    m_readBufferSize = GetMtu() + 22;
    m_rt = m_channelTimed ? dynamic_cast<RealtimeSimulatorImpl*>(
                                PeekPointer(Simulator::GetImplementation()))
                          : nullptr;
    if (m_channelTimed)
    {
        NS_LOG_INFO("timed channel, lead " << m_deliveryLead.As(Time::US)
                                           << (m_rt ? "" : "; not a realtime simulator: frames "
                                                           "are delivered when read"));
    }
    m_stopped = false;
    if (m_receiveId == 0)
    {
        m_receiveId = FastPathReceiveThread::Get().Add(m_channelFd, [this]() {
            return ReadChannel();
        });
        NS_ABORT_MSG_IF(m_receiveId == 0,
                        "FastPathNetDevice: cannot watch control channel " << m_channelFd
                                                                          << ": "
                                                                          << std::strerror(errno));
    }
    if (!m_linkUp)
    {
        m_linkUp = true;
        m_linkChange();
    }
}

void
FastPathNetDevice::CloseChannel()
{
    FastPathReceiveThread::Get().Remove(m_receiveId);
    m_receiveId = 0;
    if (m_channelFd != -1)
    {
        ::close(m_channelFd);
        m_channelFd = -1;
    }
}

void
FastPathNetDevice::StopChannel()
{
    CloseChannel();
    m_stopped = true;
    // As FdNetDevice's stop: the frames read and not yet forwarded up are dropped (here
    // counted); their ForwardUp events find the queue empty.
    uint64_t dropped = 0;
    {
        std::lock_guard<std::mutex> lock(m_pendingReadMutex);
        while (!m_pendingQueue.empty())
        {
            FreeBuffer(m_pendingQueue.front().first);
            m_pendingQueue.pop();
            ++dropped;
        }
    }
    m_stoppedDrops += dropped;
    if (dropped > 0)
    {
        NS_LOG_INFO("stopped: dropped " << dropped << " frames read and not forwarded up");
    }
}

void
FastPathNetDevice::DropStopped(uint8_t* buf)
{
    // Read before the device stopped, scheduled and not yet delivered: the device no
    // longer takes frames (as FdNetDevice, whose stop drops what it read).
    std::free(buf);
    ++m_stoppedDrops;
    NS_LOG_LOGIC("a frame reached the stopped device: dropped");
}

uint64_t
FastPathNetDevice::GetStoppedDrops() const
{
    return m_stoppedDrops;
}

uint64_t
FastPathNetDevice::GetMalformedDrops() const
{
    return m_malformedDrops.load(std::memory_order_relaxed);
}

bool
FastPathNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
FastPathNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChange.ConnectWithoutContext(callback);
}

} // namespace ns3
