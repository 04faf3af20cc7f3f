// SPDX-License-Identifier: GPL-2.0-only
// Real hosts from an ns-3 script: examples/hosts (two OLSR routers, FastPathHostHelper on
// each) run emulated as an unprivileged user against a fastpathd it may create nodes,
// links and hosts on. A real `ping` from one host's namespace to the other crosses the
// emulated routers; Ctrl-C (SIGINT) stops the script and everything it created is gone; a
// script killed with SIGKILL leaves its nodes and hosts, and the next run starts cleanly
// and leaves nothing of either run: no node, link, host namespace, veth or XDP program. A
// real interface given to the script (FastPathHelper::Install(r1, {"fp-hsx0"})) is
// attached to r1's fastpathd node while the script runs, and detached when it ends.
// fastpathd runs with `nsenter --net` so that the namespaces it mounts are the test's.
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fastpath/ctrl/client.h"
#include "netns.h"

namespace fastpath {
namespace {

using Clock = std::chrono::steady_clock;
using testing::Topology;

constexpr uid_t kNobody = 65534;

class Ns3Hosts : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("hsn");
    d_ = topo_->addNamespace("d");
    tag_ = "hs-" + std::to_string(::getpid() % 100000);  // namespaces fp-hs-NNNNN-h1
    dir_ = "/tmp/fp-hsn-" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0755);
    sock_ = dir_ + "/fp.sock";
    std::ofstream(dir_ + "/empty.yaml") << "nodes: []\n";
    log_ = ::testing::TempDir() + "fp-hsn-fastpathd.log";
    daemon_ = spawn({"nsenter", "--net=/run/netns/" + d_, FASTPATHD_BIN, "--topology",
                     dir_ + "/empty.yaml", "--socket", sock_, "--socket-uid",
                     std::to_string(kNobody),
                     // The script (an operator) attaches the test's own interface.
                     "--attachable", "fp-hsx*"},
                    log_, 0);
    for (int i = 0; i < 100 && !client_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (auto c = ctrl::Client::connect(sock_, {})) client_ = std::move(c).value();
    }
    ASSERT_TRUE(client_) << "fastpathd did not start; log: " << log_;
  }

  void TearDown() override {
    if (script_ > 0) {
      ::kill(script_, SIGKILL);
      waitpid(script_, nullptr, 0);
    }
    client_.reset();
    // SIGTERM: fastpathd removes its hosts and state files as it stops (SIGKILL after 5 s).
    if (daemon_ > 0) {
      ::kill(daemon_, SIGTERM);
      waitExit(daemon_, std::chrono::seconds(5));
      daemon_ = -1;
    }
    for (const char* h : {"h1", "h2"}) testing::sh("ip netns del fp-" + tag_ + "-" + h + " 2>/dev/null");
    testing::sh("rm -rf " + dir_);
  }

  /// Starts argv with stdout/stderr to `log`, as `uid` (0: root).
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log, uid_t uid) {
    pid_t pid = fork();
    if (pid == 0) {
      std::freopen(log.c_str(), "w", stdout);
      std::freopen(log.c_str(), "a", stderr);
      if (uid && (setgroups(0, nullptr) != 0 || setgid(uid) != 0 || setuid(uid) != 0)) _exit(126);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    return pid;
  }

  pid_t runScript(double duration, const std::string& log, const std::string& attach = "") {
    std::vector<std::string> argv = {HOSTS_BIN, "--FastPathEmulation=1",
                                     "--FastPathSocket=" + sock_, "--FastPathTag=" + tag_,
                                     "--duration=" + std::to_string(duration)};
    if (!attach.empty()) argv.push_back("--attach=" + attach);
    return spawn(argv, log, kNobody);
  }

  /// Exit status of `pid` within `timeout`, or -1 (then killed).
  static int waitExit(pid_t pid, std::chrono::milliseconds timeout) {
    const auto end = Clock::now() + timeout;
    int status = 0;
    while (Clock::now() < end) {
      if (waitpid(pid, &status, WNOHANG) == pid) return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }

  std::string netns(const char* h) const { return "fp-" + tag_ + "-" + h; }
  static bool netnsExists(const std::string& ns) {
    struct stat st {};
    return ::stat(("/run/netns/" + ns).c_str(), &st) == 0;
  }

  /// Both hosts made and the namespace pings through the routers, within `timeout`.
  bool pingWorks(std::chrono::milliseconds timeout) {
    const auto end = Clock::now() + timeout;
    while (Clock::now() < end) {
      if (netnsExists(netns("h1")) &&
          topo_->exec(netns("h1"), "ping -c 1 -W 1 -q 198.18.2.2 >/dev/null 2>&1") == 0)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    return false;
  }

  /// What is left in fastpathd and the system of runs with this tag.
  std::string leftovers() {
    std::string out;
    const std::string prefix = tag_ + "-";
    if (auto ns = client_->nodes(); ns.ok())
      for (const auto& n : *ns)
        if (n.name.rfind(prefix, 0) == 0) out += " node " + n.name;
    if (auto ls = client_->links(); ls.ok())
      for (const auto& l : *ls)
        if (l.name.rfind(prefix, 0) == 0) out += " link " + l.name;
    if (auto hs = client_->hosts(); hs.ok())
      for (const auto& h : *hs) out += " host " + h.spec.name;
    for (const char* h : {"h1", "h2"})
      if (netnsExists(netns(h))) out += " netns " + netns(h);
    const std::string links = topo_->execOutput(d_, "ip -d link show");
    if (links.find("fh-") != std::string::npos) out += " veth fh-*";
    if (links.find("xdp") != std::string::npos) out += " an XDP program";
    return out;
  }

  std::unique_ptr<Topology> topo_;
  std::string d_, tag_, dir_, sock_, log_;
  pid_t daemon_ = -1, script_ = -1;
  std::unique_ptr<ctrl::Client> client_;
};

TEST_F(Ns3Hosts, RealPingBetweenHostsThroughEmulatedRoutersThenCtrlCRemovesAll) {
  const std::string log = ::testing::TempDir() + "fp-hsn-hosts-1.log";
  script_ = runScript(50, log);
  ASSERT_TRUE(pingWorks(std::chrono::seconds(30)))
      << "no reply through the emulated routers; script log: " << log << ", fastpathd: " << log_;
  EXPECT_EQ(topo_->exec(netns("h1"), "ping -c 5 -i 0.2 -W 2 -q 198.18.2.2 >/dev/null"), 0);
  EXPECT_EQ(topo_->exec(netns("h2"), "ping -c 3 -i 0.2 -W 2 -q 198.18.1.2 >/dev/null"), 0);
  auto hosts = client_->hosts();
  ASSERT_TRUE(hosts.ok());
  EXPECT_EQ(hosts->size(), 2u);
  // Ctrl-C: the simulation stops, Simulator::Destroy() deletes what the script made.
  ::kill(script_, SIGINT);
  const int status = waitExit(script_, std::chrono::seconds(15));
  script_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(leftovers(), "");
}

TEST_F(Ns3Hosts, AfterSigkillTheNextRunStartsCleanAndNothingRemains) {
  const std::string log1 = ::testing::TempDir() + "fp-hsn-hosts-killed.log";
  script_ = runScript(50, log1);
  ASSERT_TRUE(pingWorks(std::chrono::seconds(30))) << "script log: " << log1;
  ::kill(script_, SIGKILL);
  waitExit(script_, std::chrono::seconds(5));
  script_ = -1;
  // What the killed run left behind.
  EXPECT_NE(leftovers().find("host " + tag_ + "-h1"), std::string::npos) << leftovers();
  EXPECT_TRUE(netnsExists(netns("h1")));
  // The next run removes it at its first Install(), makes its own, and removes those.
  const std::string log2 = ::testing::TempDir() + "fp-hsn-hosts-next.log";
  script_ = runScript(3, log2);
  const int status = waitExit(script_, std::chrono::seconds(30));
  script_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "status " << status << "; log: " << log2;
  EXPECT_EQ(leftovers(), "");
}

TEST_F(Ns3Hosts, ARealInterfaceGivenToTheScriptIsAttachedThenDetached) {
  // A namespace of the test behind a veth into fastpathd's namespace: s0 198.18.3.2/24.
  const std::string s = topo_->addNamespace("s");
  topo_->addVeth(s, "s0", d_, "fp-hsx0");
  ASSERT_EQ(topo_->exec(s, "ip addr add 198.18.3.2/24 dev s0"), 0);
  ASSERT_EQ(topo_->exec(s, "ip route add default via 198.18.3.1"), 0);
  const std::string log = ::testing::TempDir() + "fp-hsn-hosts-attach.log";
  script_ = runScript(50, log, "fp-hsx0");
  ASSERT_TRUE(pingWorks(std::chrono::seconds(30))) << "script log: " << log;
  bool attached = false;
  auto ports = client_->ports(tag_ + "-r1");
  ASSERT_TRUE(ports.ok()) << ports.error().message;
  for (const auto& p : *ports) attached |= p.ifname == "fp-hsx0";
  EXPECT_TRUE(attached);
  // ns-3's r1 answers on it; data crosses it, the link and r2 to h2 (r1 announces
  // 198.18.3.0/24 by OLSR, so r2 routes the replies back).
  bool reached = false;
  for (int i = 0; i < 40 && !reached; ++i) {
    reached = topo_->exec(s, "ping -c 1 -W 1 -q 198.18.2.2 >/dev/null 2>&1") == 0;
    if (!reached) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_TRUE(reached) << "script log: " << log;
  EXPECT_EQ(topo_->exec(s, "ping -c 3 -i 0.2 -W 2 -q 198.18.3.1 >/dev/null"), 0);
  ::kill(script_, SIGINT);
  const int status = waitExit(script_, std::chrono::seconds(15));
  script_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  // Detached: no port, no XDP program on it (leftovers() looks at every interface).
  EXPECT_EQ(leftovers(), "");
  EXPECT_EQ(topo_->execOutput(d_, "ip -d link show fp-hsx0").find("xdp"), std::string::npos);
}

}  // namespace
}  // namespace fastpath
