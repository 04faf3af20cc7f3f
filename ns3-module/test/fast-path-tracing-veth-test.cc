// SPDX-License-Identifier: GPL-2.0-only
// Pcap and ascii tracing of emulated devices: fast-path-tracing-script.cc (UDP echoes over
// two point-to-point links, or over one CSMA segment, every device traced with EnablePcapAll
// and EnableAsciiAll) run simulated and then emulated on a fastpathd that starts with
// `nodes: []`. The emulated run writes the files of the simulated one, by the same names;
// libpcap reads its pcap files with the simulated link type; each file holds the frames of
// the simulated file, within the bound below; every ascii line parses as ns-3's format.
//
// The bound: per file and per kind of line, |emulated - simulated| <= 2 frames. The
// simulated run is exact; emulated, ns-3 nodes behind fastpathd may resolve a neighbour
// once more (an ARP request and its reply on a CSMA segment) and the last echo may cross
// the simulation's end.
#include "fast-path-script-fixture.h"

#include <pcap/pcap.h>

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "trc";
constexpr long kBound = 2;

/// What libpcap reads in one file.
struct PcapFile
{
    int linkType = -1;
    long frames = 0;
    long malformed = 0; //!< frames that do not start as the link type says
    std::string error;
};

PcapFile
ReadPcap(const std::string& path)
{
    PcapFile out;
    char err[PCAP_ERRBUF_SIZE];
    pcap_t* p = pcap_open_offline(path.c_str(), err);
    if (!p)
    {
        out.error = err;
        return out;
    }
    out.linkType = pcap_datalink(p);
    pcap_pkthdr* h;
    const u_char* data;
    while (pcap_next_ex(p, &h, &data) == 1)
    {
        ++out.frames;
        // PPP: the 2-byte protocol (IPv4 0x0021, IPv6 0x0057); Ethernet: at least the
        // minimum frame (60 bytes) and its FCS, as CsmaNetDevice pads.
        const bool ok = out.linkType == DLT_PPP
                            ? h->caplen >= 22 && data[0] == 0 && (data[1] == 0x21 || data[1] == 0x57)
                            : h->caplen >= 64;
        out.malformed += ok ? 0 : 1;
    }
    pcap_close(p);
    return out;
}

/// The files in `dir`, by name.
std::vector<std::string>
Files(const std::string& dir)
{
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str()))
    {
        while (dirent* e = readdir(d))
        {
            if (e->d_name[0] != '.')
            {
                out.push_back(e->d_name);
            }
        }
        closedir(d);
    }
    return out;
}

/// Ascii lines by kind and context ("+ /NodeList/0/DeviceList/1/...Enqueue"); lines that do
/// not parse are counted under "malformed" with the first one in `bad`.
std::map<std::string, long>
AsciiLines(const std::string& path, std::string& bad, double& lastTime)
{
    static const std::regex line(
        R"re(^([-+rd]) ([0-9.e+-]+) )re"
        R"re((/NodeList/[0-9]+/DeviceList/[0-9]+/\$ns3::(PointToPoint|Csma)NetDevice/)re"
        R"re((TxQueue/Enqueue|TxQueue/Dequeue|TxQueue/Drop|MacRx|PhyRxDrop)) )re"
        R"re((ns3::PppHeader \(Point-to-Point Protocol: IP \(0x0021\)\) ns3::Ipv4Header \(.*|)re"
        R"re(ns3::EthernetHeader \( length/type=0x[0-9a-f]+, source=[0-9a-f:]+, )re"
        R"re(destination=[0-9a-f:]+\) .* ns3::EthernetTrailer \(fcs=[0-9]+\))$)re");
    std::map<std::string, long> out;
    std::ifstream in(path);
    std::string l;
    while (std::getline(in, l))
    {
        std::smatch m;
        if (!std::regex_match(l, m, line))
        {
            if (bad.empty())
            {
                bad = l;
            }
            ++out["malformed"];
            continue;
        }
        lastTime = std::max(lastTime, std::stod(m[2]));
        ++out[m[1].str() + " " + m[3].str()];
    }
    return out;
}

class TracingVethTest : public FastPathScriptFixture
{
  protected:
    TracingVethTest()
        : FastPathScriptFixture({TRACING_SCRIPT_BIN, "tracing-script", "tracing", "trc",
                                 "/tmp/fp-ns3-tracing-XXXXXX", kTag, {"--packets=20"}})
    {
    }

