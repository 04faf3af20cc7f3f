// SPDX-License-Identifier: GPL-2.0-only
// fp-ns3-fdfwd: the "traditional ns-3 emulation" baseline of the benchmark. An ns-3 3.37
// program (C++17: Debian's ns-3 headers do not compile as C++20) whose router forwards
// in the simulator: one FdNetDevice per real interface, each given an AF_PACKET socket
// opened here (Debian's EmuFdNetDeviceHelper looks for its creator binary at a path the
// package does not install), realtime simulator, checksums on, the interfaces' own MACs.
// With --routers N > 1 the simulator holds a line of N routers joined by 1 Gbit/s,
// zero-delay point-to-point links (the thesis's multiple-node emulation, Section 5.3).
// Kernel IP must be disabled on the interfaces (the harness removes their addresses) so
// that only ns-3 answers ARP and forwards.
// ns-3 first: <linux/if_packet.h> defines PACKET_HOST & co. as macros, which would
// break ns3::NetDevice::PacketType.
#include "ns3/core-module.h"
#include "ns3/fd-net-device-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

using namespace ns3;

namespace {

int openPacketSocket(const std::string& ifname, Mac48Address* mac) {
  int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
  if (fd < 0) {
    std::fprintf(stderr, "fp-ns3-fdfwd: socket(AF_PACKET): %s (run as root)\n",
                 std::strerror(errno));
    return -1;
  }
  ifreq ifr{};
  std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname.c_str());
  if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
    std::fprintf(stderr, "fp-ns3-fdfwd: no interface '%s' here\n", ifname.c_str());
    close(fd);
    return -1;
  }
  uint8_t b[6];
  std::memcpy(b, ifr.ifr_hwaddr.sa_data, 6);
  mac->CopyFrom(b);
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = (int)if_nametoindex(ifname.c_str());
  if (bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    std::fprintf(stderr, "fp-ns3-fdfwd: bind to %s: %s\n", ifname.c_str(), std::strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

Ptr<FdNetDevice> addFdDevice(Ptr<Node> node, const std::string& ifname) {
  Mac48Address mac;
  int fd = openPacketSocket(ifname, &mac);
  if (fd < 0) return nullptr;
  Ptr<FdNetDevice> dev = CreateObject<FdNetDevice>();
  dev->SetAddress(mac);
  dev->SetFileDescriptor(fd);
  node->AddDevice(dev);
  return dev;
}

}  // namespace

int main(int argc, char** argv) {
  std::string if0 = "r0", if1 = "r1";
  std::string addr0 = "198.18.0.1", addr1 = "198.18.1.1";
  std::string net0 = "198.18.0.0", net1 = "198.18.1.0";
  uint32_t routers = 1;
  double duration = 3600;
  CommandLine cmd(__FILE__);
  cmd.AddValue("if0", "interface towards the source", if0);
  cmd.AddValue("if1", "interface towards the destination", if1);
  cmd.AddValue("addr0", "ns-3 router address on if0 (/24)", addr0);
  cmd.AddValue("addr1", "ns-3 router address on if1 (/24)", addr1);
  cmd.AddValue("routers", "routers in a line inside the simulator (1..64)", routers);
  cmd.AddValue("duration", "seconds to run (the harness stops it earlier by PID)", duration);
  cmd.Parse(argc, argv);
  if (routers < 1 || routers > 64) {
    std::fprintf(stderr, "fp-ns3-fdfwd: --routers must be 1..64\n");
    return 2;
  }
  Ipv4Address a0(addr0.c_str()), a1(addr1.c_str());
  Ipv4Mask m24("255.255.255.0");
  Ipv4Address n0 = a0.CombineMask(m24), n1 = a1.CombineMask(m24);

  GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
  GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));

  NodeContainer nodes;
  nodes.Create(routers);
  InternetStackHelper internet;
  internet.Install(nodes);

  Ptr<FdNetDevice> d0 = addFdDevice(nodes.Get(0), if0);
  Ptr<FdNetDevice> d1 = addFdDevice(nodes.Get(routers - 1), if1);
  if (!d0 || !d1) return 1;

  auto addIf = [](Ptr<Node> node, Ptr<NetDevice> dev, Ipv4Address a, Ipv4Mask m) {
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    int32_t i = ipv4->AddInterface(dev);
    ipv4->AddAddress(i, Ipv4InterfaceAddress(a, m));
    ipv4->SetForwarding(i, true);
    ipv4->SetUp(i);
    return (uint32_t)i;
  };
  uint32_t i0 = addIf(nodes.Get(0), d0, a0, m24);
  uint32_t i1 = addIf(nodes.Get(routers - 1), d1, a1, m24);

  // Line of routers: link k joins router k and k+1 with 198.19.k.0/24.
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
  p2p.SetChannelAttribute("Delay", StringValue("0s"));
  Ipv4StaticRoutingHelper srh;
  std::vector<uint32_t> left_if(routers, 0), right_if(routers, 0);
  left_if[0] = i0;
  right_if[routers - 1] = i1;
  for (uint32_t k = 0; k + 1 < routers; k++) {
    NetDeviceContainer link = p2p.Install(nodes.Get(k), nodes.Get(k + 1));
    char base[32];
    std::snprintf(base, sizeof(base), "198.19.%u.0", k);
    Ipv4AddressHelper ah(base, "255.255.255.0");
    Ipv4InterfaceContainer ifs = ah.Assign(link);
    right_if[k] = ifs.Get(0).second;
    left_if[k + 1] = ifs.Get(1).second;
  }
  for (uint32_t k = 0; k < routers; k++) {
    Ptr<Ipv4StaticRouting> sr = srh.GetStaticRouting(nodes.Get(k)->GetObject<Ipv4>());
    char next[32];
    if (k + 1 < routers) {
      std::snprintf(next, sizeof(next), "198.19.%u.2", k);
      sr->AddNetworkRouteTo(n1, m24, Ipv4Address(next), right_if[k]);
    }
    if (k > 0) {
      std::snprintf(next, sizeof(next), "198.19.%u.1", k - 1);
      sr->AddNetworkRouteTo(n0, m24, Ipv4Address(next), left_if[k]);
    }
  }
  std::printf("{\"ready\": true, \"routers\": %u}\n", routers);
  std::fflush(stdout);
  Simulator::Stop(Seconds(duration));
  Simulator::Run();
  Simulator::Destroy();
  return 0;
}
