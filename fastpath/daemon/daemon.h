// SPDX-License-Identifier: GPL-2.0-only
// fastpathd's data plane as a class: brings up the classifier, the forwarding table, the
// control-frame channels and the workers for a validated Config, implements ControlBackend
// (what the control socket's server calls), and tears everything down in reverse order.
// The program (fastpathd/main.cc) pairs it with ctrl-bridge's server; tests link it alone.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/config.h"
#include "fastpath/classifier.h"
#include "fastpath/control_backend.h"
#include "table/fib_manager.h"
#include "worker/control_channel.h"
#include "worker/worker.h"

namespace fastpath {

/// Checks what fastpathd needs before anything is touched: root, bpffs (mounted when
/// missing and allowed), every port present, enough queues. Clear message on failure.
Status checkPrerequisites(const Config& config);

class Daemon : public ControlBackend {
 public:
  explicit Daemon(Config config);
  ~Daemon() override;
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// Validates the configuration and prerequisites, then attaches the classifier to every
  /// port, installs static routes/neighbours, creates channels, sockets and workers, and
  /// starts forwarding. On error everything already done is undone.
  Status start();
  /// Stops workers and the relay, closes sockets, detaches XDP. Idempotent.
  void shutdown();
  /// Waits up to `timeout_ms` for control-plane work and does it (fastpathd passes its
  /// control socket's server; a test may pass a plain sleep).
  using ControlPoll = std::function<void(int timeout_ms)>;
  /// The control thread's loop until `stop` becomes true: calls `poll_control`, drains
  /// worker events, checks links and logs stats if asked, then logs the final counters.
  Status run(const std::atomic<bool>& stop, const ControlPoll& poll_control);
  /// Moves worker events to the event sink (deduplicated: one event per key per second).
  void drainEvents();
  /// Emits port up/down events when a port's IFF_UP flag changed or its interface vanished
  /// (run() does it every second), and publishes the state to the FIB: routes through a
  /// down port become counted drops (drop_port_down).
  void checkLinks();
  /// --rt-priority auto: puts each worker one priority above a real-time NAPI thread of a
  /// served port that can run on its CPU, or back to normal when there is none.
  void adjustRtPriority();
  /// One line of counters (the --stats-interval output).
  std::string statsLine();

  // ControlBackend
  Status applyRoutes(const RouteBatch& batch) override;
  std::vector<Route> routes() const override;
  Status addNeighbour(const Neighbour& n) override;
  Status deleteNeighbour(const IpAddress& ip, PortId port) override;
  std::vector<Neighbour> neighbours() const override;
  Status setControlRules(const std::vector<ControlRule>& rules) override;
  std::vector<ControlRule> controlRules() const override;
  std::vector<PortInfo> ports() const override;
  Result<PortId> portByName(const std::string& ifname) const override;
  std::vector<CounterSet> stats() const override;
  Result<int> controlChannelFd(PortId port) override;
  void releaseControlChannel(PortId port) override;
  void setEventSink(std::function<void(const FastPathEvent&)> sink) override;

  // For tests and the stats line.
  const Config& config() const { return config_; }
  const std::vector<std::unique_ptr<Worker>>& workers() const { return workers_; }
  FibManager& fib() { return *fib_; }
  uint64_t eventsDelivered() const { return events_delivered_; }
  uint64_t eventsSuppressed() const { return events_suppressed_; }

 private:
  Status startPorts();
  Status startWorkers();

  Config config_;
  std::vector<PortInfo> ports_;
  std::vector<bool> port_gone_;  ///< interface deleted or replaced since start
  std::unique_ptr<FibManager> fib_;
  std::vector<std::unique_ptr<Classifier>> classifiers_;
  std::vector<std::unique_ptr<ControlChannel>> channels_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<ControlRelay> relay_;
  std::vector<ControlRule> rules_;
  std::function<void(const FastPathEvent&)> sink_;
  std::map<std::string, std::chrono::steady_clock::time_point> recent_events_;
  uint64_t events_delivered_ = 0;
  uint64_t events_suppressed_ = 0;
  bool started_ = false;
};

}  // namespace fastpath
