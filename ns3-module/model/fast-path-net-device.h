// SPDX-License-Identifier: GPL-2.0-only
// FastPathNetDevice: the FdNetDevice on a fastpathd port's control channel, which presents
// the channel of the link or segment it emulates, so that what ns-3 builds from channels
// (global routing's link-state database, Nix-vector routing's graph) sees the emulated
// network as it would see the simulated one; with a transmit queue paced at the link's rate
// (flow control for ns-3's traffic control) and a receive error model, as the stock devices.
#pragma once

#include "ns3/channel.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/fd-net-device.h"
#include "ns3/queue.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <atomic>
#include <cstdint>

namespace ns3
{

class RealtimeSimulatorImpl;

/**
 * \ingroup fastpath
 * \brief An FdNetDevice on a fastpathd port that may present a channel.
 *
 * FastPathHelper installs one per fastpathd port. Attached to a port alone (an interface
 * port, or an internal link given to FastPathHelper by name) it is a plain FdNetDevice:
 * GetChannel() is null. FastPathCsmaHelper puts one on each member of a segment, with the
 * segment's channel; FastPathPointToPointHelper makes one the engine of each end of a link
 * (FastPathPointToPointNetDevice, the device on the node, sends and receives through it).
 * The channel is the link's or segment's (a channel whose devices are the emulated devices
 * of all its ends); a link's end reports IsPointToPoint() as a PointToPointNetDevice does: Ipv4GlobalRoutingHelper then
 * describes the link with a point-to-point record, exactly as simulated. The frames still
 * are Ethernet frames (fastpathd's link ports have MAC addresses), so the device keeps
 * using ARP. The byte tags of the packets it sends are restored where they are
 * received (FastPathTagCarrier), so that FlowMonitor counts them as simulated.
 *
 * **Transmit queue.** The emulating helpers also give it a TxQueue (SetTxQueue()): what
 * ns-3 sends waits there and is written to fastpathd one frame at a time, each after the
 * previous one's serialization at the link's DataRate, as PointToPointNetDevice transmits.
 * A NetDeviceQueueInterface is aggregated and follows the queue (stopped when it is full,
 * woken when a frame leaves), so ns-3's traffic control works as simulated: a queue disc
 * installed on the device (TrafficControlHelper, or the default one Ipv4AddressHelper
 * installs) holds the backlog and drops by its own rules. The frames reach fastpathd's
 * link already spaced at the link's rate, computed as fastpathd computes it (the Ethernet
 * frame plus the link's per-frame overhead): its shaper finds the link idle and only adds
 * the delay, so ns-3's queues are the only standing queue of ns-3's traffic; frames
 * fastpathd forwards wait in fastpathd's drop-tail queue instead.
 *
 * **Receive errors.** The attribute ReceiveErrorModel drops frames arriving at the device,
 * as the stock devices' does. A RateErrorModel counting packets on a point-to-point link's
 * device is handed to fastpathd as the loss of the direction into this device (it then
 * drops forwarded frames too); any other model drops, in this device, the frames that
 * arrive for ns-3 (PhyRxDrop fires for each, with the frame as the stock device frames it).
 * A ListErrorModel (packet uids, which a frame crossing fastpathd does not keep) is
 * refused.
 *
 * **Timing.** With TimedDelivery (the default), the device opens its channel timed: each
 * frame it writes carries its send time in simulator time (mapped to fastpathd's clock),
 * which fastpathd takes as the frame's sending time on its link, however late the
 * simulator's thread got to write it; each frame fastpathd hands over carries the time the
 * link model has it arrive, and fastpathd may hand it over up to DeliveryLead before that.
 * The device delivers it up (MacRx, sniffers, the node's stack) at exactly that simulator
 * time; one that comes after its time is delivered at once and counted late
 * (GetLateReceived(), GetMaxLateness()). So the wake-ups of the threads a frame crosses
 * between two ns-3 nodes add no delay while they stay under the lead.
 */
class FastPathNetDevice : public FdNetDevice
{
  public:
    static TypeId GetTypeId();
    FastPathNetDevice();

