// SPDX-License-Identifier: GPL-2.0-only
// A bounded flood through fastpathd on veth (S -- R -- D in namespaces fp-flood-*, the
// daemon at R with real AF_XDP sockets and the real classifier): S sends faster than R
// forwards, and afterwards every frame S offered is either received at D or counted by
// the one place that dropped it - exactly, frame for frame. What fastpathd sees: the XDP
// classifier's drop and pass verdicts, the AF_XDP sockets' XDP_STATISTICS, the worker's
// drop reasons, frames handed to the control channel. What only the kernel sees: the veth
// ring in front of R's XDP program full (S's tx_dropped), R -> D refused (fp1's
// tx_dropped, D's rx_dropped). Also: the flood is an overload to fastpathd, where its
// rings hold no more frames than its RX budget allows (bounded in time, not by entries).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"
#include "worker/worker.h"

namespace fastpath {
namespace {

using namespace vethtest;

class FloodLedger : public SrdFixture {
 protected:
  void SetUp() override {
    makeTopology("flood");
    if (IsSkipped()) return;
    // Nothing but the test's frames on the wires: no IPv6 autoconfiguration, router
    // solicitations or MLD reports from any of the three namespaces.
    for (const auto& ns : {s_, r_, d_})
      ASSERT_EQ(0, topo_->exec(ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                                   "net.ipv6.conf.default.disable_ipv6=1"));
  }

  Config config() {
    Config c;
    c.ports = {"fp0", "fp1"};
    c.control_socket = "/tmp/fp-flood-" + std::to_string(getpid()) + ".sock";
    // The worker and the ports' NAPI threads on the last CPU, the sender on CPU 0.
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 1) c.cores = {int(ncpu - 1)};
    auto add = [&](const std::string& spec, const std::string& kind) {
      std::string a0 = "x", a1 = "--" + kind, a2 = spec;
      char* argv[] = {a0.data(), a1.data(), a2.data()};
      auto r = parseCommandLine(3, argv);
      ASSERT_TRUE(r.ok()) << r.error().message;
      if (kind == "route")
        c.routes.push_back(r->routes[0]);
      else
        c.neighbours.push_back(r->neighbours[0]);
    };
    add("198.18.2.0/24,via=198.18.1.2,dev=fp1", "route");
    add("198.18.1.2,mac=" + d_mac_.toString() + ",dev=fp1", "neigh");
    return c;
  }

  /// An interface's kernel counter (statistics/<name>) as its own namespace sees it.
  uint64_t linkStat(const std::string& ns, const std::string& ifname, const std::string& name) {
    const std::string out =
        topo_->execOutput(ns, "cat /sys/class/net/" + ifname + "/statistics/" + name);
    EXPECT_FALSE(out.empty()) << ns << " " << ifname << " " << name;
    return out.empty() ? 0 : std::stoull(out);
  }

  struct Kernel {
    uint64_t s_tx, s_tx_dropped, r_out_tx_dropped, d_rx, d_rx_dropped;
  };
  Kernel kernel() {
    return {linkStat(s_, "s0", "tx_packets"), linkStat(s_, "s0", "tx_dropped"),
            linkStat(r_, "fp1", "tx_dropped"), linkStat(d_, "d0", "rx_packets"),
            linkStat(d_, "d0", "rx_dropped")};
  }

  /// Every counter of a scope, by name.
  static std::map<std::string, uint64_t> scope(const std::vector<CounterSet>& sets,
                                               const std::string& name) {
    std::map<std::string, uint64_t> m;
    for (const auto& cs : sets)
      if (cs.scope == name)
        for (const auto& [k, v] : cs.counters) m[k] = v;
    return m;
  }
};

TEST_F(FloodLedger, EveryOfferedFrameIsForwardedOrCountedWhereItWasDropped) {
  startDaemon(config());
  if (HasFatalFailure()) return;
  // Settle: the daemon's start-up (XDP attach, threaded NAPI) is over, the wires are quiet.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Kernel k0 = kernel();
  const auto st0 = daemon_->defaultNode().stats();

  // The flood: flat out from CPU 0, bounded in frames and time.
  constexpr uint64_t kFrames = 400000;
  const auto frame = buildFrame(r0_mac_, s_mac_, false, "198.18.0.1", "198.18.2.10", 64, 0);
  const SendResult sent = sendFrames(s_, "s0", {frame}, kFrames, 0, 20000, 0);
  ASSERT_GT(sent.sent, 0u);

  // Wait until everything in flight has arrived or been dropped: D's and R's counters
  // stop moving and fastpathd's rings are empty.
  Kernel k1 = kernel();
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const Kernel k = kernel();
    const auto w = scope(daemon_->defaultNode().stats(), "worker 0");
    const bool quiet = k.d_rx == k1.d_rx && k.s_tx == k1.s_tx &&
                       w.at("frames_rx_ring") == 0 && w.at("frames_tx_ring") == 0;
    k1 = k;
    if (quiet) break;
  }
  const auto st1 = daemon_->defaultNode().stats();

