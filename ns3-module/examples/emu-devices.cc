// SPDX-License-Identifier: GPL-2.0-only
#include "emu-devices.h"

#include "emu-socket.h"

#include "ns3/fd-net-device.h"
#include "ns3/mac48-address.h"

#include <cstdlib>
#include <iostream>

namespace ns3
{
namespace fastpathexamples
{

NetDeviceContainer
InstallEmulationDevices(const std::string& program,
                        Ptr<Node> node,
                        const std::vector<std::string>& interfaces,
                        uint16_t onlyUdpPort)
{
    NetDeviceContainer devices;
    for (const auto& ifname : interfaces)
    {
        std::array<uint8_t, 6> mac{};
        std::string why;
        int fd = OpenPacketSocket(ifname, mac, why, onlyUdpPort);
        if (fd < 0)
        {
            std::cerr << program << ": " << why << std::endl;
            std::exit(2);
        }
        Ptr<FdNetDevice> dev = CreateObject<FdNetDevice>();
        Mac48Address m;
        m.CopyFrom(mac.data());
        dev->SetAddress(m);
        dev->SetFileDescriptor(fd);
        node->AddDevice(dev);
        devices.Add(dev);
    }
    return devices;
}

} // namespace fastpathexamples
} // namespace ns3
