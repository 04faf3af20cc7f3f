// SPDX-License-Identifier: GPL-2.0-only
// FastPathConnection's descriptors and ns-3's select(): FdNetDevice reads each device with
// select(), which takes descriptors below FD_SETSIZE only. A connection keeps its own
// descriptors above that range, and the control channels of a process are refused, with
// the limit and the fix, once they and their readers' pipes would leave it.
#include "ns3/core-module.h"
#include "ns3/fast-path-connection.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <unistd.h>

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// The descriptor the next open() gets.
int
LowestFree()
{
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ::close(fd);
    return fd;
}

TEST(FastPathConnectionLimitsTest, AConnectionLeavesTheSelectRangeToTheDevices)
{
    rlimit rl{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= FD_SETSIZE + 16)
    {
        GTEST_SKIP() << "RLIMIT_NOFILE's hard limit " << rl.rlim_max << " leaves no room above "
                     << FD_SETSIZE;
    }
    const int before = LowestFree();
    std::vector<Ptr<FastPathConnection>> held;
    for (int i = 0; i < 8; ++i)
    {
        held.push_back(CreateObject<FastPathConnection>());
    }
    EXPECT_EQ(LowestFree(), before) << "the connections' descriptors are above FD_SETSIZE";
}

TEST(FastPathConnectionLimitsTest, ChannelsBeyondTheSelectRangeAreRefusedNamingTheFix)
{
    EXPECT_TRUE(FastPathConnection::CheckSelectable(3, 1).ok());
    // 300 channels from descriptor 3 on, each with its reader's pipe: 3 + 299 + 600 < 1024.
    EXPECT_TRUE(FastPathConnection::CheckSelectable(302, 300).ok());
    // 343 channels: their pipes would reach past FD_SETSIZE (345 + 2 x 343 >= 1024).
    auto many = FastPathConnection::CheckSelectable(345, 343);
    ASSERT_FALSE(many.ok());
    const std::string& m = many.error().message;
    EXPECT_NE(m.find("FD_SETSIZE"), std::string::npos) << m;
    EXPECT_NE(m.find("mpirun -np"), std::string::npos) << m;
    EXPECT_NE(m.find("345"), std::string::npos) << m;
    EXPECT_FALSE(FastPathConnection::CheckSelectable(FD_SETSIZE, 1).ok());
    EXPECT_FALSE(FastPathConnection::CheckSelectable(-1, 1).ok());
}

} // namespace
