// SPDX-License-Identifier: GPL-2.0-only
// FastPathTraceWriter against ns-3's own trace files: a simulated scenario (UDP echoes and
// pings between two nodes, point-to-point or CSMA) traced by PointToPointHelper or
// CsmaHelper (pcap, ascii per device, ascii with context); then every frame of each
// device's pcap file, turned into the Ethernet frame fastpathd would carry (PPP header
// replaced by an Ethernet header; FCS removed), is handed to a FastPathTraceWriter with its
// time and direction. The writer's files must equal ns-3's: the pcap files byte for byte,
// the ascii lines character for character.
#include "fast-path-echo-scenario.h"

#include "ns3/fast-path-trace-writer.h"
#include "ns3/csma-module.h"
#include "ns3/internet-apps-module.h"
#include "ns3/pcap-file.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace fastpath_ns3_test;

namespace
{

std::string
Slurp(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string>
SortedLines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l))
    {
        out.push_back(l);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// One frame of a device's pcap file, as fastpathd would have carried it.
struct Seen
{
    Time time;
    uint32_t device; //!< index into the scenario's devices
    FastPathFrameDirection direction;
    std::vector<uint8_t> ethernet;
};

class TraceWriterTest : public FastPathScratchTest
{
  protected:
    TraceWriterTest()
        : FastPathScratchTest("/tmp/fp-ns3-writer-XXXXXX")
    {
    }

    void SetUp() override
    {
        FastPathScratchTest::SetUp();
        // Nanosecond timestamps: the frames' times read back are the simulator's, exactly.
        Config::SetDefault("ns3::PcapFileWrapper::NanosecMode", BooleanValue(true));
    }

    void TearDown() override
    {
        FastPathScratchTest::TearDown();
        Config::Reset();
    }

    /// The echo scenario, with pings from node 0 to node 1 from 1.05 s, 300 ms apart,
    /// traced by `helper` (ns-3's files "stock*"), with a writer per device
    /// (`writers`, their files "ours*", named by `names`) and the devices' addresses. Its
    /// objects are gone on return: ns-3's files are closed.
    template <class Helper>
    void Simulate(Helper& helper,
                  FastPathTraceFraming framing,
                  std::vector<std::unique_ptr<FastPathTraceWriter>>& writers,
                  std::vector<std::string>& names,
                  std::vector<Mac48Address>& macs,
                  Ipv4Address& a0,
                  Ptr<OutputStreamWrapper>& all)
    {
        EchoScenario scenario = BuildEchoScenario(helper);
        const NetDeviceContainer& devices = scenario.devices;
        V4PingHelper ping(scenario.ifs.GetAddress(1));
        ping.SetAttribute("Interval", TimeValue(MilliSeconds(300)));
        ApplicationContainer pinger = ping.Install(scenario.nodes.Get(0));
        pinger.Start(Seconds(1.05));
        pinger.Stop(Seconds(1.8));

        helper.EnablePcapAll(m_dir + "/stock");
        helper.EnableAsciiAll(m_dir + "/stock");
        AsciiTraceHelper ascii;
        helper.EnableAsciiAll(ascii.CreateFileStream(m_dir + "/stock-all.tr"));

        PcapHelper pcap;
        all = ascii.CreateFileStream(m_dir + "/ours-all.tr");
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            Ptr<NetDevice> d = devices.Get(i);
            auto w = std::make_unique<FastPathTraceWriter>(d, framing);
            const std::string name = "-" + std::to_string(d->GetNode()->GetId()) + "-" +
                                     std::to_string(d->GetIfIndex());
            w->AddPcap(pcap.CreateFile(m_dir + "/ours" + name + ".pcap",
                                       std::ios::out,
                                       framing == FastPathTraceFraming::PPP
                                           ? PcapHelper::DLT_PPP
                                           : PcapHelper::DLT_EN10MB),
                       false);
            w->AddAscii(ascii.CreateFileStream(m_dir + "/ours" + name + ".tr"), "");
            w->AddAscii(all,
                        "/NodeList/" + std::to_string(d->GetNode()->GetId()) +
                            "/DeviceList/" + std::to_string(d->GetIfIndex()));
            writers.push_back(std::move(w));
            names.push_back(name);
            macs.push_back(Mac48Address::ConvertFrom(d->GetAddress()));
        }
        a0 = scenario.ifs.GetAddress(0);
        RunEchoScenario();
    }

    /// Simulate(), then the frames of ns-3's pcap files handed to the writers: their files
    /// must equal ns-3's.
    template <class Helper>
    void Check(Helper& helper, FastPathTraceFraming framing)
    {
        std::vector<std::unique_ptr<FastPathTraceWriter>> writers;
        std::vector<std::string> names;
        std::vector<Mac48Address> macs;
        Ipv4Address a0;
        Ptr<OutputStreamWrapper> all;
        Simulate(helper, framing, writers, names, macs, a0, all);
        ASSERT_EQ(writers.size(), 2u);

        // Every device's frames, as fastpathd would have carried them, in time order.
        std::vector<Seen> seen;
        for (uint32_t i = 0; i < names.size(); ++i)
        {
            PcapFile f;
            f.Open(m_dir + "/stock" + names[i] + ".pcap", std::ios::in);
            ASSERT_FALSE(f.Fail()) << "ns-3 wrote no stock" << names[i] << ".pcap";
            uint8_t buf[65536];
            uint32_t sec, frac, incl, orig, read;
            while (true)
            {
                f.Read(buf, sizeof(buf), sec, frac, incl, orig, read);
                if (f.Eof() || f.Fail())
                {
                    break;
                }
                Seen s;
                s.time = Seconds(sec) + NanoSeconds(frac);
                s.device = i;
                if (framing == FastPathTraceFraming::PPP)
                {
                    // Ethernet header, then the IP packet behind the PPP header.
                    s.ethernet.assign(14, 0);
                    s.ethernet[12] = buf[1] == 0x21 ? 0x08 : 0x86;
                    s.ethernet[13] = buf[1] == 0x21 ? 0x00 : 0xdd;
                    s.ethernet.insert(s.ethernet.end(), buf + 2, buf + incl);
                    uint8_t src[4];
                    a0.Serialize(src);
                    const bool fromA0 = std::memcmp(buf + 2 + 12, src, 4) == 0;
                    s.direction = (fromA0 == (i == 0)) ? FastPathFrameDirection::TX
                                                       : FastPathFrameDirection::RX;
                }
                else
                {
                    s.ethernet.assign(buf, buf + incl - 4); // no FCS on fastpathd's ports
                    Mac48Address src;
                    src.CopyFrom(buf + 6);
                    s.direction = src == macs[i] ? FastPathFrameDirection::TX
                                                 : FastPathFrameDirection::RX;
                }
                seen.push_back(std::move(s));
            }
            f.Close();
        }
        ASSERT_GE(seen.size(), 12u) << "3 echoes and 3 pings, both ways, at two devices";
        std::stable_sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) {
            return a.time < b.time;
        });
        for (const auto& s : seen)
        {
            EXPECT_TRUE(writers[s.device]->Write(s.time, s.direction, s.ethernet.data(),
                                                 uint32_t(s.ethernet.size())));
        }
        writers.clear(); // closes the files
        all = nullptr;

        for (const auto& name : names)
        {
            const std::string stockPcap = Slurp(m_dir + "/stock" + name + ".pcap");
            EXPECT_GT(stockPcap.size(), 24u);
            EXPECT_TRUE(stockPcap == Slurp(m_dir + "/ours" + name + ".pcap"))
                << "ours" << name << ".pcap differs from ns-3's";
            const std::string stockTr = Slurp(m_dir + "/stock" + name + ".tr");
            EXPECT_FALSE(stockTr.empty());
            EXPECT_EQ(Slurp(m_dir + "/ours" + name + ".tr"), stockTr) << name;
        }
        // One stream for all devices: the same lines (frames seen at one instant on two
        // devices may be written in another order).
        const auto stockAll = SortedLines(Slurp(m_dir + "/stock-all.tr"));
        EXPECT_GT(stockAll.size(), 24u);
        EXPECT_EQ(SortedLines(Slurp(m_dir + "/ours-all.tr")), stockAll);
    }

};