    /// The channel GetChannel() returns (nullptr: none).
    void SetChannel(Ptr<Channel> channel);
    /// Whether the device reports IsPointToPoint() (a point-to-point link's end).
    void SetPointToPoint(bool pointToPoint);

    /**
     * Transmits through `queue`, paced at the DataRate attribute of `rateHolder` (the
     * FastPathPointToPointNetDevice this device is the engine of, or the segment's channel;
     * read at each frame, so
     * Config::Set of it applies at once), each frame counted as fastpathd's link counts it:
     * its Ethernet frame's length, at least `mpuBytes`, plus `overheadBytes` (may be
     * negative: a point-to-point link counts PPP's 2 bytes, not Ethernet's 14). Aggregates a NetDeviceQueueInterface
     * following `queue`. Call once, before the device sends.
     */
    void SetTxQueue(Ptr<Queue<Packet>> queue,
                    Ptr<Object> rateHolder,
                    int32_t overheadBytes,
                    uint32_t mpuBytes);
    Ptr<Queue<Packet>> GetQueue() const;

    void SetReceiveErrorModel(Ptr<ErrorModel> model);
    Ptr<ErrorModel> GetReceiveErrorModel() const;
    /// Whether the receive error model is applied by fastpathd (on the link), not here.
    bool IsReceiveErrorModelOnLink() const;
    /// Frames the receive error model dropped in this device.
    uint64_t GetReceiveErrorDrops() const;

    Ptr<Channel> GetChannel() const override;
    bool IsPointToPoint() const override;
    /// As FdNetDevice's, keeping the packet's byte tags (FastPathTagCarrier); with a
    /// TxQueue, through it.
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    /// As FdNetDevice's; the packets handed to `cb` carry the byte tags they were sent with.
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    ssize_t Write(uint8_t* buffer, size_t length) override;

    /**
     * The device's control channel (FdNetDevice's method of that name hidden: the device
     * owns the descriptor, FdNetDevice's per-device reader thread never starts). Read by
     * the process's one receive thread (FastPathReceiveThread) from the device's start
     * (the Start attribute) to its Stop attribute or its disposal, which close it.
     */
    void SetFileDescriptor(int fd);
    /// Replaces a started device's control channel (after fastpathd restarted): the old
    /// one is no longer read and is closed, the new one is read from now on.
    void ReplaceFileDescriptor(int fd);
    /**
     * As FdNetDevice's Start(): the device starts `tStart` from now (its channel is read,
     * its link comes up) instead of at its Start attribute; called before the device is
     * initialized (in the script, before the simulation runs), it sets that attribute.
     * FdNetDevice's own method (not virtual: call this one through a
     * Ptr<FastPathNetDevice>) does nothing here, the device keeping the descriptor to
     * itself.
     */
    void Start(Time tStart);
    /**
     * As FdNetDevice's Stop(): the device stops `tStop` from now (its channel closed, the
     * frames read and not yet delivered dropped and counted, GetStoppedDrops()) instead of
     * at its Stop attribute (set, before the device is initialized). A stopped device does
     * not start again (its channel is closed, as FdNetDevice's descriptor is).
     */
    void Stop(Time tStop);
    /// Up from the device's start (as FdNetDevice's).
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;

