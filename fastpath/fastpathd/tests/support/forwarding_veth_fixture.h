// SPDX-License-Identifier: GPL-2.0-only
// The S -- R -- D topology of fastpathd's veth tests: namespaces fp-<tag>-{s,r,d}, R's ports
// fp0 (towards S) and fp1 (towards D), the daemon linked in-process and started inside R.
// Everything is removed in TearDown, also after a failed assertion.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_traffic.h"
#include "netns.h"

namespace fastpath::vethtest {

/// Counter `name` of `scope` ("port fp0", "worker 0", ...) in a stats() answer; a missing
/// counter fails the test.
inline uint64_t counter(const std::vector<CounterSet>& sets, const std::string& scope,
                        const std::string& name) {
  for (const auto& cs : sets)
    if (cs.scope == scope)
      for (const auto& [k, v] : cs.counters)
        if (k == name) return v;
  ADD_FAILURE() << "no counter " << scope << "/" << name;
  return ~uint64_t(0);
}

class SrdFixture : public ::testing::Test {
 protected:
  /// Creates the namespaces and veths; skips the test without root.
  void makeTopology(const std::string& tag, unsigned queues = 1) {
    std::string why;
    if (!testing::havePrivileges(&why)) GTEST_SKIP() << why;
    topo_ = std::make_unique<Topology>(tag);
    s_ = topo_->addNamespace("s");
    r_ = topo_->addNamespace("r");
    d_ = topo_->addNamespace("d");
    topo_->addVeth(s_, "s0", r_, "fp0", queues);
    topo_->addVeth(r_, "fp1", d_, "d0", queues);
    s_mac_ = mac(topo_->mac(s_, "s0"));
    r0_mac_ = mac(topo_->mac(r_, "fp0"));
    r1_mac_ = mac(topo_->mac(r_, "fp1"));
    d_mac_ = mac(topo_->mac(d_, "d0"));
  }

  /// Starts the daemon inside R (its threads and sockets live there).
  void startDaemon(Config c) {
    guard_ = std::make_unique<NetnsGuard>(r_);
    ASSERT_TRUE(guard_->ok());
    daemon_ = std::make_unique<Daemon>(std::move(c));
    auto st = daemon_->start();
    ASSERT_TRUE(st.ok()) << st.error().message;
  }

  void TearDown() override {
    daemon_.reset();
    guard_.reset();
    topo_.reset();
  }

  std::unique_ptr<Topology> topo_;
  std::unique_ptr<NetnsGuard> guard_;
  std::unique_ptr<Daemon> daemon_;
  std::string s_, r_, d_;
  MacAddress s_mac_, r0_mac_, r1_mac_, d_mac_;
};

}  // namespace fastpath::vethtest
