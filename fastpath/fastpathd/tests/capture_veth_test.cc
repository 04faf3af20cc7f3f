// SPDX-License-Identifier: GPL-2.0-only
// Packet capture through a real fastpathd: two nodes r1 - r2 joined by link l1 (no kernel
// interface), a host on each, a real `ping` across. `fpctl capture` writes pcap with
// libpcap: read back with libpcap (count, direction, addresses, lengths) and with
// `tcpdump -r` (from a file and through a pipe), filtered with tcpdump's syntax; bad
// targets and filters are refused with a clear message before anything is captured.
#include <pcap/pcap.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "fastpathd_child.h"
#include "two_hosts.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::Topology;

/// Runs a shell command line; its exit status and output (stdout + stderr).
int run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p)) text += buf;
  const int st = ::pclose(p);
  if (out) *out = text;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct PcapFrame {
  uint32_t caplen = 0, len = 0;
  std::vector<uint8_t> data;
};

/// The frames of a pcap file read back with libpcap; empty with `why` set on error.
std::vector<PcapFrame> readPcap(const std::string& path, int* linktype, std::string* why) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(path.c_str(), err);
  std::vector<PcapFrame> out;
  if (!p) {
    *why = err;
    return out;
  }
  *linktype = pcap_datalink(p);
  pcap_pkthdr* h;
  const u_char* d;
  while (pcap_next_ex(p, &h, &d) == 1) out.push_back({h->caplen, h->len, {d, d + h->caplen}});
  pcap_close(p);
  return out;
}

class CaptureVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    if (run("command -v tcpdump") != 0) GTEST_SKIP() << "tcpdump is not installed";
    topo_ = std::make_unique<Topology>("cap");
    d_ = topo_->addNamespace("d");
    tag_ = "cp-" + std::to_string(::getpid() % 100000);
    sock_ = "/tmp/fp-capture-" + std::to_string(::getpid()) + ".sock";
    topo_file_ = "/tmp/fp-capture-" + std::to_string(::getpid()) + ".yaml";
    pcap_ = "/tmp/fp-capture-" + std::to_string(::getpid()) + ".pcap";
    std::ofstream(topo_file_) << "nodes: []\n";
    log_ = ::testing::TempDir() + "fp-capture-fastpathd.log";
    pid_ = testing::spawnInNetns(d_, log_,
                                 {FASTPATHD_PATH, "--topology", topo_file_, "--socket", sock_});
    ASSERT_GE(pid_, 0);
    ASSERT_NO_FATAL_FAILURE(testing::connectWhenOpen(sock_, log_, &client_));
    ASSERT_NO_FATAL_FAILURE(testing::twoNodesTwoHosts(*client_, *topo_, d_, tag_, host_));
  }

  void TearDown() override {
    client_.reset();
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      for (int i = 0; i < 100 && waitpid(pid_, &status, WNOHANG) != pid_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const char* h : {"a", "b"}) testing::sh("ip netns del fp-" + tag_ + h + " 2>/dev/null");
    std::remove(topo_file_.c_str());
    std::remove(pcap_.c_str());
  }

  std::string fpctl(const std::string& args) {
    return std::string(FPCTL_PATH) + " -s " + sock_ + " " + args;
  }

  /// Runs `cmd` (an fpctl capture) in the background while host a pings host b `pings`
  /// times; the command's exit status and output.
  int captureWhilePinging(const std::string& cmd, int pings, std::string* out,
                          bool bounded = true) {
    int rc = -1;
    std::thread t([&] { rc = run((bounded ? "timeout 20 " : "") + cmd, out); });
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the capture is open
    EXPECT_EQ(topo_->exec(host_[0].netns, "ping -c " + std::to_string(pings) +
                                               " -i 0.05 -W 2 -q 198.18.2.2 >/dev/null"),
              0)
        << "log: " << log_;
    t.join();
    return rc;
  }

  std::unique_ptr<Topology> topo_;
  std::string d_, tag_, sock_, topo_file_, log_, pcap_;
  pid_t pid_ = -1;
  std::unique_ptr<ctrl::Client> client_;
  HostInfo host_[2];
};

