// SPDX-License-Identifier: GPL-2.0-only
// fastpathd on S - R - D against a client that asks for thousands of control channels in
// one write and never reads a reply: forwarding goes on, descriptors stay bounded well
// below RLIMIT_NOFILE, no port is taken for vanished, the log stays small, and root still
// gets in.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "fastpath/ctrl/client.h"
#include "fastpath/ctrl/protocol.h"
#include "fastpath/v1/fastpath.pb.h"
#include "forwarding_veth_traffic.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::Topology;
using namespace vethtest;

constexpr int kNoFile = 1024;  // fastpathd's RLIMIT_NOFILE in this test

// A request as it goes on the wire: varint length, then the message.
std::string wireFrame(const v1::Request& r) {
  std::string body = r.SerializeAsString(), out;
  for (uint64_t n = body.size();; n >>= 7) {
    out += char((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    if (n <= 0x7f) break;
  }
  return out + body;
}

int openFds(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

TEST(HostileClientVeth, ThousandsOfUnreadControlChannelsDoNotStopForwarding) {
  std::string why;
  if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
  Topology topo("hcl");
  const std::string s = topo.addNamespace("s"), r = topo.addNamespace("r"),
                    d = topo.addNamespace("d");
  topo.addVeth(s, "s0", r, "fp0");
  topo.addVeth(r, "fp1", d, "d0");
  const MacAddress s_mac = mac(topo.mac(s, "s0")), r0_mac = mac(topo.mac(r, "fp0")),
                   d_mac = mac(topo.mac(d, "d0"));
  const std::string sock = "/tmp/fp-hcl-" + std::to_string(::getpid()) + ".sock";
  const std::string log = ::testing::TempDir() + "fastpathd-hcl.log";
  pid_t pid = topo.spawn(
      r,
      {"prlimit", "--nofile=" + std::to_string(kNoFile), FASTPATHD_PATH, "--port", "fp0", "--port",
       "fp1", "--socket", sock, "--route", "198.18.2.0/24,via=198.18.1.2,dev=fp1", "--neigh",
       "198.18.1.2,mac=" + d_mac.toString() + ",dev=fp1"},
      log);
  ASSERT_GT(pid, 0);
  std::unique_ptr<ctrl::Client> root;
  for (int i = 0; i < 200 && !root; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (auto c = ctrl::Client::connect(sock, {})) root = std::move(c).value();
  }
  ASSERT_TRUE(root) << testing::shOutput("cat " + log);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // sockets bound after attach

  // The hostile client: Hello, then 20,000 OpenControlChannel in one stream, never read.
  int h = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock.c_str());
  ASSERT_EQ(::connect(h, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  int small = 4096;
  ::setsockopt(h, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  std::string burst;
  v1::Request hello;
  hello.set_id(1);
  hello.mutable_hello()->mutable_version()->set_major(ctrl::kProtocolMajor);
  burst += wireFrame(hello);
  for (int i = 0; i < 20000; ++i) {
    v1::Request req;
    req.set_id(2 + i);
    req.mutable_open_control_channel()->mutable_port()->set_id(i % 2);
    burst += wireFrame(req);
  }
  std::thread writer([&] {
    size_t off = 0;  // blocks while fastpathd reads at its own pace
    while (off < burst.size()) {
      ssize_t n = ::send(h, burst.data() + off, burst.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += size_t(n);
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));

  // Forwarding goes on.
  Capture cap(d, "d0");
  ASSERT_TRUE(cap.ok());
  const auto f = buildFrame(r0_mac, s_mac, false, "198.18.0.1", "198.18.2.10", 64, 0);
  ASSERT_EQ(sendFrames(s, "s0", {f}, 500, 2000, 3000).sent, 500u);
  EXPECT_TRUE(cap.waitFor(500, 3000)) << "forwarded " << cap.count() << " of 500";
  // Descriptors stay bounded, with room to spare.
  const int fds = openFds(pid);
  EXPECT_LT(fds, kNoFile - 256) << "fastpathd holds " << fds << " descriptors";
  // Root still gets in, and sees the refusals counted.
  auto stats = root->stats();
  ASSERT_TRUE(stats) << stats.error().message;
  uint64_t refused = 0;
  for (const auto& cs : stats.value())
    if (cs.scope == "control-server")
      for (const auto& [k, v] : cs.counters)
        if (k == "refused_fds") refused = v;
  EXPECT_GT(refused, 0u);

  ::shutdown(h, SHUT_RDWR);
  writer.join();
  ::close(h);
  root.reset();
  EXPECT_EQ(topo.stop(pid, 5000), 0);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("vanished"), std::string::npos) << text.substr(0, 4000);
  EXPECT_LT(text.size(), 64u * 1024) << "the log is flooded";
}

}  // namespace
}  // namespace fastpath