    /// Runs the script with its files under dir_/`run`/; returns its report.
    std::map<std::string, std::string> Run(const std::string& run,
                                           bool emulated,
                                           const std::vector<std::string>& args)
    {
        const std::string dir = dir_ + "/" + run;
        mkdir(dir.c_str(), 0777);
        chmod(dir.c_str(), 0777); // the script may run as nobody
        std::vector<std::string> a = args;
        a.push_back("--trace=" + dir + "/tr");
        if (emulated)
        {
            a.insert(a.end(), {"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                               std::string("--FastPathTag=") + kTag});
        }
        else
        {
            a.push_back("--FastPathEmulation=0");
        }
        return RunScript(a, nullptr);
    }

    /// Both runs of the script with `args`, and the emulated files against the simulated.
    void Compare(const std::vector<std::string>& args,
                 int linkType,
                 long devices,
                 const std::string& bystander = "")
    {
        auto sim = Run("sim", false, args);
        ASSERT_NO_FATAL_FAILURE(StartFastpathd());
        auto emu = Run("emu", true, args);
        EXPECT_EQ(Num(emu, "udp_received"), Num(sim, "udp_received"));
        EXPECT_EQ(Num(emu, "taps.dropped_reader_slow"), 0);
        EXPECT_GT(Num(emu, "taps.written"), 0);
        std::cout << "taps: " << Num(emu, "taps.devices") << " devices, "
                  << Num(emu, "taps.frames") << " frames, " << Num(emu, "taps.written")
                  << " written, " << Num(emu, "taps.unrepresentable") << " not representable, "
                  << Num(emu, "taps.outside_run") << " outside the run" << std::endl;
        const auto simFiles = Files(dir_ + "/sim");
        ASSERT_GE(simFiles.size(), 4u) << "the simulated run wrote too few files";
        long pcaps = 0;
        for (const auto& name : simFiles)
        {
            const std::string s = dir_ + "/sim/" + name;
            const std::string e = dir_ + "/emu/" + name;
            struct stat st;
            ASSERT_EQ(stat(e.c_str(), &st), 0) << "emulated run wrote no " << name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".pcap") == 0)
            {
                ++pcaps;
                PcapFile ps = ReadPcap(s);
                PcapFile pe = ReadPcap(e);
                ASSERT_TRUE(pe.error.empty()) << name << ": " << pe.error;
                EXPECT_EQ(ps.linkType, linkType) << name;
                EXPECT_EQ(pe.linkType, ps.linkType) << name;
                EXPECT_EQ(pe.malformed, 0) << name;
                EXPECT_GT(ps.frames, 0) << name << ": the simulated file holds no frame";
                if (name == bystander)
                {
                    // fastpathd's segment hands a unicast frame to its destination's port
                    // only: a bystander's promiscuous file holds the broadcasts.
                    EXPECT_GT(pe.frames, 0) << name;
                    EXPECT_LT(pe.frames, ps.frames) << name;
                    continue;
                }
                EXPECT_LE(std::labs(pe.frames - ps.frames), kBound)
                    << name << ": " << pe.frames << " frames emulated, " << ps.frames
                    << " simulated";
                std::cout << name << ": " << ps.frames << " frames simulated, " << pe.frames
                          << " emulated" << std::endl;
                continue;
            }
            std::string badS, badE;
            double lastS = 0, lastE = 0;
            auto ls = AsciiLines(s, badS, lastS);
            auto le = AsciiLines(e, badE, lastE);
            EXPECT_EQ(ls.count("malformed"), 0u) << "the pattern misses ns-3's own line: " << badS;
            EXPECT_EQ(le.count("malformed"), 0u) << name << ": " << badE;
            EXPECT_LE(lastE, lastS + 0.5) << name << ": lines after the simulation's end";
            for (const auto& [key, n] : ls)
            {
                EXPECT_LE(std::labs(le[key] - n), kBound)
                    << name << " '" << key << "': " << le[key] << " emulated, " << n
                    << " simulated";
            }
            for (const auto& [key, n] : le)
            {
                EXPECT_TRUE(ls.count(key) || n <= kBound)
                    << name << " '" << key << "': " << n << " lines only emulated";
            }
        }
        EXPECT_EQ(pcaps, devices) << "one pcap file per device";
        EXPECT_EQ(Num(emu, "taps.devices"), devices);
    }
};

TEST_F(TracingVethTest, EmulatedPointToPointWritesTheSimulatedFiles)
{
    Compare({"--csma=0"}, DLT_PPP, 4);
}

TEST_F(TracingVethTest, EmulatedPointToPointDeviceIsOneWithTheQueueOfTheFramesItSent)
{
    // The script casts n0's device to PointToPointNetDevice and reads GetQueue()'s counts
    // after the run: the frames the device sent into its link (the echo requests; no ARP
    // on PPP), in both runs; the tap feeds the emulated queue from fastpathd's port.
    auto sim = Run("sim", false, {"--csma=0"});
    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    auto emu = Run("emu", true, {"--csma=0"});
    for (auto* r : {&sim, &emu})
    {
        EXPECT_EQ(Num(*r, "n0.p2p_device"), 1);
        EXPECT_EQ(Num(*r, "n0.tx_queue"), 1);
        EXPECT_EQ(Num(*r, "n0.tx_queue.held"), 0);
    }
    EXPECT_EQ(Num(sim, "n0.tx_queue.received"), Num(sim, "udp_sent"));
    EXPECT_EQ(Num(emu, "n0.tx_queue.received"), Num(sim, "n0.tx_queue.received"));
    EXPECT_EQ(Num(emu, "udp_received"), Num(sim, "udp_received"));
}

TEST_F(TracingVethTest, EmulatedCsmaWritesTheSimulatedFiles)
{
    Compare({"--csma=1"}, DLT_EN10MB, 3);
}

TEST_F(TracingVethTest, EmulatedCsmaPromiscuousSeesWhatTheSegmentDeliversToThePort)
{
    Compare({"--csma=1", "--promiscuous=1"}, DLT_EN10MB, 3, "tr-1-1.pcap");
}

} // namespace