    /// Whether the device asks for a timed channel (TimedDelivery) and its lead
    /// (DeliveryLead), in nanoseconds.
    bool GetTimedDelivery() const;
    uint64_t GetDeliveryLeadNs() const;
    /// The channel set by SetFileDescriptor() next is timed (fastpathd confirmed it), or
    /// not. Before the device starts.
    void SetChannelTimed(bool timed);
    bool IsChannelTimed() const;
    /// Timed frames received: delivered at their arrival time (they came early or on
    /// time), and after it (late), with the largest lateness seen.
    uint64_t GetOnTimeReceived() const;
    uint64_t GetLateReceived() const;
    Time GetMaxLateness() const;
    /**
     * Frames read from the control channel and dropped because the device had stopped (its
     * Stop attribute) or was disposed before they were forwarded up: those read and not
     * yet delivered (as FdNetDevice drops its queue of frames read when it stops), and
     * those read afterwards. Frames fastpathd sends before the device starts wait on the
     * channel and are delivered at the start: none is dropped for that.
     */
    uint64_t GetStoppedDrops() const;
    /// Messages on a timed channel too short to hold a stamp and an Ethernet header
    /// (fastpathd writes none): dropped.
    uint64_t GetMalformedDrops() const;

  protected:
    void DoInitialize() override;
    void DoDispose() override;

  private:
    /// Starts reading the channel (the receive thread) and brings the link up.
    void StartChannel();
    /// Stops reading the channel and closes it (the frames read stay, for a new channel).
    void CloseChannel();
    /// The device's stop (Stop attribute, disposal): closes the channel; the frames read
    /// and not yet forwarded up, and any that reach the device later, are dropped and
    /// counted (GetStoppedDrops).
    void StopChannel();
    /// Main thread: a frame that reached a stopped device, freed and counted.
    void DropStopped(uint8_t* buf);
    /// Receive thread: reads the frames waiting on the channel, a bounded batch, and
    /// schedules each in the device's context, in order. False: the channel ended.
    bool ReadChannel();
    /// Main thread: a frame the timed reader took, to deliver at `arrivalNs` (simulator
    /// time; negative: now).
    void Arrived(uint8_t* buf, ssize_t len, int64_t arrivalNs);
    /// Main thread: hands the frame to FdNetDevice (ForwardUp at the current time).
    void Deliver(uint8_t* buf, ssize_t len);

    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& source);
    /// Writes the queue's head frame to fastpathd and schedules the next at its end.
    void TransmitNext();
    /// The received packet as the stock device would hand it to its error model.
    Ptr<Packet> AsStockFrame(Ptr<const Packet> packet, uint16_t protocol) const;

    NetDevice::ReceiveCallback m_rx;
    Ptr<Channel> m_channel;
    bool m_pointToPoint = false;

    Ptr<Queue<Packet>> m_queue;
    Ptr<Object> m_rateHolder;
    int32_t m_overhead = 0;
    uint32_t m_mpu = 0;
    bool m_transmitting = false;
    size_t m_written = 0; //!< bytes of the last frame written to fastpathd
    EventId m_txEnd;

    Ptr<ErrorModel> m_receiveErrorModel;
    bool m_errorModelOnLink = false;
    uint64_t m_receiveErrorDrops = 0;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;

    bool m_timedDelivery = true;
    Time m_deliveryLead;
    bool m_channelTimed = false;
    int m_channelFd = -1;
    uint64_t m_receiveId = 0; //!< the channel's registration with the receive thread
    uint32_t m_nodeId = 0;    //!< the context frames are scheduled in (read at start)
    uint32_t m_readBufferSize = 0;
    RealtimeSimulatorImpl* m_rt = nullptr; //!< timed channels' clock (read at start)
    bool m_linkUp = false;
    bool m_stopped = false; //!< stopped or disposed: frames that reach it are dropped
    uint64_t m_stoppedDrops = 0;
    std::atomic<uint64_t> m_malformedDrops{0}; //!< counted on the receive thread
    TracedCallback<> m_linkChange;
    EventId m_startEvent;
    EventId m_stopEvent;
    bool m_initialized = false; //!< DoInitialize() ran: Start()/Stop() schedule at once
    bool m_stopAtStart = false; //!< Stop(0) before the initialization (attribute 0: never)
    uint64_t m_onTime = 0;
    uint64_t m_late = 0;
    int64_t m_maxLatenessNs = 0;
};

} // namespace ns3
