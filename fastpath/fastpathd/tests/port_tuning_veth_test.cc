// SPDX-License-Identifier: GPL-2.0-only
// What fastpathd sets up on its ports, and that it puts it back: threaded NAPI and the
// affinity and scheduling of the ports' NAPI threads, after a normal stop, after SIGKILL
// (the next start restores), and nothing at all with --no-tune. Two ports in one namespace: fpt0 as a
// fresh veth (threaded NAPI off, no NAPI thread until XDP is attached), fpt1 with GRO on
// and threaded NAPI already on (NAPI threads that exist before and after, on every CPU).
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/napi_threads.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::NetnsGuard;
using testing::Topology;

// What the test compares: the ports' threaded flags and each NAPI thread's affinity and
// scheduling ("fifo 2", "other 0": policy and priority or nice).
struct Settings {
  std::string threaded0, threaded1;
  std::map<pid_t, std::vector<int>> napi_cpus;
  std::map<pid_t, std::string> napi_sched;
};

std::string schedOf(pid_t pid) {
  const int policy = sched_getscheduler(pid);
  sched_param sp{};
  if (policy < 0 || sched_getparam(pid, &sp) != 0) return "gone";
  if (policy == SCHED_FIFO) return "fifo " + std::to_string(sp.sched_priority);
  if (policy == SCHED_RR) return "rr " + std::to_string(sp.sched_priority);
  return (policy == SCHED_OTHER ? "other " : "policy" + std::to_string(policy) + " ") +
         std::to_string(getpriority(PRIO_PROCESS, id_t(pid)));
}

// Sets a thread's scheduling as `chrt` would (what a user or a tool did before fastpathd).
void setSched(pid_t pid, int policy, int priority) {
  sched_param sp{};
  sp.sched_priority = priority;
  ASSERT_EQ(sched_setscheduler(pid, policy, &sp), 0) << "pid " << pid << ": " << strerror(errno);
}

std::string toString(const Settings& s) {
  std::ostringstream o;
  o << "fpt0 threaded=" << s.threaded0 << " fpt1 threaded=" << s.threaded1 << " napi threads:";
  if (s.napi_cpus.empty()) o << " none";
  for (const auto& [pid, cpus] : s.napi_cpus) {
    o << " " << pid << "=[";
    for (size_t i = 0; i < cpus.size(); ++i) o << (i ? "," : "") << cpus[i];
    o << "]";
  }
  for (const auto& [pid, sched] : s.napi_sched) o << " " << pid << "=" << sched;
  return o.str();
}

class PortTuningVeth : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs to see pinning";
    topo_ = std::make_unique<Topology>("tun");
    r_ = topo_->addNamespace("r");
    s_ = topo_->addNamespace("s");
    topo_->addVeth(s_, "s0", r_, "fpt0");
    topo_->addVeth(s_, "s1", r_, "fpt1");
    // veth has NAPI instances with GRO on; threaded on gives them kthreads now.
    ASSERT_EQ(topo_->exec(r_, "ethtool -K fpt1 gro on >/dev/null"), 0);
    ASSERT_EQ(topo_->exec(r_, "sh -c 'echo 1 > /sys/class/net/fpt1/threaded'"), 0);
    sock_ = "/tmp/fp-tun-" + std::to_string(::getpid()) + ".sock";
    std::string key = sock_;
    for (auto& c : key)
      if (c == '/') c = '_';
    state_suffix_ = "-" + key + ".json";
  }

  Settings read() {
    Settings s;
    auto flag = [&](const std::string& ifname) {
      std::string v = topo_->execOutput(r_, "cat /sys/class/net/" + ifname + "/threaded");
      while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
      return v;
    };
    s.threaded0 = flag("fpt0");
    s.threaded1 = flag("fpt1");
    NetnsGuard in(r_);
    EXPECT_TRUE(in.ok());
    auto set = findNapiThreads({"fpt0", "fpt1"});
    EXPECT_TRUE(set) << (set ? "" : set.error().message);
    if (!set) return s;
    for (pid_t pid : set->pids) {
      cpu_set_t cpus;
      CPU_ZERO(&cpus);
      if (sched_getaffinity(pid, sizeof(cpus), &cpus) != 0) continue;
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &cpus)) s.napi_cpus[pid].push_back(c);
      s.napi_sched[pid] = schedOf(pid);
    }
    return s;
  }

  // prefix: run fastpathd through these first (e.g. nsenter).
  pid_t start(const std::vector<std::string>& extra, const std::string& log,
              const std::vector<std::string>& prefix = {}) {
    std::vector<std::string> argv = prefix;
    for (const char* a : {FASTPATHD_PATH, "--port", "fpt0", "--port", "fpt1", "--cores", "0",
                          "--socket"})
      argv.push_back(a);
    argv.push_back(sock_);
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::remove(log.c_str());
    pid_t pid = topo_->spawn(r_, argv, log);
    for (int i = 0; i < 200; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (logText(log).find("fastpathd: forwarding") != std::string::npos) return pid;
      if (waitpid(pid, nullptr, WNOHANG) == pid) break;
    }
    ADD_FAILURE() << "fastpathd did not start:\n" << logText(log);
    return -1;
  }

  static std::string logText(const std::string& log) {
    std::ifstream f(log);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }

  // State files of daemons with this test's socket (any namespace).
  int stateFiles() const {
    int n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/run/fastpathd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("tuning-", 0) == 0 && name.size() > state_suffix_.size() &&
          name.compare(name.size() - state_suffix_.size(), state_suffix_.size(),
                       state_suffix_) == 0)
        ++n;
    }
    return n;
  }

  // While a tuned fastpathd (--cores 0) runs: threaded NAPI on both ports, every NAPI
  // thread of them on CPU 0 with the scheduling `sched` ("fifo 2": what --napi-priority
  // auto gives under --rt-priority auto), one state file.
  void expectTuned(const Settings& s, const std::string& log,
                   const std::string& sched = "fifo 2") {
    EXPECT_EQ(s.threaded0, "1") << logText(log);
    EXPECT_EQ(s.threaded1, "1");
    EXPECT_FALSE(s.napi_cpus.empty()) << "no NAPI thread while XDP is attached";
    for (const auto& [pid, cpus] : s.napi_cpus)
      EXPECT_EQ(cpus, std::vector<int>{0}) << "NAPI thread " << pid << "\n" << logText(log);
    for (const auto& [pid, got] : s.napi_sched)
      EXPECT_EQ(got, sched) << "NAPI thread " << pid << "\n" << logText(log);
    EXPECT_EQ(stateFiles(), 1);
  }

  std::unique_ptr<Topology> topo_;
  std::string r_, s_, sock_, state_suffix_;
};

