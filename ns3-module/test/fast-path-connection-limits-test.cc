// SPDX-License-Identifier: GPL-2.0-only
// FastPathConnection's descriptors and ns-3's select(): a plain FdNetDevice reads its
// device with select(), which takes descriptors below FD_SETSIZE only. A connection keeps
// its own descriptors above that range.
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

} // namespace
