// SPDX-License-Identifier: GPL-2.0-only
// Real fastpathd + real ns-3 on veth, IPv6: S — R — D in namespaces fp-n-v6-*.
//
//   S: kernel 2001:2:0:1::2/64 on s0, route 2001:2:0:20::/64 via 2001:2:0:1::1
//   R: fastpathd on r0,r1 and static6-router (ns-3): 2001:2:0:1::1/64 on r0,
//      2001:2:0:2::1/64 on r1, Ipv6StaticRouting 2001:2:0:20::/64 via 2001:2:0:2::2
//   D: kernel 2001:2:0:2::2/64 on d0 and 2001:2:0:20::1/128 on lo
//
// The test checks what reaches fastpathd (routes, NDP neighbours) through the client
// library, and where UDP from S to 2001:2:0:20::1 went: fastpathd's counters, what D
// received (hop limit 63 for 64 sent) and what ns-3's IPv6 layer received.
#include "fast-path-veth-fixture.h"

#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

using fastpath::testing::NetnsGuard;
using fastpath::testing::sh;
using fastpath::testing::Topology;
using namespace std::chrono_literals;
using namespace fastpath_ns3_test;

namespace
{

constexpr uint16_t kUdpPort = 9000;
constexpr const char* kDestination = "2001:2:0:20::1";

/// A socket that closes itself.
struct Fd
{
    int fd = -1;
    Fd() = default;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd()
    {
        if (fd >= 0)
        {
            ::close(fd);
        }
    }
};

class Ipv6VethTest : public FastPathVethFixture
{
  protected:
    void SetUp() override
    {
        if (std::string why = WhyNot({FASTPATHD_BIN, STATIC6_ROUTER_BIN}); !why.empty())
        {
            GTEST_SKIP() << why;
        }
        BuildSRD("n-v6", "r0", "r1");
        // The kernel must not route or autoconfigure on R's ports: fastpathd and ns-3 do.
        topo_->exec(R_, "sysctl -qw net.ipv6.conf.r0.accept_ra=0 net.ipv6.conf.r1.accept_ra=0");
        sh("ip -n " + S_ + " addr add 2001:2:0:1::2/64 dev s0 nodad");
        sh("ip -n " + S_ + " route add 2001:2:0:20::/64 via 2001:2:0:1::1");
        sh("ip -n " + D_ + " addr add 2001:2:0:2::2/64 dev d0 nodad");
        sh("ip -n " + D_ + " addr add 2001:2:0:20::1/128 dev lo nodad");
        sh("ip -n " + D_ + " route add 2001:2:0:1::/64 via 2001:2:0:2::1");

        ASSERT_TRUE(MakeScratch("/tmp/fp-n-v6-test-XXXXXX"));
        fastpathd_ = topo_->spawn(R_, FastpathdArgv({"--port", "r0", "--port", "r1"}, false),
                                  dir_ + "/fastpathd.log");
        ASSERT_TRUE(WaitForSocket());
        router_ = topo_->spawn(R_,
                               {STATIC6_ROUTER_BIN, "--socket=" + sock_, "--ports=r0,r1",
                                "--addresses6=2001:2:0:1::1/64,2001:2:0:2::1/64",
                                "--routes6=2001:2:0:20::/64=2001:2:0:2::2%1", "--duration=0",
                                "--report=" + dir_ + "/r.report"},
                               dir_ + "/r.log");

        // D's receiver and S's sender live in their namespaces (a socket keeps the
        // namespace it was created in).
        {
            NetnsGuard in(D_);
            ASSERT_TRUE(in.ok());
            rx_.fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        }
        ASSERT_GE(rx_.fd, 0);
        int on = 1;
        ASSERT_EQ(setsockopt(rx_.fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &on, sizeof(on)), 0);
        // Room for the whole burst: D reads only after S has sent it.
        int bytes = 8 << 20;
        ASSERT_EQ(setsockopt(rx_.fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)), 0);
        sockaddr_in6 any{};
        any.sin6_family = AF_INET6;
        any.sin6_port = htons(kUdpPort);
        ASSERT_EQ(bind(rx_.fd, reinterpret_cast<sockaddr*>(&any), sizeof(any)), 0);
        {
            NetnsGuard in(S_);
            ASSERT_TRUE(in.ok());
            tx_.fd = socket(AF_INET6, SOCK_DGRAM, 0);
        }
        ASSERT_GE(tx_.fd, 0);
        int hops = 64;
        ASSERT_EQ(setsockopt(tx_.fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)), 0);
        dst_.sin6_family = AF_INET6;
        dst_.sin6_port = htons(kUdpPort);
        ASSERT_EQ(inet_pton(AF_INET6, kDestination, &dst_.sin6_addr), 1);
    }

    void TearDown() override
    {
        CleanUp({"r.log", "fastpathd.log", "r.report"});
    }

    void Send(int count, std::chrono::microseconds gap)
    {
        char payload[64] = "fastpath ipv6 test";
        for (int i = 0; i < count; ++i)
        {
            sendto(tx_.fd, payload, sizeof(payload), 0, reinterpret_cast<sockaddr*>(&dst_),
                   sizeof(dst_));
            if (gap.count() > 0)
            {
                std::this_thread::sleep_for(gap);
            }
        }
    }

    /// Reads what D received until `want` datagrams or `timeout`; counts hop limits.
    std::map<int, int> Receive(int want, std::chrono::milliseconds timeout)
    {
        std::map<int, int> hopLimits;
        int got = 0;
        auto end = std::chrono::steady_clock::now() + timeout;
        while (got < want && std::chrono::steady_clock::now() < end)
        {
            pollfd p{rx_.fd, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0)
            {
                continue;
            }
            char buf[256];
            char control[CMSG_SPACE(sizeof(int))];
            iovec iov{buf, sizeof(buf)};
            msghdr m{};
            m.msg_iov = &iov;
            m.msg_iovlen = 1;
            m.msg_control = control;
            m.msg_controllen = sizeof(control);
            while (recvmsg(rx_.fd, &m, MSG_DONTWAIT) >= 0)
            {
                int hl = -1;
                for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                {
                    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT)
                    {
                        std::memcpy(&hl, CMSG_DATA(c), sizeof(hl));
                    }
                }
                ++hopLimits[hl];
                ++got;
                m.msg_controllen = sizeof(control);
            }
        }
        return hopLimits;
    }

    pid_t fastpathd_ = -1, router_ = -1;
    Fd rx_, tx_;
    sockaddr_in6 dst_{};
};