TEST_F(CaptureVeth, OneDirectionOfALinkToAFileReadBackWithLibpcapAndTcpdump) {
  std::string out;
  ASSERT_EQ(captureWhilePinging(fpctl("capture l1 a-to-b -w " + pcap_ + " -c 5 icmp"), 10, &out),
            0)
      << out;
  EXPECT_NE(out.find("5 frames captured"), std::string::npos) << out;
  EXPECT_NE(out.find("0 frames dropped by fastpathd"), std::string::npos) << out;
  int linktype = -1;
  std::string why;
  const auto frames = readPcap(pcap_, &linktype, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(linktype, DLT_EN10MB);
  ASSERT_EQ(frames.size(), 5u) << "-c 5";
  for (const auto& f : frames) {
    EXPECT_EQ(f.caplen, f.len);
    ASSERT_GE(f.data.size(), 34u + 8u);
    EXPECT_EQ(f.data[12], 0x08);
    EXPECT_EQ(f.data[23], 1) << "ICMP";
    EXPECT_EQ(f.data[34], 8) << "a-to-b carries the echo requests only";
    EXPECT_EQ(f.data[26], 198);
    EXPECT_EQ(f.data[28], 1) << "from 198.18.1.2";
    EXPECT_EQ(f.data[32], 2) << "to 198.18.2.2";
    EXPECT_EQ(f.data[22], 63) << "r1 decremented the TTL before the link";
  }
  std::string dump;
  ASSERT_EQ(run("tcpdump -n -r " + pcap_, &dump), 0) << dump;
  size_t lines = 0;
  for (size_t p = 0; (p = dump.find("ICMP echo request", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 5u) << dump;
  // tcpdump's own filter on our file agrees.
  ASSERT_EQ(run("tcpdump -n -r " + pcap_ + " 'icmp[icmptype] = icmp-echoreply'", &dump), 0);
  EXPECT_EQ(dump.find("ICMP echo"), std::string::npos) << dump;
}

TEST_F(CaptureVeth, BothDirectionsThroughAPipeIntoTcpdumpWithASnapLength) {
  std::string out;
  ASSERT_EQ(captureWhilePinging(fpctl("capture l1 -w - -c 6 --snaplen 60 icmp") +
                                    " | tcpdump -n -r - 2>&1",
                                5, &out),
            0)
      << out;
  size_t req = 0, rep = 0;
  for (size_t p = 0; (p = out.find("ICMP echo request", p)) != std::string::npos; ++p) ++req;
  for (size_t p = 0; (p = out.find("ICMP echo reply", p)) != std::string::npos; ++p) ++rep;
  EXPECT_EQ(req, 3u) << out;
  EXPECT_EQ(rep, 3u) << out;
  // The pcap header says 60: tcpdump reads frames cut there (98 bytes on the wire).
  ASSERT_EQ(captureWhilePinging(fpctl("capture l1 -w " + pcap_ + " -c 2 --snaplen 60"), 3, &out),
            0)
      << out;
  int linktype = -1;
  std::string why;
  const auto frames = readPcap(pcap_, &linktype, &why);
  ASSERT_EQ(frames.size(), 2u) << why;
  for (const auto& f : frames) {
    EXPECT_EQ(f.caplen, 60u);
    EXPECT_EQ(f.len, 98u);
  }
}

TEST_F(CaptureVeth, PortCaptureInTextAndAFilterThatDropsEverything) {
  std::string out;
  // host a's port in r1: received (requests) and sent (replies), one line each.
  ASSERT_EQ(captureWhilePinging(fpctl("--node r1 capture " + host_[0].port + " -c 4 icmp"), 4,
                                &out),
            0)
      << out;
  size_t in = 0, outgoing = 0;
  for (size_t p = 0; (p = out.find(" in length 98 IP 198.18.1.2 > 198.18.2.2", p)) !=
                     std::string::npos;
       ++p)
    ++in;
  for (size_t p = 0; (p = out.find(" out length 98 IP 198.18.2.2 > 198.18.1.2", p)) !=
                     std::string::npos;
       ++p)
    ++outgoing;
  EXPECT_EQ(in, 2u) << out;
  EXPECT_EQ(outgoing, 2u) << out;
  // Nothing matches: the summary counts the frames filtered out; SIGINT (to that fpctl,
  // by its pid) ends it cleanly.
  const std::string pidfile = pcap_ + ".pid";
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    std::ifstream f(pidfile);
    pid_t pid = 0;
    if (f >> pid && pid > 0) ::kill(pid, SIGINT);
  });
  ASSERT_EQ(captureWhilePinging("sh -c 'echo $$ > " + pidfile + "; exec " +
                                    fpctl("capture l1 -w /dev/null udp port 9") + "'",
                                4, &out, false),
            0)
      << out;
  t.join();
  std::remove(pidfile.c_str());
  EXPECT_NE(out.find("0 frames captured"), std::string::npos) << out;
  EXPECT_NE(out.find("8 frames filtered out"), std::string::npos) << out;
}

TEST_F(CaptureVeth, BadTargetsAndFiltersAreRefusedWithAClearMessage) {
  std::string out;
  EXPECT_EQ(run(fpctl("capture nosuch"), &out), 1) << out;
  EXPECT_NE(out.find("no link or segment of that name"), std::string::npos) << out;
  EXPECT_EQ(run(fpctl("capture l1 a-to-b -c 1 'udp port'"), &out), 2) << out;
  EXPECT_NE(out.find("filter \"udp port\""), std::string::npos) << out;
  EXPECT_EQ(run(fpctl("--node r1 capture " + host_[0].port + " a-to-b"), &out), 1) << out;
  EXPECT_NE(out.find("for links only"), std::string::npos) << out;
  EXPECT_EQ(run(fpctl("capture l1 --snaplen 5"), &out), 2) << out;
  EXPECT_NE(out.find("--snaplen"), std::string::npos) << out;
  EXPECT_EQ(run(fpctl("capture l1 -c 0"), &out), 2) << out;
  // Through the client library: the errno and the field.
  CaptureSpec spec;
  spec.target = "a/b";
  auto r = client_->startCapture(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINVAL);
  EXPECT_NE(r.error().message.find("start_capture.target"), std::string::npos);
  spec.target = "l1";
  spec.snaplen = 70000;
  r = client_->startCapture(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("start_capture.snaplen"), std::string::npos);
  EXPECT_EQ(client_->stopCapture(12345).error().code, -ENOENT);
}

}  // namespace
}  // namespace fastpath
