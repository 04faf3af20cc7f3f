// SPDX-License-Identifier: GPL-2.0-only
// The process's one receive thread: more FastPathNetDevices than ns-3's per-device
// select() reader allowed in one process (about 330), each on a control channel of its
// own (a socket pair standing for fastpathd's end), all read by one thread, and each
// device receives its frames complete and in the order they were written.
#include "ns3/core-module.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-receive-thread.h"
#include "ns3/mac48-address.h"
#include "ns3/network-module.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t kTestEtherType = 0x88B5; // local experimental
constexpr uint32_t kDevices = 400;
constexpr uint32_t kFramesEach = 25;

/// Threads of this process.
int
ThreadCount()
{
    int n = 0;
    if (DIR* d = ::opendir("/proc/self/task"))
    {
        while (dirent* e = ::readdir(d))
        {
            n += e->d_name[0] != '.';
        }
        ::closedir(d);
    }
    return n;
}

/// A broadcast Ethernet frame of the test's type carrying `seq`.
std::vector<uint8_t>
Frame(uint32_t seq)
{
    std::vector<uint8_t> f(64, 0);
    std::memset(f.data(), 0xff, 6);
    const uint8_t src[6] = {0x02, 0, 0, 0, 0, 1};
    std::memcpy(f.data() + 6, src, 6);
    f[12] = kTestEtherType >> 8;
    f[13] = kTestEtherType & 0xff;
    std::memcpy(f.data() + 14, &seq, sizeof(seq));
    return f;
}

bool
RaiseDescriptorLimit(rlim_t need)
{
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    {
        return false;
    }
    if (rl.rlim_cur >= need)
    {
        return true;
    }
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
    {
        return false;
    }
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

class FastPathReceiveThreadTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", implBefore_);
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::RealtimeSimulatorImpl"));
        Config::SetDefault("ns3::FastPathNetDevice::TimedDelivery", BooleanValue(false));
    }

    void TearDown() override
    {
        Simulator::Destroy();
        for (int fd : peers_)
        {
            ::close(fd);
        }
        Config::SetDefault("ns3::FastPathNetDevice::TimedDelivery", BooleanValue(true));
        GlobalValue::Bind("SimulatorImplementationType", implBefore_);
    }

    /// `n` devices on nodes of their own, each on one end of a socket pair (the other end
    /// in peers_), recording the sequence numbers they receive in received_.
    void MakeDevices(uint32_t n)
    {
        received_.assign(n, {});
        for (uint32_t i = 0; i < n; ++i)
        {
            int sv[2];
            ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0)
                << std::strerror(errno);
            Ptr<Node> node = CreateObject<Node>();
            Ptr<FastPathNetDevice> dev = CreateObject<FastPathNetDevice>();
            dev->SetAddress(Mac48Address::Allocate());
            dev->SetFileDescriptor(sv[0]);
            node->AddDevice(dev);
            dev->SetReceiveCallback(MakeCallback(&FastPathReceiveThreadTest::Received, this));
            devices_.push_back(dev);
            peers_.push_back(sv[1]);
        }
    }

    bool Received(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t protocol, const Address&)
    {
        EXPECT_EQ(protocol, kTestEtherType);
        uint32_t seq = 0;
        p->CopyData(reinterpret_cast<uint8_t*>(&seq), sizeof(seq));
        received_[dev->GetNode()->GetId() - firstNode_].push_back(seq);
        return true;
    }

    void WriteFrames(uint32_t count)
    {
        for (uint32_t k = 0; k < count; ++k)
        {
            for (size_t i = 0; i < peers_.size(); ++i)
            {
                auto f = Frame(k);
                ASSERT_EQ(::send(peers_[i], f.data(), f.size(), 0), ssize_t(f.size()))
                    << std::strerror(errno);
            }
        }
    }

    uint32_t firstNode_ = 0;
    std::vector<Ptr<FastPathNetDevice>> devices_;
    std::vector<int> peers_;
    std::vector<std::vector<uint32_t>> received_;

  private:
    StringValue implBefore_;
};

TEST_F(FastPathReceiveThreadTest, FourHundredDevicesAreReadByOneThreadEachInOrder)
{
    if (!RaiseDescriptorLimit(4 * kDevices))
    {
        GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below " << 4 * kDevices;
    }
    firstNode_ = NodeList::GetNNodes();
    const int threadsBefore = ThreadCount();
    MakeDevices(kDevices);
    ASSERT_FALSE(HasFailure());

    int threadsRunning = -1;
    size_t watched = 0;
    // The devices start at time 0; the frames are written once they have.
    Simulator::Schedule(MilliSeconds(50), [&]() {
        watched = FastPathReceiveThread::Get().GetWatchedCount();
        threadsRunning = ThreadCount();
        WriteFrames(kFramesEach);
    });
    Simulator::Stop(Seconds(1.5));
    Simulator::Run();

    EXPECT_EQ(watched, kDevices);
    EXPECT_EQ(threadsRunning, threadsBefore + 1) << "one receive thread for all devices";
    for (uint32_t i = 0; i < kDevices; ++i)
    {
        ASSERT_EQ(received_[i].size(), kFramesEach) << "device " << i;
        for (uint32_t k = 0; k < kFramesEach; ++k)
        {
            ASSERT_EQ(received_[i][k], k) << "device " << i << " frame " << k;
        }
        EXPECT_TRUE(devices_[i]->IsLinkUp());
    }

    Simulator::Destroy();
    EXPECT_EQ(FastPathReceiveThread::Get().GetWatchedCount(), 0u);
    EXPECT_FALSE(FastPathReceiveThread::Get().IsRunning()) << "the thread ends with the last";
    EXPECT_EQ(ThreadCount(), threadsBefore);
}

TEST_F(FastPathReceiveThreadTest, DevicesDisposedWhileFramesArriveStopCleanly)
{
    if (!RaiseDescriptorLimit(256))
    {
        GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below 256";
    }
    firstNode_ = NodeList::GetNNodes();
    MakeDevices(8);
    ASSERT_FALSE(HasFailure());
    // A writer floods every channel while the devices start, receive and are disposed.
    std::atomic<bool> stop{false};
    std::vector<int> peers = peers_;
    std::thread writer([&]() {
        auto f = Frame(7);
        while (!stop.load())
        {
            for (int fd : peers)
            {
                ::send(fd, f.data(), f.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
            }
        }
    });
    Simulator::Schedule(MilliSeconds(200), [&]() {
        for (uint32_t i = 0; i < 4; ++i)
        {
            devices_[i]->Dispose();
        }
    });
    Simulator::Stop(Seconds(0.4));
    Simulator::Run();
    EXPECT_EQ(FastPathReceiveThread::Get().GetWatchedCount(), 4u);
    const auto disposedBefore = received_[0].size();
    EXPECT_GT(disposedBefore, 0u);
    Simulator::Destroy();
    stop = true;
    writer.join();
    EXPECT_EQ(FastPathReceiveThread::Get().GetWatchedCount(), 0u);
    EXPECT_FALSE(FastPathReceiveThread::Get().IsRunning());
    EXPECT_FALSE(devices_[0]->IsLinkUp());
}

} // namespace