TEST_F(Ipv6VethTest, StaticRoutesAndNdpNeighboursReachFastPathAndDataTakesIt)
{
    // Connected prefixes and the Ipv6StaticRouting route are mirrored exactly.
    ASSERT_TRUE(WaitFor([&] { return !RouteIn("2001:2:0:20::/64").empty(); }, 20s))
        << "the static IPv6 route never reached fastpathd";
    EXPECT_EQ(RouteIn("2001:2:0:20::/64"), "via 2001:2:0:2::2 port 1");
    EXPECT_EQ(RouteIn("2001:2:0:1::/64"), "via on-link port 0");
    EXPECT_EQ(RouteIn("2001:2:0:2::/64"), "via on-link port 1");
    EXPECT_EQ(RouteIn("fe80::/64"), "") << "link-local prefixes stay with ns-3";

    // Warm-up: the first datagrams find no neighbour for the next hop in fastpathd and
    // are punted; ns-3 forwards them, resolving 2001:2:0:2::2 with NDP, and the mirror
    // hands the NDP entry to fastpathd. One datagram per 100 ms, at most 20 s.
    const std::string dMac = topo_->mac(D_, "d0");
    const std::string sMac = topo_->mac(S_, "s0");
    int warmup = 0;
    bool resolved = WaitFor(
        [&] {
            ++warmup;
            Send(1, std::chrono::microseconds(0));
            return NeighbourIn("2001:2:0:2::2") == dMac + " port 1";
        },
        20s);
    ASSERT_TRUE(resolved) << "D's NDP entry never reached fastpathd (have '"
                          << NeighbourIn("2001:2:0:2::2") << "')";
    // S's address, learned by ns-3 from S's neighbour solicitation for R.
    EXPECT_TRUE(WaitFor([&] { return NeighbourIn("2001:2:0:1::2") == sMac + " port 0"; }, 5s))
        << NeighbourIn("2001:2:0:1::2");
    std::this_thread::sleep_for(300ms);
    Receive(warmup, 1000ms); // drain

    // Bulk data now goes through fastpathd, not through ns-3.
    const uint64_t fwd0 = Counter("port r0", "forward");
    const int kPackets = 2000;
    Send(kPackets, std::chrono::microseconds(50));
    std::map<int, int> hopLimits = Receive(kPackets, 5000ms);
    const uint64_t forwarded = Counter("port r0", "forward") - fwd0;
    EXPECT_GE(forwarded, uint64_t(kPackets * 95 / 100)) << "fastpathd forwarded too little";
    EXPECT_GE(hopLimits[63], kPackets * 95 / 100) << "D received too little with hop limit 63";
    EXPECT_EQ(hopLimits.size(), 1u) << "hop limits other than 63 seen at D";

    topo_->stop(router_);
    router_ = -1;
    auto report = ReadReport(dir_ + "/r.report");
    ASSERT_TRUE(report.count("ns3_rx_ipv6_udp")) << Slurp(dir_ + "/r.report");
    // ns-3 saw neighbour discovery and at most the warm-up datagrams, not the data.
    EXPECT_LE(std::stoi(report["ns3_rx_ipv6_udp"]), warmup);
    EXPECT_GE(std::stoi(report["ns3_rx_ipv6_nd"]), 1);
    EXPECT_LT(std::stoull(report["ns3_rx_frames"]), uint64_t(kPackets / 10));
    EXPECT_EQ(report["updates_failed"], "0");
    std::cout << "warm-up datagrams " << warmup << ", ns-3 received " << report["ns3_rx_frames"]
              << " frames (" << report["ns3_rx_ipv6_nd"] << " ND, " << report["ns3_rx_ipv6_udp"]
              << " UDP, " << report["ns3_rx_ipv6_other"] << " other), fastpathd forwarded "
              << forwarded << "\n";
}

} // namespace