TEST_F(PortTuningVeth, NormalStopRestoresEverySetting) {
  const std::string log = ::testing::TempDir() + "fastpathd-tun-stop.log";
  const Settings before = read();
  ASSERT_EQ(before.threaded0, "0");
  ASSERT_EQ(before.threaded1, "1");
  ASSERT_FALSE(before.napi_cpus.empty());
  pid_t pid = start({"--napi-priority", "auto"}, log);
  ASSERT_GT(pid, 0);
  const Settings during = read();
  expectTuned(during, log);
  EXPECT_EQ(topo_->stop(pid), 0);
  const Settings after = read();
  EXPECT_EQ(toString(after), toString(before)) << logText(log);
  EXPECT_EQ(stateFiles(), 0);
  std::printf("before: %s\nduring: %s\nafter:  %s\n", toString(before).c_str(),
              toString(during).c_str(), toString(after).c_str());
  // The workers run under the NAPI threads (one above only while an RX ring fills up).
  EXPECT_NE(logText(log).find("SCHED_FIFO 1, under napi/"), std::string::npos) << logText(log);
}

TEST_F(PortTuningVeth, NextStartRestoresAfterSigkill) {
  const std::string log1 = ::testing::TempDir() + "fastpathd-tun-kill1.log";
  const std::string log2 = ::testing::TempDir() + "fastpathd-tun-kill2.log";
  const Settings before = read();
  pid_t pid = start({"--napi-priority", "auto"}, log1);
  ASSERT_GT(pid, 0);
  expectTuned(read(), log1);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  const Settings killed = read();
  EXPECT_EQ(killed.threaded0, "1") << "nothing left to restore after SIGKILL?";
  EXPECT_EQ(stateFiles(), 1);

  pid = start({"--napi-priority", "auto"}, log2);
  ASSERT_GT(pid, 0);
  EXPECT_NE(logText(log2).find("restoring from"), std::string::npos) << logText(log2);
  expectTuned(read(), log2);
  EXPECT_EQ(topo_->stop(pid), 0);
  const Settings after = read();
  EXPECT_EQ(toString(after), toString(before)) << logText(log2);
  EXPECT_EQ(stateFiles(), 0);
  std::printf("before: %s\nkilled: %s\nafter:  %s\n", toString(before).c_str(),
              toString(killed).c_str(), toString(after).c_str());
}