  const uint64_t offered = (k1.s_tx - k0.s_tx) + (k1.s_tx_dropped - k0.s_tx_dropped);
  const uint64_t received = k1.d_rx - k0.d_rx;
  ASSERT_GE(offered, received);

  // What fastpathd counts, between the two snapshots.
  auto delta = [&](const std::string& sc, const std::string& name) {
    return counter(st1, sc, name) - counter(st0, sc, name);
  };
  std::map<std::string, uint64_t> seen;
  seen["classifier fp0 drop"] = delta("classifier fp0", "drop");
  seen["classifier fp0 pass"] = delta("classifier fp0", "pass");
  // XDP_STATISTICS: rx_dropped counts every frame the socket could not take (no fill
  // frame, too long); rx_fill_ring_empty_descs is a breakdown of it, not another drop.
  seen["xsk fp0 rx_dropped"] = delta("port fp0", "xsk_rx_dropped");
  seen["xsk fp0 rx_ring_full"] = delta("port fp0", "xsk_rx_ring_full");
  for (const char* port : {"fp0", "fp1"}) {
    const std::string sc = std::string("port ") + port;
    seen[sc + " to_control"] = delta(sc, "to_control");
    for (size_t d = 0; d < size_t(WorkerDrop::kMax); ++d) {
      const std::string name = std::string("drop_") + workerDropName(WorkerDrop(d));
      seen[sc + " " + name] = delta(sc, name);
    }
  }
  std::map<std::string, uint64_t> unseen;
  unseen["S s0 tx_dropped (R's veth ring full)"] = k1.s_tx_dropped - k0.s_tx_dropped;
  unseen["R fp1 tx_dropped (D refused)"] = k1.r_out_tx_dropped - k0.r_out_tx_dropped;
  unseen["D d0 rx_dropped"] = k1.d_rx_dropped - k0.d_rx_dropped;

  uint64_t seen_sum = 0, unseen_sum = 0;
  std::string ledger = "offered " + std::to_string(offered) + " (sender: " +
                       std::to_string(sent.sent) + " in " + std::to_string(sent.seconds) +
                       " s), received at D " + std::to_string(received) + "\n";
  for (const auto& [k, v] : seen) {
    seen_sum += v;
    if (v) ledger += "  fastpathd: " + k + " " + std::to_string(v) + "\n";
  }
  for (const auto& [k, v] : unseen) {
    unseen_sum += v;
    if (v) ledger += "  kernel only: " + k + " " + std::to_string(v) + "\n";
  }
  ledger += "  fill ring empty (part of rx_dropped): " +
            std::to_string(delta("port fp0", "xsk_fill_ring_empty")) + "\n";
  std::printf("%s", ledger.c_str());

  // The flood was one: R could not forward all of it.
  EXPECT_GT(offered - received, 0u) << "the flood did not overload R\n" << ledger;
  EXPECT_EQ(offered - received, seen_sum + unseen_sum) << ledger;
  // Forwarded frames are fastpathd's forwards: nothing else reached D.
  EXPECT_EQ(delta("port fp1", "tx_packets"),
            received + (k1.r_out_tx_dropped - k0.r_out_tx_dropped) +
                (k1.d_rx_dropped - k0.d_rx_dropped))
      << ledger;

  // Bounded in time: the flood was seen as an overload, where fastpathd lends the kernel
  // no more frames for RX than its budget (what it drains in --rx-budget-us at its
  // measured rate), not the ring's 4,096.
  const auto w = scope(st1, "worker 0");
  EXPECT_GT(w.at("rx_drain_rate_pps"), 0u);
  EXPECT_GT(w.at("rx_overload_windows"), 0u) << ledger;
  EXPECT_LT(w.at("rx_budget_frames"), config().ring_size) << ledger;
  EXPECT_EQ(w.at("frames_balanced"), 1u);
}

}  // namespace
}  // namespace fastpath