TEST_F(TraceWriterTest, PointToPointFilesEqualPointToPointHelpers)
{
    PointToPointHelper p2p;
    Check(p2p, FastPathTraceFraming::PPP);
}

TEST_F(TraceWriterTest, CsmaFilesEqualCsmaHelpers)
{
    CsmaHelper csma;
    Check(csma, FastPathTraceFraming::ETHERNET);
}

TEST_F(TraceWriterTest, FramesAPointToPointDeviceCannotCarryAreCountedNotWritten)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<PointToPointNetDevice> d = CreateObject<PointToPointNetDevice>();
    d->SetAddress(Mac48Address::Allocate());
    node->AddDevice(d);
    FastPathTraceWriter w(d, FastPathTraceFraming::PPP);
    PcapHelper pcap;
    w.AddPcap(pcap.CreateFile(m_dir + "/arp.pcap", std::ios::out, PcapHelper::DLT_PPP), false);
    uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0x08, 0x06};
    EXPECT_FALSE(w.Write(Seconds(1), FastPathFrameDirection::TX, arp, sizeof(arp)));
    EXPECT_FALSE(w.Write(Seconds(1), FastPathFrameDirection::RX, arp, 10)) << "a runt";
    EXPECT_EQ(w.GetUnrepresentable(), 2u);
    EXPECT_EQ(w.GetWritten(), 0u);
    EXPECT_EQ(FastPathTraceWriter::Framed(FastPathTraceFraming::ETHERNET, arp, sizeof(arp))
                  ->GetSize(),
              64u)
        << "an ARP frame on Ethernet: padded to 60 bytes, and its FCS";
}

} // namespace