TEST_F(PortTuningVeth, NoTuneChangesNothing) {
  const std::string log = ::testing::TempDir() + "fastpathd-tun-notune.log";
  const Settings before = read();
  pid_t pid = start({"--no-tune"}, log);
  ASSERT_GT(pid, 0);
  const Settings during = read();
  EXPECT_EQ(during.threaded0, before.threaded0);
  EXPECT_EQ(during.threaded1, before.threaded1);
  // fpt1's threads are untouched; fpt0 has none (threaded NAPI stays off).
  for (const auto& [pid_, cpus] : before.napi_cpus) {
    auto it = during.napi_cpus.find(pid_);
    ASSERT_NE(it, during.napi_cpus.end());
    EXPECT_EQ(it->second, cpus);
  }
  EXPECT_EQ(during.napi_cpus.size(), before.napi_cpus.size()) << toString(during);
  for (const auto& [pid_, sched] : before.napi_sched)
    EXPECT_EQ(during.napi_sched.count(pid_) ? during.napi_sched.at(pid_) : "gone", sched);
  EXPECT_EQ(stateFiles(), 0);
  EXPECT_EQ(logText(log).find("port tuning"), std::string::npos) << logText(log);
  EXPECT_EQ(topo_->stop(pid), 0);
  EXPECT_EQ(toString(read()), toString(before));
}

// fastpathd in the port's network namespace but with the test's mount namespace, whose
// /sys is another network namespace's sysfs (no fpt0 there): what a bare setns() leaves.
// It must still reach its own fpt0 (through its private sysfs mount) and restore it.
TEST_F(PortTuningVeth, OwnSysfsWhenSlashSysIsAnotherNamespaces) {
  ASSERT_NE(access("/sys/class/net/fpt0", F_OK), 0) << "fpt0 in the test's own namespace?";
  const std::string log = ::testing::TempDir() + "fastpathd-tun-setns.log";
  const Settings before = read();
  pid_t pid = start({"--napi-priority", "auto"}, log, {"nsenter", "--mount=/proc/" + std::to_string(::getpid()) +
                                              "/ns/mnt", "--"});
  ASSERT_GT(pid, 0);
  expectTuned(read(), log);
  EXPECT_EQ(topo_->stop(pid), 0);
  EXPECT_EQ(toString(read()), toString(before)) << logText(log);
  EXPECT_EQ(stateFiles(), 0);
}

// A NAPI thread that was real-time before fastpathd goes back to its own priority, and
// --napi-priority N sets N (the workers go one above it); keep leaves the priority alone.
TEST_F(PortTuningVeth, NapiPriorityIsSetAndRestored) {
  const std::string log = ::testing::TempDir() + "fastpathd-tun-prio.log";
  Settings before = read();
  ASSERT_FALSE(before.napi_sched.empty());
  for (const auto& [pid, sched] : before.napi_sched) setSched(pid, SCHED_FIFO, 5);
  before = read();
  pid_t pid = start({"--napi-priority", "7"}, log);
  ASSERT_GT(pid, 0);
  expectTuned(read(), log, "fifo 7");
  EXPECT_NE(logText(log).find("-> SCHED_FIFO 7"), std::string::npos) << logText(log);
  EXPECT_EQ(topo_->stop(pid), 0);
  EXPECT_EQ(toString(read()), toString(before)) << logText(log);
  EXPECT_NE(logText(log).find("SCHED_FIFO 7 -> SCHED_FIFO 5 (restored)"), std::string::npos)
      << logText(log);

  pid = start({"--napi-priority", "keep"}, log);
  ASSERT_GT(pid, 0);
  const Settings kept = read();
  for (const auto& [p, sched] : kept.napi_sched)
    if (before.napi_sched.count(p)) EXPECT_EQ(sched, "fifo 5") << "NAPI thread " << p;
    else EXPECT_EQ(sched.rfind("other ", 0), 0u) << "NAPI thread " << p << ": " << sched;
  EXPECT_EQ(topo_->stop(pid), 0);
  EXPECT_EQ(toString(read()), toString(before)) << logText(log);
  for (const auto& [p, sched] : before.napi_sched) setSched(p, SCHED_OTHER, 0);
}

// With normal workers (--rt-priority 0) auto leaves the NAPI threads' scheduling alone.
// (The default, keep, leaves them alone whatever the workers; ForwardingVeth floods it.)
TEST_F(PortTuningVeth, NapiPriorityAutoWithNormalWorkersChangesNothing) {
  const std::string log = ::testing::TempDir() + "fastpathd-tun-prio0.log";
  const Settings before = read();
  pid_t pid = start({"--napi-priority", "auto", "--rt-priority", "0"}, log);
  ASSERT_GT(pid, 0);
  const Settings during = read();
  for (const auto& [p, sched] : during.napi_sched)
    EXPECT_EQ(sched.rfind("other ", 0), 0u) << "NAPI thread " << p << ": " << sched;
  EXPECT_EQ(logText(log).find("-> SCHED_FIFO"), std::string::npos) << logText(log);
  EXPECT_EQ(topo_->stop(pid), 0);
  EXPECT_EQ(toString(read()), toString(before)) << logText(log);
}

}  // namespace
}  // namespace fastpath
