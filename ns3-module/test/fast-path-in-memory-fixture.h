// SPDX-License-Identifier: GPL-2.0-only
// A test of the emulating helpers against fastpathd's control server over an in-memory
// network (no fastpathd, no privileges): the script's global values set for emulation on
// the server's socket, and put back after each test, so simulated and emulated cases can
// share one test binary.
#ifndef FAST_PATH_IN_MEMORY_FIXTURE_H
#define FAST_PATH_IN_MEMORY_FIXTURE_H

#include "fast-path-test-server.h"

#include "ns3/core-module.h"

#include <gtest/gtest.h>

#include <string>

namespace fastpath_ns3_test
{

class InMemoryEmulationTest : public ::testing::Test
{
  protected:
    /// `tag`: the run tag the helpers give fastpathd's objects (FastPathTag).
    explicit InMemoryEmulationTest(std::string tag)
        : tag_(std::move(tag))
    {
    }

    void SetUp() override
    {
        using namespace ns3;
        GlobalValue::GetValueByName("SimulatorImplementationType", implBefore_);
        GlobalValue::GetValueByName("ChecksumEnabled", checksumsBefore_);
        GlobalValue::Bind("FastPathSocket", StringValue(server_.SocketPath()));
        GlobalValue::Bind("FastPathTag", StringValue(tag_));
        // The in-memory network has untimed control channels only.
        Config::SetDefault("ns3::FastPathNetDevice::TimedDelivery", BooleanValue(false));
    }

    void TearDown() override
    {
        using namespace ns3;
        Simulator::Destroy();
        Config::SetDefault("ns3::FastPathNetDevice::TimedDelivery", BooleanValue(true));
        GlobalValue::Bind("FastPathEmulation", BooleanValue(false));
        GlobalValue::Bind("SimulatorImplementationType", implBefore_);
        GlobalValue::Bind("ChecksumEnabled", checksumsBefore_);
    }

    static void Emulate(bool on)
    {
        // As CommandLine sets it (--FastPathEmulation=1): before the helpers and nodes.
        ns3::GlobalValue::Bind("FastPathEmulation", ns3::StringValue(on ? "1" : "0"));
    }

    ns3::FastPathTestServer server_;

  private:
    std::string tag_;
    ns3::StringValue implBefore_;
    ns3::BooleanValue checksumsBefore_;
};

} // namespace fastpath_ns3_test

#endif
