// SPDX-License-Identifier: GPL-2.0-only
#include "emu-socket.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ns3
{
namespace fastpathexamples
{

/// Opens an AF_PACKET socket bound to `ifname` (promiscuous, own transmissions ignored).
/// Returns the fd, or -1 with `why` set.
int
OpenPacketSocket(const std::string& ifname,
                 std::array<uint8_t, 6>& mac,
                 std::string& why,
                 uint16_t onlyUdpPort)
{
    int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (fd >= 0 && onlyUdpPort != 0)
    {
        // tcpdump -dd 'arp or (ip and udp dst port 698)', port patched in below
        sock_filter code[] = {
            {0x28, 0, 0, 0x0000000c}, {0x15, 8, 0, 0x00000806}, {0x15, 0, 8, 0x00000800},
            {0x30, 0, 0, 0x00000017}, {0x15, 0, 6, 0x00000011}, {0x28, 0, 0, 0x00000014},
            {0x45, 4, 0, 0x00001fff}, {0xb1, 0, 0, 0x0000000e}, {0x48, 0, 0, 0x00000010},
            {0x15, 0, 1, 0x000002ba}, {0x6, 0, 0, 0x00040000},  {0x6, 0, 0, 0x00000000},
        };
        code[9].k = onlyUdpPort;
        sock_fprog prog{static_cast<unsigned short>(sizeof(code) / sizeof(code[0])), code};
        if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
        {
            why = std::string("SO_ATTACH_FILTER: ") + std::strerror(errno);
            ::close(fd);
            return -1;
        }
    }
    if (fd < 0)
    {
        why = std::string("socket(AF_PACKET): ") + std::strerror(errno) +
              (errno == EPERM ? " (plain emulation nodes need CAP_NET_RAW: run as root)" : "");
        return -1;
    }
    unsigned idx = if_nametoindex(ifname.c_str());
    if (idx == 0)
    {
        why = "no interface '" + ifname + "' in this network namespace";
        ::close(fd);
        return -1;
    }
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = static_cast<int>(idx);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) < 0)
    {
        why = "bind(AF_PACKET, " + ifname + "): " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    packet_mreq mr{};
    mr.mr_ifindex = static_cast<int>(idx);
    mr.mr_type = PACKET_MR_PROMISC;
    ::setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
    int one = 1;
    // Without this the node would receive its own frames back (Linux >= 4.20).
    ::setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    if (::ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
    {
        why = "SIOCGIFHWADDR " + ifname + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    std::memcpy(mac.data(), ifr.ifr_hwaddr.sa_data, 6);
    return fd;
}

} // namespace fastpathexamples
} // namespace ns3
