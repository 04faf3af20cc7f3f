// SPDX-License-Identifier: GPL-2.0-only
// Pcap and ascii tracing on the emulating helpers, without fastpathd: simulated, they write
// what PointToPointHelper and CsmaHelper write (same files, same bytes); on an emulated
// device (an FdNetDevice with the stand-in of ns-3's device aggregated, as the helpers
// install it) the script is refused with one message naming the trace path and what to use
// instead, and a clean exit, not an abort.
#include "fast-path-echo-scenario.h"

#include "ns3/csma-module.h"
#include "ns3/fast-path-csma-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fd-net-device.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace ns3;
using namespace fastpath_ns3_test;

namespace
{

/// The files in `dir` whose names start with `prefix`, by the rest of their name, with
/// their contents.
std::map<std::string, std::string>
FilesOf(const std::string& dir, const std::string& prefix)
{
    std::map<std::string, std::string> out;
    DIR* d = opendir(dir.c_str());
    if (!d)
    {
        return out;
    }
    while (dirent* e = readdir(d))
    {
        std::string name = e->d_name;
        if (name.rfind(prefix, 0) == 0)
        {
            std::ifstream f(dir + "/" + name, std::ios::binary);
            std::stringstream ss;
            ss << f.rdbuf();
            out[name.substr(prefix.size())] = ss.str();
        }
    }
    closedir(d);
    return out;
}

class TracingTest : public FastPathScratchTest
{
  protected:
    TracingTest()
        : FastPathScratchTest("/tmp/fp-ns3-trace-XXXXXX")
    {
    }

    /// The echo scenario on `Helper`'s devices, every device traced (pcap and ascii) under
    /// `prefix`; returns the files written (read once every stream is closed: after the
    /// simulation's objects and this scenario's locals are gone).
    template <class Helper>
    std::map<std::string, std::string> Run(Helper& helper, const std::string& prefix)
    {
        Scenario(helper, prefix);
        return FilesOf(m_dir, prefix);
    }

    template <class Helper>
    void Scenario(Helper& helper, const std::string& prefix)
    {
        EchoScenario s = BuildEchoScenario(helper);
        helper.EnablePcapAll(m_dir + "/" + prefix);
        AsciiTraceHelper ascii;
        helper.EnableAsciiAll(ascii.CreateFileStream(m_dir + "/" + prefix + ".tr"));
        helper.EnableAscii(m_dir + "/" + prefix + "-one", s.devices.Get(0));
        RunEchoScenario();
    }

    /// A node whose device is an emulated one: an FdNetDevice with a `T` aggregated.
    template <class T>
    static NetDeviceContainer EmulatedDevice()
    {
        Ptr<Node> node = CreateObject<Node>();
        Ptr<FdNetDevice> fd = CreateObject<FdNetDevice>();
        fd->SetAddress(Mac48Address::Allocate());
        node->AddDevice(fd);
        fd->AggregateObject(CreateObject<T>());
        return NetDeviceContainer(fd);
    }
};

TEST_F(TracingTest, SimulatedPointToPointTracingWritesWhatPointToPointHelperWrites)
{
    ASSERT_FALSE(FastPathPointToPointHelper::IsEmulated());
    PointToPointHelper plain;
    auto want = Run(plain, "plain");
    FastPathPointToPointHelper fp;
    auto got = Run(fp, "fp");
    ASSERT_EQ(want.size(), 4u) << "two pcap files, the shared and the one-device ascii file";
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, bytes] : want)
    {
        ASSERT_TRUE(got.count(name)) << "fp" << name << " not written";
        EXPECT_GT(bytes.size(), 24u) << "plain" << name << " holds no frame";
        EXPECT_EQ(got[name], bytes) << "fp" << name << " differs from plain" << name;
    }
}

TEST_F(TracingTest, SimulatedCsmaTracingWritesWhatCsmaHelperWrites)
{
    CsmaHelper plain;
    auto want = Run(plain, "plain");
    FastPathCsmaHelper fp;
    auto got = Run(fp, "fp");
    ASSERT_EQ(want.size(), 4u);
    ASSERT_EQ(got.size(), want.size());
    // The same frames; their times differ, as CSMA's backoff draws from random streams
    // that the second simulation of one process numbers differently.
    auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
    for (const auto& [name, bytes] : want)
    {
        ASSERT_TRUE(got.count(name)) << "fp" << name << " not written";
        EXPECT_GT(bytes.size(), 24u) << "plain" << name << " holds no frame";
        if (name.size() > 5 && name.compare(name.size() - 5, 5, ".pcap") == 0)
        {
            EXPECT_EQ(got[name].size(), bytes.size()) << "fp" << name << " vs plain" << name;
        }
        else
        {
            EXPECT_EQ(lines(got[name]), lines(bytes)) << "fp" << name << " vs plain" << name;
        }
    }
}

TEST_F(TracingTest, EmulatedDeviceOutsideAnEmulationIsRefusedWithOneMessage)
{
    // An emulated device (a stand-in aggregated) that no emulating helper of this
    // simulation created: no port to tap. Refused, naming the call; a clean exit.
    NetDeviceContainer d = EmulatedDevice<PointToPointNetDevice>();
    FastPathPointToPointHelper fp;
    EXPECT_EXIT(fp.EnableAsciiAll(m_dir + "/x"), ::testing::ExitedWithCode(1),
                "^FastPathPointToPointHelper::EnableAscii: the device is emulated, but not by "
                "this simulation's emulating helpers");
    EXPECT_EXIT(fp.EnablePcap(m_dir + "/x", d), ::testing::ExitedWithCode(1),
                "^FastPathPointToPointHelper::EnablePcap: the device is emulated");
}

TEST_F(TracingTest, EmulatedCsmaDeviceOutsideAnEmulationIsRefusedWithOneMessage)
{
    EmulatedDevice<CsmaNetDevice>();
    FastPathCsmaHelper fp;
    EXPECT_EXIT(fp.EnablePcapAll(m_dir + "/x"), ::testing::ExitedWithCode(1),
                "^FastPathCsmaHelper::EnablePcap: the device is emulated");
    EXPECT_EXIT(fp.EnableAsciiAll(m_dir + "/x"), ::testing::ExitedWithCode(1),
                "^FastPathCsmaHelper::EnableAscii: the device is emulated");
}

TEST_F(TracingTest, AnotherHelpersEmulatedDeviceIsLeftToIt)
{
    // An emulated CSMA device is not the point-to-point helper's: it skips it, as
    // PointToPointHelper skips devices that are not its own.
    EmulatedDevice<CsmaNetDevice>();
    FastPathPointToPointHelper fp;
    fp.EnablePcapAll(m_dir + "/x");
    fp.EnableAsciiAll(m_dir + "/x");
    EXPECT_TRUE(FilesOf(m_dir, "x").size() <= 1u) << "no pcap file for a foreign device";
}

} // namespace
