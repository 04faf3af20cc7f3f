// SPDX-License-Identifier: GPL-2.0-only
// FastPathTraceWriter: the pcap and ascii trace files of one emulated device, written from
// the Ethernet frames fastpathd carried on its port, as PointToPointHelper and CsmaHelper
// write them for a simulated device.
#pragma once

#include "fast-path-device-traces.h"

#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief How the device a trace file stands for frames its packets.
 */
enum class FastPathTraceFraming
{
    PPP,      //!< PointToPointNetDevice: a 2-byte PPP header (pcap DLT_PPP)
    ETHERNET, //!< CsmaNetDevice: Ethernet header, padding to 46 bytes, FCS (pcap DLT_EN10MB)
};

/**
 * \ingroup fastpath
 * \brief Writes the trace files of one emulated device from the frames seen at its port.
 *
 * Each frame, as fastpathd carried it (Ethernet header first, no FCS), is framed as the
 * simulated device frames it and written with the time it was seen at the device:
 *
 * - pcap: the frame as the device's PromiscSniffer (promiscuous) or Sniffer sees it: PPP
 *   header and the IP packet; or Ethernet header, the packet, padding to 46 bytes and the
 *   Ethernet trailer (its FCS computed when checksums are enabled, else 0). A non-promiscuous
 *   Ethernet file holds what the device sent and what it received for itself (its address,
 *   broadcast, multicast).
 * - ascii: for a frame sent, a `+` (TxQueue/Enqueue) and a `-` (TxQueue/Dequeue) line, both
 *   with the time the frame entered fastpathd's link (its queue is in fastpathd); for a frame
 *   received (for the device itself on Ethernet), an `r` (MacRx) line. The packet is
 *   printed as ns-3 prints it: the device's header, the IPv4/IPv6 header, the UDP or TCP
 *   header, ICMPv4 echo, ARP, then `Payload (size=N)`. No `d` line: fastpathd counts the
 *   frames its links and segments drop (fpctl link show, fpctl segment show).
 *
 * A point-to-point device carries no ARP: ARP frames fastpathd's links carry between the
 * emulated nodes have no place in a PPP file and are counted as not representable.
 */
class FastPathTraceWriter
{
  public:
    /// A writer for `device` (its address filters a non-promiscuous Ethernet file).
    FastPathTraceWriter(Ptr<NetDevice> device, FastPathTraceFraming framing);

    /// Frames go to `file` too (sent and received ones; see the class for `promiscuous`).
    void AddPcap(Ptr<PcapFileWrapper> file, bool promiscuous);
    /// Frames go to `stream` as ascii lines; `context` is the device's Config path
    /// (/NodeList/N/DeviceList/I), or empty for lines without context (a per-device file).
    void AddAscii(Ptr<OutputStreamWrapper> stream, const std::string& context);

    /// Writes the frame `data[0..len)` seen at the device at `time`. False: the frame has no
    /// counterpart on the device (ARP or other non-IP on PPP, a runt), nothing written.
    bool Write(Time time, FastPathFrameDirection direction, const uint8_t* data, uint32_t len);

    /// The frame as the device frames it, bytes as on its wire (for pcap), or nullptr.
    static Ptr<Packet> Framed(FastPathTraceFraming framing, const uint8_t* data, uint32_t len);
    /// The same with the headers parsed, so that the packet prints as ns-3 prints it.
    static Ptr<Packet> Printable(FastPathTraceFraming framing, const uint8_t* data, uint32_t len);

    FastPathTraceFraming GetFraming() const;
    /// Frames written (to at least one file) and frames not representable on the device.
    uint64_t GetWritten() const;
    uint64_t GetUnrepresentable() const;

  private:
    struct Pcap
    {
        Ptr<PcapFileWrapper> file;
        bool promiscuous;
    };

    struct Ascii
    {
        Ptr<OutputStreamWrapper> stream;
        std::string context; //!< "" or the device's path
    };

    /// Whether a received Ethernet frame is for the device itself (non-promiscuous view).
    bool ForThisHost(const uint8_t* data, uint32_t len) const;
    std::string TypeName() const;

    Mac48Address m_address;
    FastPathTraceFraming m_framing;
    std::vector<Pcap> m_pcaps;
    std::vector<Ascii> m_asciis;
    uint64_t m_written = 0;
    uint64_t m_unrepresentable = 0;
};

} // namespace ns3
