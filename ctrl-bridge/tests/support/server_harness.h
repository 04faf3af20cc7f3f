// SPDX-License-Identifier: GPL-2.0-only
// Runs a ControlServer over a TableBackend (or a MultiNodeBackend) on a real Unix socket in a fresh
// temporary directory, polled by a background thread (the stand-in for fastpathd's control thread).
// Touch the backend only through onServer() while the harness runs.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "fastpath/ctrl/server.h"
#include "table_backend.h"

namespace fastpath::ctrl::testing {

class ServerHarness {
 public:
  explicit ServerHarness(ServerOptions opt = {},
                         std::vector<PortInfo> ports = TableBackend::defaultPorts(),
                         size_t max_v4_routes = 1 << 20)
      : ServerHarness(std::move(opt),
                      std::make_unique<TableBackend>(std::move(ports), max_v4_routes)) {}

  /// Over another backend, e.g. a MultiNodeBackend (multi_node_backend.h).
  ServerHarness(ServerOptions opt, std::unique_ptr<TableBackend> backend)
      : backend_(std::move(backend)) {
    char tmpl[] = "/tmp/fp-ctl-XXXXXX";
    dir_ = ::mkdtemp(tmpl) ? tmpl : "";
    opt.socket_path = dir_ + "/fastpathd.sock";
    opt_ = opt;
    server_ = std::make_unique<ControlServer>(*backend_, opt_);
  }

  ~ServerHarness() {
    stopThread();
    server_.reset();
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }

  Status start() {
    if (auto st = server_->start(); !st) return st;
    stop_ = false;
    thread_ = std::thread([this] { loop(); });
    return {};
  }

  void stopThread() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  /// Stops and restarts the server on the same path (clients see a disconnect).
  Status restart() {
    stopThread();
    server_ = std::make_unique<ControlServer>(*backend_, opt_);
    return start();
  }

  /// Runs `f` on the server thread and returns its result.
  template <typename F>
  auto onServer(F f) -> decltype(f()) {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(f));
    auto fut = task->get_future();
    {
      std::lock_guard<std::mutex> lk(mu_);
      tasks_.push_back([task] { (*task)(); });
    }
    return fut.get();
  }

  const std::string& socketPath() const { return opt_.socket_path; }
  const std::string& dir() const { return dir_; }
  TableBackend& backend() { return *backend_; }
  ControlServer& server() { return *server_; }

 private:
  void loop() {
    while (!stop_) {
      (void)server_->poll(5);
      std::deque<std::function<void()>> tasks;
      {
        std::lock_guard<std::mutex> lk(mu_);
        tasks.swap(tasks_);
      }
      for (auto& t : tasks) t();
    }
  }

  std::unique_ptr<TableBackend> backend_;
  ServerOptions opt_;
  std::string dir_;
  std::unique_ptr<ControlServer> server_;
  std::thread thread_;
  std::atomic<bool> stop_{true};
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace fastpath::ctrl::testing
