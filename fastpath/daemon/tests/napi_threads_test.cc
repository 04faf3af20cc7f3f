// SPDX-License-Identifier: GPL-2.0-only
// NAPI thread lookup on real kernel threads: two namespaces, each with a veth named fpq0
// in threaded-NAPI mode. Thread names ("napi/fpq0-<id>") are global, so a lookup by name
// sees both namespaces' threads; the netlink lookup must see only its own namespace's.
#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon_internal.h"
#include "daemon/napi_netlink.h"
#include "daemon/napi_threads.h"
#include "netns.h"

namespace fastpath {
namespace {

using testing::NetnsGuard;
using testing::Topology;

constexpr const char* kIf = "fpq0";

// The oracle, independent of the code under test: pids of kthreads named napi/fpq0-*.
std::vector<pid_t> threadsNamedNapiFpq0() {
  std::string out = testing::shOutput(
      "for p in /proc/[0-9]*; do case \"$(cat $p/comm 2>/dev/null)\" in "
      "napi/fpq0-*) echo ${p#/proc/};; esac; done");
  std::vector<pid_t> pids;
  std::istringstream in(out);
  for (long p; in >> p;) pids.push_back(pid_t(p));
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::vector<pid_t> minus(const std::vector<pid_t>& a, const std::vector<pid_t>& b) {
  std::vector<pid_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string comm(pid_t pid) {
  std::string c = testing::shOutput("cat /proc/" + std::to_string(pid) + "/comm");
  while (!c.empty() && c.back() == '\n') c.pop_back();
  return c;
}

class NapiThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>("q");
    a_ = topo_->addNamespace("a");
    b_ = topo_->addNamespace("b");
    // One veth pair whose two ends are both called fpq0: the testbed case (every node
    // has an "eth0"). Two queues: two NAPI instances per end.
    topo_->addVeth(a_, kIf, b_, kIf, 2);
    ASSERT_EQ(topo_->exec(a_, "ip link show fpq0 >/dev/null"), 0);
    ASSERT_EQ(topo_->exec(b_, "ip link show fpq0 >/dev/null"), 0);
    ASSERT_TRUE(threadsNamedNapiFpq0().empty())
        << "napi/fpq0-* threads exist before the test (another run of this test?)";
  }

  // veth has NAPI instances only with XDP or GRO on; GRO needs no BPF object. `ip netns
  // exec` mounts the namespace's own sysfs, so the write reaches this namespace's fpq0.
  // Returns the napi/fpq0-* kthreads that appeared.
  std::vector<pid_t> setThreaded(const std::string& ns, bool on) {
    auto before = threadsNamedNapiFpq0();
    if (on) {
      EXPECT_EQ(topo_->exec(ns, "ethtool -K fpq0 gro on >/dev/null"), 0);
    }
    EXPECT_EQ(topo_->exec(ns, std::string("sh -c 'echo ") + (on ? "1" : "0") +
                                  " > /sys/class/net/fpq0/threaded'"),
              0);
    std::vector<pid_t> added;
    for (int i = 0; i < 50; ++i) {
      added = minus(threadsNamedNapiFpq0(), before);
      if (!on || added.size() >= 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return added;
  }

  // Threaded NAPI in both namespaces; a's and b's kthreads (told apart by the order in
  // which they appeared). Skips when the kernel cannot do it.
  void bothThreaded() {
    a_threads_ = setThreaded(a_, true);
    if (a_threads_.empty())
      GTEST_SKIP() << "no napi/fpq0-* kthread appeared (threaded NAPI unsupported?)";
    b_threads_ = setThreaded(b_, true);
    ASSERT_FALSE(b_threads_.empty());
    ASSERT_EQ(a_threads_.size(), 2u) << "one kthread per veth queue";
    ASSERT_EQ(b_threads_.size(), 2u);
  }

  Result<NapiThreadSet> lookupIn(const std::string& ns, const std::vector<std::string>& ifs) {
    NetnsGuard in(ns);
    EXPECT_TRUE(in.ok());
    return findNapiThreads(ifs);
  }

  std::unique_ptr<Topology> topo_;
  std::string a_, b_;
  std::vector<pid_t> a_threads_, b_threads_;
};

TEST_F(NapiThreads, NetlinkFindsOnlyItsOwnNamespacesThreadsOfASharedName) {
  bothThreaded();
  if (HasFatalFailure() || IsSkipped()) return;
  auto in_a = lookupIn(a_, {kIf});
  ASSERT_TRUE(in_a.ok()) << in_a.error().message;
  if (in_a->method != NapiLookupMethod::kNetlink)
    GTEST_SKIP() << "kernel lacks netdev netlink NAPI_GET (Linux < 6.8): name fallback only";
  EXPECT_EQ(in_a->pids, a_threads_) << "namespace a must see exactly its own fpq0's threads";
  auto in_b = lookupIn(b_, {kIf});
  ASSERT_TRUE(in_b.ok()) << in_b.error().message;
  EXPECT_EQ(in_b->method, NapiLookupMethod::kNetlink);
  EXPECT_EQ(in_b->pids, b_threads_);
  // What the old lookup did (and still does on old kernels): both namespaces' threads.
  std::vector<pid_t> all;
  std::merge(a_threads_.begin(), a_threads_.end(), b_threads_.begin(), b_threads_.end(),
             std::back_inserter(all));
  EXPECT_EQ(napiThreadsByName({kIf}), all);
}

TEST_F(NapiThreads, NetlinkReportsTheIdInTheThreadsName) {
  bothThreaded();
  if (HasFatalFailure() || IsSkipped()) return;
  NetnsGuard in(a_);
  ASSERT_TRUE(in.ok());
  auto napis = netlinkNapiInstances(int(if_nametoindex(kIf)));
  if (!napis.ok() && (napis.error().code == -ENOENT || napis.error().code == -EOPNOTSUPP))
    GTEST_SKIP() << napis.error().message;
  ASSERT_TRUE(napis.ok()) << napis.error().message;
  ASSERT_EQ(napis->size(), 2u) << "one NAPI instance per veth queue";
  for (const auto& n : *napis) {
    EXPECT_NE(n.napi_id, 0u);
    ASSERT_GT(n.pid, 0) << "threaded NAPI " << n.napi_id << " without a kthread pid";
    // comm is cut at 15 characters.
    std::string want = ("napi/fpq0-" + std::to_string(n.napi_id)).substr(0, 15);
    EXPECT_EQ(comm(n.pid), want);
    EXPECT_TRUE(std::binary_search(a_threads_.begin(), a_threads_.end(), n.pid));
  }
}

TEST_F(NapiThreads, NoThreadsWithoutThreadedModeOrForAMissingPort) {
  bothThreaded();
  if (HasFatalFailure() || IsSkipped()) return;
  setThreaded(a_, false);
  for (int i = 0; i < 50 && !minus(threadsNamedNapiFpq0(), b_threads_).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto in_a = lookupIn(a_, {kIf, "fpq-missing"});
  ASSERT_TRUE(in_a.ok()) << in_a.error().message;
  if (in_a->method != NapiLookupMethod::kNetlink) GTEST_SKIP() << "no netdev netlink NAPI_GET";
  EXPECT_TRUE(in_a->pids.empty()) << "a's fpq0 is no longer threaded; b's threads are not a's";
  auto in_b = lookupIn(b_, {kIf});
  ASSERT_TRUE(in_b.ok()) << in_b.error().message;
  EXPECT_EQ(in_b->pids, b_threads_);
}

// From the current namespace, findRtNapiThreads() sees exactly `pids` (sorted), at
// SCHED_FIFO `priority`.
void expectRtThreads(const std::vector<pid_t>& pids, int priority) {
  auto rt = findRtNapiThreads({kIf});
  ASSERT_EQ(rt.size(), pids.size());
  for (const auto& t : rt) {
    EXPECT_TRUE(std::binary_search(pids.begin(), pids.end(), t.pid)) << t.pid;
    EXPECT_EQ(t.priority, priority);
    EXPECT_EQ(t.comm.rfind("napi/fpq0-", 0), 0u) << t.comm;
  }
}

// The daemon's --rt-priority auto input: real-time NAPI threads of its ports. A real-time
// thread of the other namespace's fpq0 must not count.
TEST_F(NapiThreads, DaemonSeesOnlyItsOwnNamespacesRealTimeThreads) {
  bothThreaded();
  if (HasFatalFailure() || IsSkipped()) return;
  for (pid_t p : b_threads_) ASSERT_EQ(testing::sh("chrt -f -p 50 " + std::to_string(p)), 0);
  {
    NetnsGuard in(a_);
    ASSERT_TRUE(in.ok());
    auto found = findNapiThreads({kIf});
    ASSERT_TRUE(found.ok()) << found.error().message;
    if (found->method != NapiLookupMethod::kNetlink) GTEST_SKIP() << "no netdev netlink NAPI_GET";
    EXPECT_TRUE(findRtNapiThreads({kIf}).empty())
        << "b's real-time napi/fpq0-* threads were taken for a's";
  }
  {
    NetnsGuard in(b_);
    ASSERT_TRUE(in.ok());
    expectRtThreads(b_threads_, 50);
  }
  {
    // a's threads are still under the normal policy: all of them count, as priority 0
    // (the worker goes to SCHED_FIFO 1 above them), none as real-time.
    NetnsGuard in(a_);
    ASSERT_TRUE(in.ok());
    auto all = findPortNapiThreads({kIf});
    ASSERT_EQ(all.size(), a_threads_.size());
    for (const auto& t : all) {
      EXPECT_TRUE(std::binary_search(a_threads_.begin(), a_threads_.end(), t.pid)) << t.pid;
      EXPECT_FALSE(t.realtime);
      EXPECT_EQ(t.priority, 0);
    }
    EXPECT_TRUE(findRtNapiThreads({kIf}).empty());
  }
  for (pid_t p : a_threads_) ASSERT_EQ(testing::sh("chrt -f -p 40 " + std::to_string(p)), 0);
  NetnsGuard in(a_);
  ASSERT_TRUE(in.ok());
  expectRtThreads(a_threads_, 40);
  for (const auto& t : findPortNapiThreads({kIf})) EXPECT_TRUE(t.realtime) << t.pid;
}

}  // namespace
}  // namespace fastpath
